// Tier 3, SINGLE_REDUCTION, on fake ranks (reference/tier3.cpp): one
// allreduce of X_r = [R_r | S_r] (ring chunks over the concatenated rows);
// N = RMSNorm of the first L columns; Y = bf16(N W^T + the last H columns).
#include "ctx.cuh"

namespace ltt::gpu::tier3 {

Status run(GpuCtx& c) {
  const Problem& p = c.p;
  const int T = p.T, M = p.M, L = p.L, H = p.H, X = L + H;
  const RankBufs& Xb = c.X;
  for (int r = 0; r < T; ++r) LTT_TRY(concat(c.R[r], c.S[r], Xb[r], M, L, H, c.s));
  LTT_TRY(allreduce(Xb.dev(), T, static_cast<size_t>(M) * X, c.contract.algo, c.s, c.terms()));
  for (int r = 0; r < T; ++r) {
    LTT_TRY(rmsnorm(Xb[r], X, c.g.get(), c.N.get(), M, L, c.eps(), c.contract.norm, c.s));
    LTT_TRY(widen(Xb[r] + L, X, c.C.get(), H, M, H, c.s));
    LTT_TRY(c.gemm(c.N.get(), L, c.W.get(), L, c.C.get(), H, M, H, L, 1.0f));
    LTT_TRY(round_to(c.C.get(), H, c.Y[r], H, M, H, false, c.s));
  }
  return {};
}

}  // namespace ltt::gpu::tier3
