#!/usr/bin/env python3
"""Writes the seed corpus of the safetensors fuzzer (tests/fuzz/corpus/).

Deterministic: the same bytes on every run (standard library only). Valid
files follow the layout in harness/safetensors.hpp: an 8-byte little-endian
header length N, N bytes of JSON padded with spaces to a multiple of 8, then
the tensors' little-endian bytes, exactly covered by their data_offsets.
A few near-miss malformed files exercise the error paths.

Usage: python3 tests/fuzz/make_corpus.py [OUT_DIR]   (default: corpus/ next to this script)
"""
import json
import os
import struct
import sys


def st_file(header, data, pad=True):
    """header: a dict (dumped compactly, keys sorted) or a str used as-is."""
    h = header if isinstance(header, str) else json.dumps(header, separators=(",", ":"), sort_keys=True)
    h = h.encode()
    if pad:
        h += b" " * ((8 - len(h) % 8) % 8)
    return struct.pack("<Q", len(h)) + h + data


def entry(dtype, shape, begin, end):
    return {"dtype": dtype, "shape": shape, "data_offsets": [begin, end]}


def bf16(x):
    """Round-to-nearest-even float32 -> bf16 bits (finite inputs only)."""
    (u,) = struct.unpack("<I", struct.pack("<f", x))
    u += 0x7FFF + ((u >> 16) & 1)
    return struct.pack("<H", (u >> 16) & 0xFFFF)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
    os.makedirs(out, exist_ok=True)
    files = {}

    # Valid files.
    b = b"".join(bf16(v) for v in [1.0, -2.5, 0.15625, 3.0e38, -0.0, 1.0e-40])
    files["valid_bf16_2x3.safetensors"] = st_file({"w": entry("BF16", [2, 3], 0, len(b))}, b)

    f = struct.pack("<4f", 1.0, -1.5, float("inf"), 6.1e-5)
    files["valid_f32_2x2.safetensors"] = st_file({"x": entry("F32", [2, 2], 0, len(f))}, f)

    d = struct.pack("<3d", 3.141592653589793, -1e-300, float("nan"))
    files["valid_f64_3x1.safetensors"] = st_file({"y": entry("F64", [3, 1], 0, len(d))}, d)

    v = b"".join(bf16(x) for x in [0.5, 1.0, 2.0, 4.0])
    files["valid_bf16_1d.safetensors"] = st_file({"norm_weight": entry("BF16", [4], 0, len(v))}, v)

    a = b"".join(bf16(x) for x in [1.0, 2.0])
    m = struct.pack("<2f", 0.25, -0.75)
    files["valid_multi_metadata.safetensors"] = st_file(
        {
            "__metadata__": {"format": "pt", "ltt": "seed"},
            "a": entry("BF16", [1, 2], 0, 4),
            "b": entry("F32", [2], 4, 12),
        },
        a + m,
    )

    files["valid_empty_header.safetensors"] = st_file("{}", b"")

    files["valid_zero_size.safetensors"] = st_file(
        {"z": entry("F32", [0, 5], 0, 0), "s": entry("F64", [], 0, 8)}, struct.pack("<d", 42.0)
    )

    # Near misses: each breaks one rule.
    good = files["valid_bf16_2x3.safetensors"]
    files["bad_truncated.safetensors"] = good[:-3]
    files["bad_offsets_gap.safetensors"] = st_file(
        {"a": entry("BF16", [1, 2], 0, 4), "b": entry("BF16", [1, 2], 6, 10)}, bytes(10)
    )
    files["bad_offsets_overlap.safetensors"] = st_file(
        {"a": entry("BF16", [2], 0, 4), "b": entry("BF16", [2], 2, 6)}, bytes(6)
    )
    files["bad_json.safetensors"] = st_file('{"w":{"dtype":"BF16","shape":[2,3],"data_offsets":[0,12]', bytes(12))
    files["bad_header_length.safetensors"] = struct.pack("<Q", 1 << 40) + b"{}      "

    for name in sorted(files):
        with open(os.path.join(out, name), "wb") as fh:
            fh.write(files[name])
    print(f"wrote {len(files)} files to {out}")


if __name__ == "__main__":
    main()
