// Tier 2, COLUMN_PARALLEL, on fake ranks (reference/tier2.cpp): Z =
// allreduce(R); N = RMSNorm(Z); rank r's shard of its own S_r becomes
// bf16(N W[shard r]^T + S_r[:, shard r]) (fp32 addend, one rounding); Y =
// allreduce of those partials.
#include "ctx.cuh"

namespace ltt::gpu::tier2 {

Status run(GpuCtx& c) {
  const Problem& p = c.p;
  const int T = p.T, M = p.M, L = p.L, H = p.H, Hs = p.Hs();
  LTT_TRY(allreduce(c.R.dev(), T, static_cast<size_t>(M) * L, c.contract.algo, c.s, c.terms()));
  for (int r = 0; r < T; ++r) {
    LTT_CUDA(cudaMemcpyAsync(c.Y[r], c.S[r], sizeof(bf) * M * static_cast<size_t>(H), cudaMemcpyDeviceToDevice, c.s));
    LTT_TRY(rmsnorm(c.R[r], L, c.g.get(), c.N.get(), M, L, c.eps(), c.contract.norm, c.s));
    bf* own = c.Y[r] + static_cast<size_t>(r) * Hs;  // columns [r Hs, (r+1) Hs), rows H apart
    LTT_TRY(widen(own, H, c.C.get(), Hs, M, Hs, c.s));
    const bf* w = c.W.get() + static_cast<size_t>(c.w_shard(r)) * Hs * L;
    LTT_TRY(c.gemm(c.N.get(), L, w, L, c.C.get(), Hs, M, Hs, L, 1.0f));
    LTT_TRY(round_to(c.C.get(), Hs, own, H, M, Hs, false, c.s));
  }
  return allreduce(c.Y.dev(), T, static_cast<size_t>(M) * H, c.contract.algo, c.s, c.terms());
}

}  // namespace ltt::gpu::tier2
