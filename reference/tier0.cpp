// Tier 0, TAIL_FUSION (decode: 1 <= M <= 128, T in {8, 16}, bf16).
//
// Per rank r, shard r = hidden columns [r Hs, (r+1) Hs), Hs = H / T:
//   1. one fused collective: Z = allreduce(R_q), N = RMSNorm(Z) (fused
//      rounding order), S^(r) = reduce-scatter of S_q over the hidden shards;
//   2. Y^(r) = N W[shard r, :]^T + S^(r): the sharded up-projection, the add
//      in the GEMM's epilogue (fp32, one rounding);
//   3. Y = all-gather of the Y^(r) by Lamport copy: -0 (bf16 0x8000) marks an
//      empty slot, so every writer turns real -0 into +0 before publishing
//      (its inputs to the collective and its output shard). Values are
//      unchanged; only the sign of zeros.
#include "kernels.hpp"
#include "tier.hpp"

namespace ltt::tier0 {

template <class P>
Status run(Ctx<P>& c) {
  using M = typename Ctx<P>::M;
  std::vector<M> Z = std::move(c.R), Sin = std::move(c.S);
  if (!c.mutant(Mutant::lamport_neg_zero)) {
    for (auto& z : Z) no_neg_zero(z);
    for (auto& s : Sin) no_neg_zero(s);
  }
  LTT_TRY(lamport_readable(Z, "tier 0's fused all-reduce of R"));
  LTT_TRY(lamport_readable(Sin, "tier 0's fused reduce-scatter of S"));
  LTT_TRY(c.comm.allreduce(ptrs(Z), c.contract.algo));
  std::vector<M> Ssh(c.n_local());
  LTT_TRY(c.comm.reduce_scatter_cols(cptrs(Sin), ptrs(Ssh), c.contract.algo));
  std::vector<M> Ysh(c.n_local());
  for (size_t i = 0; i < c.n_local(); ++i) {
    const M N = c.norm(Z[i], i);
    Ysh[i] = c.gemm(N, c.w_rows(i), &Ssh[i]);
    P::round(Ysh[i]);
    if (!c.mutant(Mutant::lamport_neg_zero)) no_neg_zero(Ysh[i]);
  }
  c.Y.resize(c.n_local());
  return c.comm.allgather_cols(cptrs(Ysh), ptrs(c.Y));
}

// Z~ and S~^(r) come from reductions (bounds.hpp); the epilogue adds the
// K = L dot product to S~ in fp32 and rounds once:
//   e_Y = round(add(dot(E, |N||W|^T, L) + e_S)).
// The all-gather copies; it adds no error.
MatD bound(BoundCtx& b, const Contract& k) {
  const auto& n = b.norm(k.algo, k.norm);
  const MatD eS = b.reduce(b.t.S, b.t.AS, nullptr, k.algo, b.S_terms(k.algo), {0, 0, true});
  return b.round(b.t.Y, b.add(b.t.Y, b.dot(n.E, b.t.absNW, b.in.p.L) + eS));
}

// The family's S^(r) (a one-shot or ring reduce-scatter, bf16) is the
// addend of the shard GEMM's epilogue; one rounding. The all-gather copies.
Interval admissible(AdmCtx& a, const Contract& k) {
  Interval y = a.round(a.accumulate(a.dot_full(k.algo, k.norm), &a.reduce_S(k.algo)));
  // Row checks: one rounding of D + S (the epilogue's), and S's reduction's.
  y.rows = a.row_bounds(k.algo, 1, a.reduce_roundings(k.algo));
  return y;
}

TierDef def() {
  return {0,
          "TAIL_FUSION",
          "fused all-reduce of R + RMSNorm + reduce-scatter of S; sharded up-projection; Lamport all-gather",
          "T in {8, 16}, bf16, 1 <= M <= 128, device and build support it",
          {Algo::one_shot, NormOrder::fused},
          &run<ExactArith>,
          &run<EmulatedArith>,
          &bound,
          &admissible};
}

}  // namespace ltt::tier0
