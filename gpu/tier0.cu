// Tier 0, TAIL_FUSION, on fake ranks (reference/tier0.cpp is the contract):
// writers turn -0 into +0; Z = allreduce(R); S^(r) = reduce-scatter of S over
// the hidden shards; N = RMSNorm(Z) (fused order); Y^(r) = N W[shard r]^T +
// S^(r) in fp32, one rounding, -0 made +0; Y = Lamport all-gather of the
// Y^(r) through a receive buffer pre-filled with -0. Staged kernels: the
// fused single-kernel collective is not built yet.
#include "ctx.cuh"

namespace ltt::gpu::tier0 {

Status run(GpuCtx& c) {
  const Problem& p = c.p;
  const int T = p.T, M = p.M, L = p.L, H = p.H, Hs = p.Hs();
  const bool sanitise = !c.is(Mutant::lamport_neg_zero);
  for (int r = 0; r < T && sanitise; ++r) {
    LTT_TRY(sanitize(c.R[r], static_cast<size_t>(M) * L, c.s));
    LTT_TRY(sanitize(c.S[r], static_cast<size_t>(M) * H, c.s));
  }
  // What the fused collective's readers see: a -0 published in R or S would
  // leave them waiting forever (GpuCase::run() reports it).
  const long long per_rank = static_cast<long long>(M) * (L + H);
  LTT_CUDA(cudaMemsetAsync(c.stuck_in.get(), 0xff, sizeof(long long), c.s));
  for (int r = 0; r < T; ++r) {
    LTT_TRY(find_neg_zero(c.R[r], static_cast<size_t>(M) * L, r * per_rank, c.stuck_in.get(), c.s));
    LTT_TRY(find_neg_zero(c.S[r], static_cast<size_t>(M) * H, r * per_rank + static_cast<long long>(M) * L, c.stuck_in.get(), c.s));
  }
  LTT_TRY(allreduce(c.R.dev(), T, static_cast<size_t>(M) * L, c.contract.algo, c.s, c.terms()));
  const RankBufs& Ssh = c.shard_s;
  const RankBufs& Ysh = c.shard_y;
  LTT_TRY(reduce_scatter_cols(c.S.cdev(), Ssh.dev(), T, M, H, Hs, c.contract.algo, c.s, c.terms()));
  for (int r = 0; r < T; ++r) {
    LTT_TRY(rmsnorm(c.R[r], L, c.g.get(), c.N.get(), M, L, c.eps(), c.contract.norm, c.s));
    LTT_TRY(widen(Ssh[r], Hs, c.C.get(), Hs, M, Hs, c.s));
    const bf* w = c.W.get() + static_cast<size_t>(c.w_shard(r)) * Hs * L;
    LTT_TRY(c.gemm(c.N.get(), L, w, L, c.C.get(), Hs, M, Hs, L, 1.0f));
    LTT_TRY(round_to(c.C.get(), Hs, Ysh[r], Hs, M, Hs, sanitise, c.s));
  }
  // The Lamport all-gather through the next of three rotating receive
  // buffers (kept across cases, as a job keeps them): clear to -0, publish,
  // read once not -0.
  bf* recv = c.lamport_buffer();
  const DevBuf<long long>& stuck = c.stuck_dev;
  LTT_CUDA(cudaMemsetAsync(stuck.get(), 0xff, sizeof(long long), c.s));
  if (c.is(Mutant::lamport_stale)) return lamport_race(Ysh.cdev(), recv, c.Y.dev(), T, M, Hs, c.s);
  LTT_TRY(fill(recv, static_cast<size_t>(M) * H, kNegZero, c.s));
  LTT_TRY(lamport_publish(Ysh.cdev(), recv, T, M, Hs, c.s));
  LTT_TRY(lamport_read(recv, c.Y.dev(), T, static_cast<size_t>(M) * H, stuck.get(), c.s));
  return {};  // GpuCase::run() reads the stuck slot once the device is done
}

}  // namespace ltt::gpu::tier0
