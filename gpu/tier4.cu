// Tier 4, ROW_PARALLEL (reference/tier4.cpp): Z = allreduce(R); N =
// RMSNorm(Z); P_r = bf16(N[:, shard r] W[:, shard r]^T + S_r) (a K = L/T
// GEMM, fp32 addend, one rounding); Y = allreduce(P_r).
#include "ctx.cuh"

namespace ltt::gpu::tier4 {

Status run(GpuCtx& c) {
  const Problem& p = c.p;
  const int M = p.M, L = p.L, H = p.H, Ls = p.Ls();
  LTT_TRY(c.fence());  // every rank's R in place
  LTT_TRY(c.allreduce(c.R, c.Z, static_cast<size_t>(M) * L, c.s));
  for (int r = c.lo(); r < c.hi(); ++r) {
    LTT_TRY(rmsnorm(c.Z[r], L, c.g.get(), c.N.get(), M, L, c.eps(), c.contract.norm, c.s));
    const size_t k0 = static_cast<size_t>(r) * Ls;
    LTT_TRY(c.addmm(c.N.get() + k0, L, c.W.get() + k0, L, c.S[r], H, c.P[r], H, M, H, Ls, false));
  }
  LTT_TRY(c.fence());  // every rank's partial made
  return c.allreduce(c.P, c.Y, static_cast<size_t>(M) * H, c.s);
}

}  // namespace ltt::gpu::tier4
