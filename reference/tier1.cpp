// Tier 1, ALLREDUCE_OVERLAP (M <= 256, the shared-stream token threshold).
//
// Every rank, replicated:
//   1. N = RMSNorm(allreduce(R_q));
//   2. Y' = N W^T, the full up-projection from the replicated weight, rounded
//      to bf16 (main stream), while S = allreduce(S_q) runs on an auxiliary
//      stream hidden behind the GEMM;
//   3. Y = Y' + S (fp32, one rounding).
#include "kernels.hpp"
#include "tier.hpp"

namespace ltt::tier1 {

template <class P>
Status run(Ctx<P>& c) {
  using M = typename Ctx<P>::M;
  std::vector<M> Z = std::move(c.R), S = std::move(c.S);
  LTT_TRY(c.comm.allreduce(ptrs(Z), c.contract.algo));
  std::vector<M> N;
  for (size_t i = 0; i < Z.size(); ++i) N.push_back(c.norm(Z[i], i));
  // The aux stream's reduce (the tier1-own-s mutant adds S_r before it is done).
  if (!c.mutant(Mutant::tier1_own_s)) LTT_TRY(c.comm.allreduce(ptrs(S), c.contract.algo));
  const std::vector<M> Yp = per_rank_dedup(N, [&](const M& n) {
    M y = c.gemm(n, c.W);
    P::round(y);
    return y;
  });
  c.Y.resize(c.n_local());
  for (size_t i = 0; i < c.n_local(); ++i) {
    c.Y[i] = Yp[i] + S[i];
    P::round(c.Y[i]);
  }
  return {};
}

// Y' = round(dot(L)); S~ from a reduction; Y = round(add(Y' + S~)).
MatD bound(BoundCtx& b, const Contract& k) {
  const auto& n = b.norm(k.algo, k.norm);
  const MatD eYp = b.round(b.t.NW, b.dot(n.E, b.t.absNW, b.in.p.L));
  const MatD eS = b.reduce(b.t.S, b.t.AS, nullptr, k.algo, b.S_terms(k.algo));
  return b.round(b.t.Y, b.add(b.t.Y, eYp + eS));
}

// Y' = RN(N W^T) on the main stream, S = the aux stream's reduce (bf16),
// Y = RN(Y' + S): two rounding points in a row.
Interval admissible(AdmCtx& a, const Contract& k) {
  const Interval Yp = a.round(a.accumulate(a.dot_full(k.algo, k.norm), nullptr));
  Interval y = a.round(a.add(Yp, a.reduce_S(k.algo)));
  // Row checks: Y' and Y' + S rounded, and S's reduction's roundings.
  y.rows = a.row_bounds(k.algo, 2, a.reduce_roundings(k.algo));
  return y;
}

TierDef def() {
  return {1,
          "ALLREDUCE_OVERLAP",
          "all-reduce R, RMSNorm, full up-projection (replicated W) overlapped with the all-reduce of S, add",
          "not tier 0 and M <= 256 (the shared-stream token threshold)",
          {Algo::one_shot, NormOrder::round_then_weight},
          &run<ExactArith>,
          &run<EmulatedArith>,
          &bound,
          &admissible};
}

}  // namespace ltt::tier1
