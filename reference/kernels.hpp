// The per-rank compute stages every tier is built from, in either arithmetic:
//   rmsnorm      N = Z * g / sqrt(mean(Z^2) + eps), row by row
//   gemm_nt      A B^T, accumulated in the arithmetic's own type
//   no_neg_zero  -0 -> +0 (what a Lamport writer does before it publishes)
#pragma once

#include <vector>

#include "arith.hpp"
#include "member.hpp"

namespace ltt {

// Emulated: the sum of squares in fp32 (eight interleaved partial sums, then
// a fixed tree), mean = sum / L, rstd = 1 / sqrt(mean + eps) in fp32, then N
// rounded in the given order (problem.hpp, NormOrder). Exact: float64, no
// rounding. g is [1, L]. Each row depends on that row alone.
template <class P>
Mat<typename P::Real> rmsnorm(const Mat<typename P::Real>& Z, const Mat<typename P::Real>& g, double eps,
                              NormOrder order);

// C = A B^T with A [M, K] and B [N, K] (nn.Linear layout), accumulated in
// Real. Eigen's blocked GEMM over K in fixed panels of 128, so every element's
// summation order depends on K alone: not on M (M = 1 runs as two equal rows,
// off Eigen's GEMV path), N, the thread count or the cache sizes. Hence
// batch-invariant and the same bits on any machine with the same ISA.
template <class Real>
Mat<Real> gemm_nt(const ConstRef<Real>& A, const ConstRef<Real>& B);

constexpr int kGemmPanel = 128;

// The same stages as a member of the family or a mutant runs them
// (member.hpp); with m null (or plain) exactly rmsnorm() and gemm_nt() (+ C).
// `rank` is the TP rank (eps-one-rank), T the TP size (mean-l-over-t).
// Exact arithmetic ignores m.
template <class P>
Mat<typename P::Real> rmsnorm_m(const Mat<typename P::Real>& Z, const Mat<typename P::Real>& g, double eps,
                                NormOrder order, const Member* m, int rank, int T);
// A B^T + C (C may be null), accumulated in Real, not rounded.
template <class Real>
Mat<Real> gemm_m(const ConstRef<Real>& A, const ConstRef<Real>& B, const Mat<Real>* C, const Member* m);

template <class Real>
void no_neg_zero(Mat<Real>& m);

// Buffers of every local rank, as pointers (for the Comm calls).
template <class M>
std::vector<M*> ptrs(std::vector<M>& v) {
  std::vector<M*> p;
  for (auto& x : v) p.push_back(&x);
  return p;
}
template <class M>
std::vector<const M*> cptrs(const std::vector<M>& v) {
  std::vector<const M*> p;
  for (auto& x : v) p.push_back(&x);
  return p;
}

// out[i] = f(in[i]) for every local rank, computing f once per distinct
// input: ranks whose input is bitwise equal to the previous rank's reuse its
// result (the same inputs through the same code give the same bits), so T
// fake ranks with a replicated GEMM cost one GEMM, while a rank whose input
// differs (a bug upstream) still computes its own.
template <class M, class F>
std::vector<M> per_rank_dedup(const std::vector<M>& in, F f) {
  std::vector<M> out;
  for (size_t i = 0; i < in.size(); ++i) {
    const bool same = i > 0 && in[i].rows() == in[i - 1].rows() && in[i].cols() == in[i - 1].cols() &&
                      std::equal(in[i].data(), in[i].data() + in[i].size(), in[i - 1].data(),
                                 [](auto a, auto b) { return std::memcmp(&a, &b, sizeof a) == 0; });
    out.push_back(same ? out.back() : f(in[i]));
  }
  return out;
}

}  // namespace ltt
