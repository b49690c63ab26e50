// Tier 0, TAIL_FUSION (reference/tier0.cpp is the contract): one fused
// collective kernel reads every rank's R and S through peer memory (Lamport
// slots: writers turn -0 into +0, a published -0 is a slot no reader can
// take) and makes, per rank, Z = allreduce(R), N = RMSNorm(Z) (fused order)
// and S^(r) = the reduce-scatter of S over the hidden shards; then Y^(r) =
// N W[shard r]^T + S^(r) in fp32, one rounding, -0 made +0 (one kernel:
// shard_gemv.cu up to 12 tokens (16 where the MMA kernel does not take the
// shape); on narrow shards shard_mma.cu (Hopper's warpgroup products; it
// normalises Z itself on the mma-fused path) from 13 to 128, or where it does not run shard_gemv.cu
// up to 112 or 128 (its cluster form on Hopper); shard_gemm.cu where those
// do not take the shape (it normalises Z itself on the fused path); cuBLAS
// past them: tier0_default_path() and cuda_backend.hpp's Tier0Path);
// then Y = the Lamport
// all-gather of the Y^(r). The first rank's step kernel is a programmatic
// dependent of the collective: it loads W while the collective runs.
// Fake ranks share the process's receive buffer (three, rotating across
// cases); ranks in several processes each have their own three, written by
// every publisher through peer memory and cleared by their reader after use.
#include "ctx.cuh"

namespace ltt::gpu::tier0 {

Status run(GpuCtx& c) {
  const Problem& p = c.p;
  const int T = p.T, M = p.M, L = p.L, H = p.H, Hs = p.Hs();
  const size_t MH = static_cast<size_t>(M) * H;
  const bool sanitise = !c.is(Mutant::lamport_neg_zero);
  LTT_TRY(c.fence());  // every rank's R and S in place
  LTT_CUDA(cudaMemsetAsync(c.stuck_in.get(), 0xff, sizeof(long long), c.s));
  const bool norm_in_gemm = c.t0path == Tier0Path::fused || c.t0path == Tier0Path::gemv ||
                            c.t0path == Tier0Path::mma_fused;  // then the collective writes Z
  LTT_TRY(tier0_collective(c.R.cdev(), c.S.cdev(), norm_in_gemm ? nullptr : c.g.get(), c.Nr.dev(), c.shard_s.dev(), T, c.lo(), c.hi(), M, L, H,
                           c.contract.algo, NormOrder::fused, c.eps(), c.terms(), sanitise, c.stuck_in.get(), c.s));
  const RankBufs& Ysh = c.shard_y;
  // gemm-round-then-add planted in tier 0's own kernels: each writes its
  // product rounded (a zero addend), then S^(r) is added and rounded again.
  const bool planted = c.is(Mutant::gemm_round_then_add) && c.t0path != Tier0Path::cublas;
  for (int r = c.lo(); r < c.hi(); ++r) {
    const bf* w = c.W.get() + static_cast<size_t>(c.w_shard(r)) * Hs * L;
    if (c.t0path != Tier0Path::cublas) {  // one kernel; the first loads W while the collective runs
      const bf* gw = norm_in_gemm ? c.g.get() : nullptr;
      const bool pdl = c.pdl && r == c.lo();
      const bf* add = planted ? c.zero_s.get() : c.shard_s[r];
      if (c.t0path == Tier0Path::mma || c.t0path == Tier0Path::mma_fused) {  // shard_mma.cu
        LTT_TRY(shard_mma_add(c.Nr[r], L, gw, c.eps(), NormOrder::fused, w, L, add, Hs, Ysh[r], Hs, M, Hs, L, sanitise, pdl,
                              c.s));
      } else {
        const bool few = c.t0path == Tier0Path::gemv || c.t0path == Tier0Path::gemv_split;  // shard_gemv.cu
        LTT_TRY(few ? shard_gemv_add(c.Nr[r], L, gw, c.eps(), NormOrder::fused, w, L, add, Hs, Ysh[r], Hs, M, Hs, L,
                                     sanitise, pdl, c.s)
                    : shard_gemm_add(c.gemm_plan, c.Nr[r], L, gw, c.eps(), NormOrder::fused, w, L, add, Hs, Ysh[r], Hs, M, Hs,
                                     L, sanitise, pdl, c.s));
      }
      if (planted) {
        LTT_TRY(add_round(Ysh[r], c.shard_s[r], static_cast<size_t>(M) * Hs, c.s));
        if (sanitise) LTT_TRY(clear_neg_zero(Ysh[r], Hs, M, Hs, c.s));
      }
      continue;
    }
    LTT_TRY(c.addmm(c.Nr[r], L, w, L, c.shard_s[r], Hs, Ysh[r], Hs, M, Hs, L, sanitise));  // shapes it does not take: cuBLAS
  }
  const DevBuf<long long>& stuck = c.stuck_dev;
  LTT_CUDA(cudaMemsetAsync(stuck.get(), 0xff, sizeof(long long), c.s));
  if (!c.lay.multi()) {
    // The next of the process's three rotating receive buffers (kept across
    // cases, as a job keeps them): clear to -0, publish, read once not -0.
    const int k = c.lamport_next();
    bf* recv = c.fake_recv[k];
    if (c.is(Mutant::lamport_stale)) return lamport_race(Ysh.cdev(), recv, c.Y.dev(), T, M, Hs, c.s);
    LTT_TRY(fill(recv, MH, kNegZero, c.s));
    LTT_TRY(lamport_publish(Ysh.cdev(), c.fake_dst[k].get(), 1, T, 0, T, M, Hs, c.s));
    LTT_TRY(lamport_read(c.fake_src[k].get(), c.Y.dev(), 0, T, MH, stuck.get(), c.s));
    return {};  // GpuCase::run() reads the stuck slot once the device is done
  }
  // Ranks in several processes: every rank's receive buffer k of three
  // (k = this run's number mod 3) was cleared by its reader; this process's
  // ranks publish their shards into all T of them, then read their own and
  // clear it for the run after next (a writer one run ahead writes buffer
  // k + 1, cleared two runs ago).
  const RankBufs& recv = c.lam[c.runs++ % 3];
  LTT_TRY(lamport_publish(Ysh.cdev(), recv.dev(), T, T, c.lo(), c.hi(), M, Hs, c.s));
  if (c.device_fences) {
    // Every process on its own GPU: the readers spin on the -0 sentinel while
    // the publishers on the other GPUs write, as the Lamport protocol does (a
    // slot still -0 after 2 s is reported as one that never comes).
    LTT_TRY(lamport_read(recv.cdev(), c.Y.dev(), c.lo(), c.hi(), MH, stuck.get(), c.s, 2.0));
  } else {
    // Processes sharing a GPU are time-sliced: spinning could wait on a
    // publisher that is not running. A fence first; then no slot can be late.
    LTT_TRY(c.fence());
    LTT_TRY(lamport_read(recv.cdev(), c.Y.dev(), c.lo(), c.hi(), MH, stuck.get(), c.s));
  }
  for (int r = c.lo(); r < c.hi(); ++r) LTT_TRY(fill(recv[r], MH, kNegZero, c.s));
  return {};
}

}  // namespace ltt::gpu::tier0
