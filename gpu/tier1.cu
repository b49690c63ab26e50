// Tier 1, ALLREDUCE_OVERLAP (reference/tier1.cpp): Z = allreduce(R); N =
// RMSNorm(Z); Y' = bf16(N W^T) on the main stream while S = allreduce(S_q)
// runs on the auxiliary stream (events order them); Y = bf16(Y' + S).
#include "ctx.cuh"

namespace ltt::gpu::tier1 {

Status run(GpuCtx& c) {
  const Problem& p = c.p;
  const int M = p.M, L = p.L, H = p.H;
  const size_t ML = static_cast<size_t>(M) * L, MH = static_cast<size_t>(M) * H;
  cudaEvent_t inputs_ready = nullptr, s_reduced = nullptr;
  LTT_CUDA(cudaEventCreateWithFlags(&inputs_ready, cudaEventDisableTiming));
  struct Events {
    cudaEvent_t* a;
    cudaEvent_t* b;
    ~Events() {
      LTT_CUDA_NOTE(cudaEventDestroy(*a));
      if (*b) LTT_CUDA_NOTE(cudaEventDestroy(*b));
    }
  } events{&inputs_ready, &s_reduced};
  LTT_CUDA(cudaEventCreateWithFlags(&s_reduced, cudaEventDisableTiming));
  LTT_TRY(c.fence());  // every rank's R and S in place
  const RankBufs& Sred = c.P;
  if (c.is(Mutant::tier1_own_s)) {
    // The aux stream's reduce not awaited: the add reads S_r as it was
    // before the reduce (made deterministic: the reduce comes after).
    LTT_TRY(c.allreduce(c.R, c.Z, ML, c.s));
    for (int r = c.lo(); r < c.hi(); ++r) {
      LTT_TRY(rmsnorm(c.Z[r], L, c.g.get(), c.N.get(), M, L, c.eps(), c.contract.norm, c.s));
      LTT_TRY(c.addmm(c.N.get(), L, c.W.get(), L, nullptr, 0, c.Y[r], H, M, H, L, false));
      LTT_TRY(add_round(c.Y[r], c.S[r], MH, c.s));
    }
    return c.allreduce(c.S, Sred, MH, c.s);
  }
  LTT_CUDA(cudaEventRecord(inputs_ready, c.s));
  LTT_CUDA(cudaStreamWaitEvent(c.aux, inputs_ready, 0));
  LTT_TRY(c.allreduce(c.S, Sred, MH, c.aux));
  LTT_CUDA(cudaEventRecord(s_reduced, c.aux));

  LTT_TRY(c.allreduce(c.R, c.Z, ML, c.s));
  for (int r = c.lo(); r < c.hi(); ++r) {
    LTT_TRY(rmsnorm(c.Z[r], L, c.g.get(), c.N.get(), M, L, c.eps(), c.contract.norm, c.s));
    LTT_TRY(c.addmm(c.N.get(), L, c.W.get(), L, nullptr, 0, c.Y[r], H, M, H, L, false));
  }
  LTT_CUDA(cudaStreamWaitEvent(c.s, s_reduced, 0));
  for (int r = c.lo(); r < c.hi(); ++r) LTT_TRY(add_round(c.Y[r], Sred[r], MH, c.s));
  return {};
}

}  // namespace ltt::gpu::tier1
