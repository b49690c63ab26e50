// Tier 3, SINGLE_REDUCTION (an earlier schedule; forced only).
//
// Every rank, replicated:
//   1. one all-reduce of the concatenation X_r = [R_r | S_r], width L + H
//      (ring chunks run over the concatenated rows);
//   2. N = RMSNorm(first L columns); Y = N W^T + last H columns (the add in
//      the GEMM's epilogue: fp32, one rounding).
#include <cstring>

#include "kernels.hpp"
#include "tier.hpp"

namespace ltt::tier3 {

template <class P>
Status run(Ctx<P>& c) {
  using M = typename Ctx<P>::M;
  const Problem& p = c.p;
  std::vector<M> X(c.n_local());
  for (size_t i = 0; i < c.n_local(); ++i) {
    X[i].resize(p.M, p.L + p.H);
    X[i] << c.R[i], c.S[i];
    c.R[i] = M();
    c.S[i] = M();
  }
  LTT_TRY(c.comm.allreduce(ptrs(X), c.contract.algo));
  std::vector<M> N;
  // The split of the concatenation (the tier3-split-off mutant: one column late).
  const int split = c.mutant(Mutant::tier3_split_off) ? 1 : 0;
  for (size_t i = 0; i < X.size(); ++i) N.push_back(c.norm(X[i].middleCols(split, p.L), i));
  c.Y.resize(c.n_local());
  for (size_t i = 0; i < c.n_local(); ++i) {
    // Ranks with bitwise the same reduced X (the replicated computation) share one GEMM.
    if (i > 0 && std::memcmp(X[i].data(), X[i - 1].data(), sizeof(X[i](0, 0)) * static_cast<size_t>(X[i].size())) == 0 &&
        std::memcmp(N[i].data(), N[i - 1].data(), sizeof(N[i](0, 0)) * static_cast<size_t>(N[i].size())) == 0) {
      c.Y[i] = c.Y[i - 1];
      continue;
    }
    const M Sx = X[i].rightCols(p.H);
    c.Y[i] = c.gemm(N[i], c.W, &Sx);
    P::round(c.Y[i]);
  }
  return {};
}

// Z~ and S~ from one reduction (the per-element bound does not depend on the
// chunking), then the epilogue: e_Y = round(add(dot(L) + e_S)), as tier 0.
MatD bound(BoundCtx& b, const Contract& k) {
  const int width = b.in.p.L + b.in.p.H;
  const auto& n = b.norm(k.algo, k.norm, {0, width, false});
  const MatD eS = b.reduce(b.t.S, b.t.AS, nullptr, k.algo, b.S_terms(k.algo), {b.in.p.L, width, false});
  return b.round(b.t.Y, b.add(b.t.Y, b.dot(n.E, b.t.absNW, b.in.p.L) + eS));
}

// One reduce of [R | S] (bf16): Z and S as separate reductions, per
// element the same sets; then the GEMM with S in its epilogue, one rounding.
Interval admissible(AdmCtx& a, const Contract& k) {
  Interval y = a.round(a.accumulate(a.dot_full(k.algo, k.norm), &a.reduce_S(k.algo)));
  // Row checks: one rounding of D + S (the epilogue's), and S's reduction's.
  y.rows = a.row_bounds(k.algo, 1, a.reduce_roundings(k.algo));
  return y;
}

TierDef def() {
  return {3,
          "SINGLE_REDUCTION",
          "one all-reduce of [R_r | S_r], RMSNorm of the first L columns, full up-projection plus the last H",
          "never (an earlier schedule; forced for comparison)",
          {Algo::one_shot, NormOrder::round_then_weight},
          &run<ExactArith>,
          &run<EmulatedArith>,
          &bound,
          &admissible};
}

}  // namespace ltt::tier3
