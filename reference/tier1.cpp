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
  for (auto& z : Z) N.push_back(rmsnorm<P>(z, c.g, c.p.eps, c.contract.norm));
  LTT_TRY(c.comm.allreduce(ptrs(S), c.contract.algo));  // the aux stream's reduce
  const std::vector<M> Yp = per_rank_dedup(N, [&](const M& n) {
    M y = gemm_nt<typename P::Real>(n, c.W);
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
  const MatD eS = b.reduce(b.t.S, b.t.AS, nullptr, k.algo, &b.S());
  return b.round(b.t.Y, b.add(b.t.Y, eYp + eS));
}

TierDef def() {
  return {1,
          "ALLREDUCE_OVERLAP",
          "all-reduce R, RMSNorm, full up-projection (replicated W) overlapped with the all-reduce of S, add",
          "not tier 0 and M <= 256 (the shared-stream token threshold)",
          {Algo::one_shot, NormOrder::round_then_weight},
          &run<ExactArith>,
          &run<EmulatedArith>,
          &bound};
}

}  // namespace ltt::tier1
