"""Tier 1 written with NumPy in fp32 with bf16 rounding points (the tier's
declared contract), for examples and tests: a correct member of the family
computed by code that is not ltt's."""
import numpy as np

from ._core import _exact_or_odd_f32


def bf16(x):
    """Round to the nearest bf16 (ties to even), kept in float32, in x's shape (a scalar gives a 0-d
    array: NumPy 2 refuses a 1-element array where an element goes). float64 (and integers) are rounded
    once, not through the nearest float32 first (two roundings, which can pick the other neighbour)."""
    shape = np.shape(x)
    a = np.ascontiguousarray(_exact_or_odd_f32(np.asarray(x)))
    bits = a.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)
    out = rounded.view(np.float32).copy()
    nan = np.isnan(a)
    out[nan] = a[nan]
    return out.reshape(shape)


def tier1(inputs, eps=1e-6):
    """Y = bf16(bf16(N W^T) + bf16(sum S)), N = bf16(bf16(Z rstd) g), Z = bf16(sum R) (fp32 sums in rank order)."""
    Z = bf16(np.sum(np.stack(inputs["R"]), axis=0, dtype=np.float32))
    S = bf16(np.sum(np.stack(inputs["S"]), axis=0, dtype=np.float32))
    L = Z.shape[1]
    ss = np.sum(Z * Z, axis=1, dtype=np.float32)
    rstd = (np.float32(1) / np.sqrt(ss / np.float32(L) + np.float32(eps))).astype(np.float32)
    N = bf16(bf16(Z * rstd[:, None]) * inputs["g"][None, :])
    Yp = bf16(np.matmul(N, inputs["W"].T, dtype=np.float32))
    return bf16(Yp + S)
