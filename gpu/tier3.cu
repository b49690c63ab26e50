// Tier 3, SINGLE_REDUCTION (reference/tier3.cpp): one allreduce of X_r =
// [R_r | S_r] (ring chunks over the concatenated rows); N = RMSNorm of the
// first L columns; Y = bf16(N W^T + the last H columns).
#include "ctx.cuh"

namespace ltt::gpu::tier3 {

Status run(GpuCtx& c) {
  const Problem& p = c.p;
  const int M = p.M, L = p.L, H = p.H, X = L + H;
  for (int r = c.lo(); r < c.hi(); ++r) LTT_TRY(concat(c.R[r], c.S[r], c.P[r], M, L, H, c.s));
  LTT_TRY(c.fence());  // every rank's concatenation made
  LTT_TRY(c.allreduce(c.P, c.Z, static_cast<size_t>(M) * X, c.s));
  for (int r = c.lo(); r < c.hi(); ++r) {
    LTT_TRY(rmsnorm(c.Z[r], X, c.g.get(), c.N.get(), M, L, c.eps(), c.contract.norm, c.s));
    LTT_TRY(c.addmm(c.N.get(), L, c.W.get(), L, c.Z[r] + L, X, c.Y[r], H, M, H, L, false));
  }
  return {};
}

}  // namespace ltt::gpu::tier3
