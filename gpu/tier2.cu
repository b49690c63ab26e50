// Tier 2, COLUMN_PARALLEL (reference/tier2.cpp): Z = allreduce(R); N =
// RMSNorm(Z); rank r's partial P_r is its own S_r with shard r's columns
// replaced by bf16(N W[shard r]^T + S_r[:, shard r]) (fp32 addend, one
// rounding); Y = allreduce of the P_r.
#include "ctx.cuh"

namespace ltt::gpu::tier2 {

Status run(GpuCtx& c) {
  const Problem& p = c.p;
  const int M = p.M, L = p.L, H = p.H, Hs = p.Hs();
  LTT_TRY(c.fence());  // every rank's R in place
  LTT_TRY(c.allreduce(c.R, c.Z, static_cast<size_t>(M) * L, c.s));
  for (int r = c.lo(); r < c.hi(); ++r) {
    LTT_CUDA(cudaMemcpyAsync(c.P[r], c.S[r], sizeof(bf) * M * static_cast<size_t>(H), cudaMemcpyDeviceToDevice, c.s));
    LTT_TRY(rmsnorm(c.Z[r], L, c.g.get(), c.N.get(), M, L, c.eps(), c.contract.norm, c.s));
    bf* own = c.P[r] + static_cast<size_t>(r) * Hs;  // columns [r Hs, (r+1) Hs), rows H apart
    const bf* w = c.W.get() + static_cast<size_t>(c.w_shard(r)) * Hs * L;
    LTT_TRY(c.addmm(c.N.get(), L, w, L, own, H, own, H, M, Hs, L, false));
  }
  LTT_TRY(c.fence());  // every rank's partial made
  return c.allreduce(c.P, c.Y, static_cast<size_t>(M) * H, c.s);
}

}  // namespace ltt::gpu::tier2
