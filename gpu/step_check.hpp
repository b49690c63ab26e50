// Whether one rank's tier 0 step, as a benchmark ran it, is a correct one:
// Y [M, n] = bf16(N [M, K] W [n, K]^T + S [M, n]), N given or N = RMSNorm(Z)
// with weight g (the fused order), for any fp32 accumulation order. Plain
// C++ (no CUDA): ltt bench checks every tier 0 row's output with it before
// it reports a figure, and tests/gpu_step.cpp tests it without a GPU.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bf16.hpp"

namespace ltt::gpu {

struct StepOperands {
  int M = 0, n = 0, K = 0;
  std::vector<bf16> a;  // [M, K]: N, or Z where g is not empty
  std::vector<bf16> g;  // [K], or empty: a is N
  float eps = 0;
  std::vector<bf16> w;  // [n, K]
  std::vector<bf16> s;  // [M, n]
  std::vector<bf16> y;  // [M, n]: the output to judge
};

// The first element of y outside the bound that every correct step keeps,
// described ("Y[m, j] = ... where the exact value is ... +- ..."), or empty.
// The bound, per element, from the exact value y* = sum_k n_k w_k + s in
// double (u32 = 2^-24, u16 = 2^-8 the units of fp32 and bf16 rounding):
//   the fp32 sum in any order (tensor cores' too: 2 u32 an addition):
//     E = gamma(2K) sum_k |n_k w_k|, gamma(k) = k u32 / (1 - k u32);
//   the addition of s (u32) and the rounding to bf16 (u16; u16 u32 < u32):
//     |y - y*| <= (u16 + 2 u32) (|y*| + E) + E,
//   plus (2K + 4) 2^-126 for subnormals flushed to zero (FTZ is allowed).
// With g, the kernel's N is its own rounding of z rstd g: each element
// within (u16 + 2 u32 + e_r) |n*_k| of the exact n* = z g / sqrt(mean z^2 +
// eps), e_r = gamma(K) / 2 + 6 u32 the relative error of rstd (the sum of
// squares in any order; the mean, eps, square root and division, and a
// reciprocal square root within 2 ULP), which adds that times
// sum_k |n*_k w_k| (with the GEMM's E over |N| <= 2 |n*|). Not a finite
// value (a poisoned, unwritten element) is outside.
std::string step_outside_bound(const StepOperands& op);

}  // namespace ltt::gpu
