// Tier 4, ROW_PARALLEL (an earlier schedule; forced only).
//
// Per rank r, latent shard r = latent columns [r Ls, (r+1) Ls), Ls = L / T:
//   1. N = RMSNorm(allreduce(R_q)) (the mean square needs the whole row);
//   2. P_r = N[:, shard r] W[:, shard r]^T + S_r: a K = L/T partial
//      up-projection, S_r added in the epilogue (fp32, one rounding);
//   3. Y = allreduce(P_r).
#include "kernels.hpp"
#include "tier.hpp"

namespace ltt::tier4 {

template <class P>
Status run(Ctx<P>& c) {
  using M = typename Ctx<P>::M;
  const Problem& p = c.p;
  std::vector<M> Z = std::move(c.R);
  LTT_TRY(c.comm.allreduce(ptrs(Z), c.contract.algo));
  c.Y.resize(c.n_local());
  for (size_t i = 0; i < c.n_local(); ++i) {
    const M N = c.norm(Z[i], i);
    const int k0 = c.rank(i) * p.Ls();
    c.Y[i] = c.gemm(N.middleCols(k0, p.Ls()), c.W.middleCols(k0, p.Ls()), &c.S[i]);
    P::round(c.Y[i]);
  }
  return c.comm.allreduce(ptrs(c.Y), c.contract.algo);
}

// Rank r: e_P_r = round(add(dot over its K = L/T terms + S_r)). Summed over
// the ranks, the dot terms add up to the full E and |N||W|^T, and
// sum_r |N_r W_r^T + S_r| <= |N||W|^T + AS; so (using (1+ua)(1+us) for the
// add-then-round of every rank)
//   sum_r e_P_r <= (1+ua)(1+us) dot(E, |N||W|^T, L/T) + (ua + us + ua us)(|N||W|^T + AS) + T (tiny_a + tiny_s)
//                 + (T-1) (L/T) tiny_a (dot() counts one rank's underflow),
// and the final reduction sees terms of absolute sum |N||W|^T + AS.
MatD bound(BoundCtx& b, const Contract& k) {
  const Problem& p = b.in.p;
  const auto& n = b.norm(k.algo, k.norm);
  const Units& u = b.u;
  const MatD A = b.t.absNW + b.t.AS;
  const MatD eP = ((1 + u.ua) * (1 + u.us) * b.dot(n.E, b.t.absNW, p.Ls()) + (u.ua + u.us + u.ua * u.us) * A).array() +
                  p.T * (u.tiny_a + u.tiny_s) + double(p.T - 1) * p.Ls() * u.tiny_a;
  // The exact terms of the final reduction, P_r = N_r W_r^T + S_r, for the
  // ring's order-aware bound.
  std::vector<MatD> P;
  if (k.algo == Algo::ring)
    for (int r = 0; r < p.T; ++r)
      P.push_back(gemm_nt<double>(b.t.N.middleCols(r * p.Ls(), p.Ls()), b.W.middleCols(r * p.Ls(), p.Ls())) +
                  b.S()[static_cast<size_t>(r)]);
  return b.reduce(b.t.Y, A, &eP, k.algo, P.empty() ? nullptr : &P);
}

// Rank r rounds P_r = RN(N[:, shard r] W[:, shard r]^T + S_r), a K = L/T
// dot product with S_r in the epilogue; one reduce of the T admissible P_r.
Interval admissible(AdmCtx& a, const Contract& k) {
  const Problem& p = a.in.p;
  AdmCtx::SumAcc sum;
  sum.ring = k.algo == Algo::ring;
  AdmCtx::DotShare share;
  for (int r = 0; r < p.T; ++r)
    a.accumulate_round_add(a.dot(k.algo, k.norm, r * p.Ls(), p.Ls()), a.in.S[static_cast<size_t>(r)], sum, &share);
  // One member's shards sum to its full product: the shards' ranges, each
  // at its own worst, would add T worst cases of the same row's freedom.
  a.cap_by_full(sum, share, a.dot_full(k.algo, k.norm));
  Interval y = a.round(a.sum_finish(sum, k.algo));
  // Row checks: the T shards' P_r = D_r + S_r rounded (their bounds add up to
  // one of the row's: sum_r |P_r|^2 <= (sum_r |P_r|)^2), then the reduction's
  // roundings.
  y.rows = a.row_bounds(k.algo, 1 + a.reduce_roundings(k.algo), 0);
  return y;
}

TierDef def() {
  return {4,
          "ROW_PARALLEL",
          "all-reduce R, RMSNorm, own latent shard of the up-projection plus S_r, one all-reduce",
          "never (an earlier schedule; forced for comparison)",
          {Algo::one_shot, NormOrder::round_then_weight},
          &run<ExactArith>,
          &run<EmulatedArith>,
          &bound,
          &admissible};
}

}  // namespace ltt::tier4
