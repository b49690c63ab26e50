// Deterministic, addressable inputs (DESIGN.md section 4).
//
// Every element is a pure function of (seed, tensor, rank, row, column):
// Philox4x32-10 (Random123) with key {seed low 32 bits, tensor << 16 | rank}
// and counter {column, row, seed high 32 bits, stream}. So a rank's tensors
// are the same bytes whether generated alone, in another process or on
// another device, and a batch of M tokens is the first M rows of any larger
// batch.
//
// Normal variates are the standardized sum of the counter's four uniforms
// (Irwin-Hall, n = 4), scaled: only exactly rounded additions and
// multiplications, so any IEEE machine produces the same bits (a Box-Muller
// transform would depend on the libm's log and cos). Its tails end at
// 2*sqrt(3) = 3.46 sigma; the adversarial distribution supplies the outliers.
//
// Distributions:
//   realistic   R_r = 0.01 n, S_r = n / sqrt(T) (so sum_r S_r has unit
//               variance for any T), g = 1 + 0.1 n, W = n / sqrt(L).
//   exact       integers with a shared exponent: |R_r|, |S_r| <= B = 256/T
//               units, so every partial sum of any subset of ranks is an
//               integer <= 256 units and exact in bf16 and fp32, in any order.
//   adversarial a row kind per token, (row + seed) mod 8:
//               0 signed zeros in S (1/16 of elements -0, 1/16 +0: Lamport
//                 sentinel collisions and +0/-0 pairs across ranks)
//               1 outlier token (R and S scaled by 1000)
//               2 all-zero routed row (+0 on even ranks, -0 on odd): Z = 0,
//                 so a missing eps gives 0/0
//               3 partials that cancel across rank pairs (r, r^1), leaving a
//                 small residual from rank 0
//               4 order probes in every 16th column: 2^24, 1, -2^24 on ranks
//                 0, 1, 2 (the fp32 sum is 0 or 1 depending on the order)
//               5 S near the bf16 maximum (every 32nd column, one rank), a
//                 sum past it (+Inf expected), a NaN and a -Inf to propagate
//               6 subnormal routed row and subnormal S columns
//               7 realistic
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "problem.hpp"
#include "tensor.hpp"

namespace ltt {

enum class TensorId : uint32_t {
  routed = 1,
  shared = 2,
  norm_weight = 3,
  up_weight = 4,
  routed_pair = 5,  // adversarial: cancelling pair bases, one per rank pair
  shared_pair = 6,
};

constexpr int kAdversarialKinds = 8;
enum class RowKind { signed_zeros, outlier, zero_routed, cancel, order_probe, extremes, subnormal, plain };
RowKind row_kind(uint64_t seed, int row);
const char* name(RowKind k);

// Philox4x32-10 of one element.
std::array<uint32_t, 4> philox(uint64_t seed, TensorId t, int rank, uint32_t row, uint32_t col, uint32_t stream);
// A unit normal (Irwin-Hall 4, standardized) from the four words.
double normal_from(const std::array<uint32_t, 4>& x);

// One element of one tensor of rank `rank` (rank is ignored for g and W).
bf16 element(const Problem& p, TensorId t, int rank, int row, int col);

// A slice of a tensor: rows [row0, row0 + rows).
MatrixB generate(const Problem& p, TensorId t, int rank, int row0, int rows);

// Everything a TP group holds: per-rank partials and the replicated weights.
struct Inputs {
  Problem p;
  std::vector<MatrixB> R;  // T x [M, L]
  std::vector<MatrixB> S;  // T x [M, H]
  MatrixB g;               // [1, L]
  MatrixB W;               // [H, L]
};

// All ranks' inputs for p. The replicated weights depend only on (seed, dist,
// H, L): pass `weights_from` to reuse the g and W of an earlier set.
Inputs generate_inputs(const Problem& p, const Inputs* weights_from = nullptr);

}  // namespace ltt
