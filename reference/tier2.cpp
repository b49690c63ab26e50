// Tier 2, COLUMN_PARALLEL (prefill: M > 256).
//
// Per rank r, shard r = hidden columns [r Hs, (r+1) Hs):
//   1. N = RMSNorm(allreduce(R_q));
//   2. S_r[:, shard r] += N W[shard r, :]^T: only this rank's shard of the
//      up-projection, accumulated into its own shared partial (a GEMM with a
//      beta = 1 epilogue: fp32 add, one rounding);
//   3. Y = allreduce(S_r): one reduce sums the shared partials and stitches
//      the routed shards together. 1/T of tier 1's up-projection FLOPs.
#include "kernels.hpp"
#include "tier.hpp"

namespace ltt::tier2 {

template <class P>
Status run(Ctx<P>& c) {
  using M = typename Ctx<P>::M;
  const Problem& p = c.p;
  std::vector<M> Z = std::move(c.R);
  LTT_TRY(c.comm.allreduce(ptrs(Z), c.contract.algo));
  c.Y = std::move(c.S);
  for (size_t i = 0; i < c.n_local(); ++i) {
    const M N = c.norm(Z[i], i);
    const int col = c.rank(i) * p.Hs();
    auto shard = c.Y[i].middleCols(col, p.Hs());
    const M own = shard;
    M acc = c.gemm(N, c.w_rows(i), &own);
    P::round(acc);
    shard = acc;
  }
  return c.comm.allreduce(ptrs(c.Y), c.contract.algo);
}

// The owner of column j (rank j / Hs) holds P = round(add(dot(L) + S_own));
// every other rank's P is its exact S_q. The final reduction then sees terms
// with absolute sum AS - |S_own| + |NW + S_own| and input error e_P.
MatD bound(BoundCtx& b, const Contract& k) {
  const Problem& p = b.in.p;
  const auto& n = b.norm(k.algo, k.norm);
  // S_own: each column's owner's S; the exact terms of the final reduction
  // (the ring's bound needs them): P_q = S_q, plus N W^T on the owner's shard.
  MatD own(p.M, p.H);
  for (int r = 0; r < p.T; ++r)
    own.middleCols(r * p.Hs(), p.Hs()) = widen<double>(b.in.S[static_cast<size_t>(r)]).middleCols(r * p.Hs(), p.Hs());
  std::vector<MatD> P;
  if (k.algo == Algo::ring) {
    P = b.S();
    for (int r = 0; r < p.T; ++r)
      P[static_cast<size_t>(r)].middleCols(r * p.Hs(), p.Hs()) += b.t.NW.middleCols(r * p.Hs(), p.Hs());
  }
  const MatD X = b.t.NW + own;
  const MatD eP = b.round(X, b.add(X, b.dot(n.E, b.t.absNW, p.L)));
  const MatD A = b.t.AS - own.cwiseAbs() + X.cwiseAbs();
  return b.reduce(b.t.Y, A, &eP, k.algo, P.empty() ? nullptr : &P);
}

// The owner r of column j rounds P = RN(N W^T + S_r) (the beta = 1
// epilogue); every other rank contributes its exact S_q; one reduce.
Interval admissible(AdmCtx& a, const Contract& k) {
  const Problem& p = a.in.p;
  const int Hs = p.Hs();
  Interval own{MatD(p.M, p.H), MatD()};
  for (int r = 0; r < p.T; ++r)
    own.lo.middleCols(r * Hs, Hs) = widen<double>(a.in.S[static_cast<size_t>(r)]).middleCols(r * Hs, Hs);
  own.hi = own.lo;
  const Interval P = a.round(a.accumulate(a.dot_full(k.algo, k.norm), &own));
  AdmCtx::SumAcc sum;
  sum.ring = k.algo == Algo::ring;
  for (int q = 0; q < p.T; ++q) {
    MatD lo = widen<double>(a.in.S[static_cast<size_t>(q)]), hi = lo;
    lo.middleCols(q * Hs, Hs) = P.lo.middleCols(q * Hs, Hs);
    hi.middleCols(q * Hs, Hs) = P.hi.middleCols(q * Hs, Hs);
    a.sum_add(sum, lo, hi);
  }
  Interval y = a.round(a.sum_finish(sum, k.algo));
  // Row checks: the shard's D + S_r rounded, then the reduction's roundings,
  // every one of a value bounded by D's and the S_r's.
  y.rows = a.row_bounds(k.algo, 1 + a.reduce_roundings(k.algo), 0);
  return y;
}

TierDef def() {
  return {2,
          "COLUMN_PARALLEL",
          "all-reduce R, RMSNorm, own hidden shard of the up-projection added into S_r, one all-reduce",
          "not tier 0 and M > 256",
          {Algo::one_shot, NormOrder::round_then_weight},
          &run<ExactArith>,
          &run<EmulatedArith>,
          &bound,
          &admissible};
}

}  // namespace ltt::tier2
