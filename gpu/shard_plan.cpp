// plan_shard_gemm(), gemv_takes(), mma_takes(): shard_plan.hpp. Built with or without CUDA.
#include "shard_plan.hpp"

#include <initializer_list>

namespace ltt::gpu {

ShardGemmPlan plan_shard_gemm(int M, int n, int K, int force_ct, int sms, size_t smem_optin) {
  using namespace shard;
  if (M < 1 || n < kCols || n % kCols != 0 || K < 16 || K % 16 != 0 || sms < 1) return {};
  int ks = kMaxSlices;
  while (ks > 1 && K % (16 * ks) != 0) ks /= 2;
  const int Kc = K / ks, steps = Kc / 16, mtiles = (M + 15) / 16;
  if (Kc / 8 > kThreads) return {};  // g's slice: a vector a thread
  ShardGemmPlan best;
  double best_eff = -1;
  for (int ct : {4, 2, 1}) {
    if ((n / kCols) % ct != 0 || (force_ct > 0 && ct != force_ct)) continue;
    ShardGemmPlan pl;
    pl.ks = ks;
    pl.ct = ct;
    for (int d = 1; d <= steps; ++d)
      if (steps % d == 0 && (d == 1 || d * ct * mtiles <= kWarps) && carve(M, ct, d, Kc).total <= smem_optin) pl.kp = d;
    if (pl.kp == 0) continue;
    pl.smem = carve(M, ct, pl.kp, Kc).total;
    const int blocks = n / (ct * kCols) * ks, waves = (blocks + sms - 1) / sms;
    const double eff = static_cast<double>(blocks) / (static_cast<double>(waves) * sms);
    if (eff > best_eff + 1e-9) best = pl, best_eff = eff;
  }
  return best;
}

bool gemv_takes(int M, int n, int K, bool normalising) {
  using namespace gemv;
  return M >= 1 && M <= (normalising ? kMaxTokens : kMaxTokens * kMaxTiles) && n >= kCols && n % kCols == 0 && K >= kStep && K % kStep == 0 &&
         gemv_warp_steps(K) <= kMaxSteps;
}

bool gemv_cluster_takes(GemvPlan pl, int M, int n, int K) {
  using namespace gemv;
  const bool shape_ok = (pl.cn == 1 || pl.cn == 2 || pl.cn == 4) && (pl.ck == 1 || pl.ck == 2 || pl.ck == 4 || pl.ck == 8) &&
                        !(pl.cn == 1 && pl.ck == 1) && M >= 1 && M <= kMaxRows && n >= kCols * pl.cn &&
                        n % (kCols * pl.cn) == 0 && K >= kStep * pl.ck && K % (kStep * pl.ck) == 0;
  return shape_ok && gemv_cluster_steps(pl, K) * (pl.cn + 4) <= kClusterPieces;
}

bool gemv_plan_takes(GemvPlan pl, int M, int n, int K) {
  return pl.cn == 1 && pl.ck == 1 ? gemv_takes(M, n, K, false) : gemv_cluster_takes(pl, M, n, K);
}

GemvPlan plan_gemv(int M, int n, int K, int sms) {
  GemvPlan best;
  int score = 0;
  if (gemv_takes(M, n, K, false)) best = GemvPlan{1, 1}, score = 1;
  if (sms < 1 || (score == 1 && M <= gemv::kMaxTokens)) return best;
  for (int cn : {4, 2, 1})
    for (int ck : {1, 2, 4, 8}) {
      const GemvPlan pl{cn, ck};
      if (!gemv_cluster_takes(pl, M, n, K) || n / (gemv::kCols * cn) * ck > sms) continue;
      if (cn * ck > score) best = pl, score = cn * ck;
    }
  return best;
}

bool mma_takes(int ck, int M, int n, int K, bool norm) {
  using namespace mma;
  return (ck == 1 || ck == 2 || ck == 4 || ck == 8) && M >= 1 && M <= kMaxRows && n >= kRows && n % kRows == 0 &&
         K >= kChunk * ck && K % (kChunk * ck) == 0 && mma_smem(M, K, ck, norm) <= kSmemOptin;
}

int plan_mma(int M, int n, int K, int sms, bool norm) {
  for (int ck : {8, 4, 2, 1})
    if (mma_takes(ck, M, n, K, norm) && n / mma::kRows * ck <= sms) return ck;
  return 0;
}

Tier0Path tier0_default_path(int M, int n, bool gemv_ok, bool kernel_ok, bool columns_forced, bool mma_ok) {
  const bool mma = mma_ok && !columns_forced && M <= kTier0KernelLimit && n <= kTier0KernelMaxColumns;
  if (mma && M >= kTier0MmaMinTokens) return Tier0Path::mma;
  if (gemv_ok && !columns_forced &&
      (M <= kTier0GemvMaxTokens || (M <= kTier0GemvNarrowMaxTokens && n <= kTier0KernelMaxColumns) ||
       (M <= kTier0KernelLimit && n <= kTier0GemvNarrowestColumns)))
    return Tier0Path::gemv_split;
  if (mma) return Tier0Path::mma;  // one tile of tokens where the few-token kernel does not take the shape
  if (kernel_ok && M <= kTier0KernelMaxTokens && (n <= kTier0KernelMaxColumns || columns_forced)) return Tier0Path::split;
  return Tier0Path::cublas;
}

}  // namespace ltt::gpu
