// gpu_plan: the rules by which tier 0's kernel splits its work
// (gpu/shard_plan.hpp), tested without a GPU: the plans the H200 ran for
// k3 (T 8 and 16), the invariants the kernel relies on over a sweep of
// shapes (slices that divide K, a K split that divides a slice and gives no
// warp two tasks unless it is 1, shared memory within the device's), the
// K split narrowing to fit the shared memory, and the shapes it refuses.
#include <doctest/doctest.h>

#include <initializer_list>

#include "shard_plan.hpp"

using namespace ltt::gpu;
using shard::carve;

namespace {

constexpr int kSms = 132;                 // the H200
constexpr size_t kOptin = 227 * 1024;     // its shared memory a block (opt-in)

// What the kernel (shard_gemm.cu) assumes of a plan for M, n, K.
void check_invariants(const ShardGemmPlan& pl, int M, int n, int K, size_t optin) {
  using namespace shard;
  REQUIRE(pl.ks > 0);
  CHECK(pl.ks <= kMaxSlices);
  CHECK(K % (16 * pl.ks) == 0);
  CHECK((pl.ks == kMaxSlices || K % (32 * pl.ks) != 0));  // the most slices that divide K
  CHECK((pl.ct == 1 || pl.ct == 2 || pl.ct == 4));
  CHECK(n % (kCols * pl.ct) == 0);
  const int Kc = K / pl.ks, steps = Kc / 16, mtiles = (M + 15) / 16;
  CHECK(Kc / 8 <= kThreads);  // g's slice: a vector a thread
  REQUIRE(pl.kp >= 1);
  CHECK(steps % pl.kp == 0);
  CHECK((pl.kp == 1 || pl.kp * pl.ct * mtiles <= kWarps));
  CHECK(pl.smem == carve(M, pl.ct, pl.kp, Kc).total);
  CHECK(pl.smem <= optin);
}

}  // namespace

TEST_CASE("gpu_plan: k3 on the H200, the plans its runs used") {
  struct Want {
    int n, M, ct, kp;
    size_t smem;
  };
  // T 8 (n 896) and T 16 (n 448), K = L = 3584: 8 slices of 448.
  const Want want[] = {{896, 1, 4, 4, 90368},   {896, 16, 4, 4, 90368},  {896, 17, 4, 2, 105088},
                       {896, 33, 4, 1, 115712}, {896, 128, 4, 1, 209792}, {448, 1, 2, 7, 59136},
                       {448, 33, 2, 2, 86528},  {448, 128, 2, 1, 164224}};
  for (const Want& w : want) {
    CAPTURE(w.n);
    CAPTURE(w.M);
    const ShardGemmPlan pl = plan_shard_gemm(w.M, w.n, 3584, 0, kSms, kOptin);
    check_invariants(pl, w.M, w.n, 3584, kOptin);
    CHECK(pl.ks == 8);
    CHECK(pl.ct == w.ct);
    CHECK(pl.kp == w.kp);
    CHECK(pl.smem == w.smem);
  }
}

TEST_CASE("gpu_plan: more tasks than warps keep a K split of 1, not no plan") {
  // M 128 at 4 column tiles: 32 tile tasks for 16 warps.
  const ShardGemmPlan pl = plan_shard_gemm(128, 896, 3584, 4, kSms, kOptin);
  check_invariants(pl, 128, 896, 3584, kOptin);
  CHECK(pl.ct == 4);
  CHECK(pl.kp == 1);
}

TEST_CASE("gpu_plan: every plan over a sweep of shapes is one the kernel can run") {
  int plans = 0;
  for (int K : {16, 48, 128, 576, 1024, 3584, 4096, 7168})
    for (int n : {16, 32, 48, 64, 96, 448, 896})
      for (int M : {1, 2, 15, 16, 17, 31, 48, 64, 65, 100, 128})
        for (int ct : {0, 1, 2, 4}) {
          CAPTURE(K);
          CAPTURE(n);
          CAPTURE(M);
          CAPTURE(ct);
          const ShardGemmPlan pl = plan_shard_gemm(M, n, K, ct, kSms, kOptin);
          if (pl.ks == 0) {
            // Refused only where no tiling allowed here (the forced one, or
            // any of 4, 2, 1) divides n and fits with a K split of 1.
            int ks = shard::kMaxSlices;
            while (ks > 1 && K % (16 * ks) != 0) ks /= 2;
            bool some_fits = false;
            for (int c : {4, 2, 1})
              if ((ct == 0 || c == ct) && (n / shard::kCols) % c == 0 && carve(M, c, 1, K / ks).total <= kOptin)
                some_fits = true;
            CHECK_FALSE(some_fits);
            continue;
          }
          ++plans;
          check_invariants(pl, M, n, K, kOptin);
          if (ct) CHECK(pl.ct == ct);
        }
  CHECK(plans > 1000);  // the sweep exercised the rules, not only refusals
}

TEST_CASE("gpu_plan: the K split narrows to fit the shared memory, and the plan fails past it") {
  // M 1, n 896, K 3584 at 4 column tiles: K split 4 needs 90368 bytes, 1 needs 78080.
  REQUIRE(carve(1, 4, 4, 448).total == 90368);
  REQUIRE(carve(1, 4, 1, 448).total == 78080);
  const ShardGemmPlan narrow = plan_shard_gemm(1, 896, 3584, 4, kSms, 80000);
  check_invariants(narrow, 1, 896, 3584, 80000);
  CHECK(narrow.kp == 1);
  CHECK(plan_shard_gemm(1, 896, 3584, 4, kSms, 78079).ks == 0);
}

TEST_CASE("gpu_plan: shapes the kernel does not take") {
  CHECK(plan_shard_gemm(0, 896, 3584, 0, kSms, kOptin).ks == 0);      // no rows
  CHECK(plan_shard_gemm(1, 900, 3584, 0, kSms, kOptin).ks == 0);      // n not a multiple of 16
  CHECK(plan_shard_gemm(1, 896, 3580, 0, kSms, kOptin).ks == 0);      // K not a multiple of 16
  CHECK(plan_shard_gemm(1, 96, 3584, 4, kSms, kOptin).ks == 0);       // 6 column tiles do not split into 4s
  CHECK(plan_shard_gemm(1, 896, 8 * 4112, 0, kSms, kOptin).ks == 0);  // a K slice over 4096
  CHECK(plan_shard_gemm(128, 896, 3584, 0, kSms, 64 * 1024).ks == 0); // 128 rows of a slice do not fit in 64 KB
}

TEST_CASE("gpu_plan: the few-token kernel's shapes (gemv_takes) and its steps a warp") {
  // k3 at T 8 and 16: 112 steps of 32 over 16 warps, 7 a warp.
  CHECK(gemv_takes(1, 896, 3584));
  CHECK(gemv_takes(16, 448, 3584));
  CHECK(gemv_warp_steps(3584) == 7);
  // The edges: 16 tokens, 8 columns, K from one step to 16 x 8 steps.
  CHECK(gemv_takes(16, 8, 32));
  CHECK(gemv_warp_steps(32) == 1);
  CHECK(gemv_takes(1, 8, 4096));
  CHECK(gemv_warp_steps(4096) == gemv::kMaxSteps);
  CHECK(gemv_warp_steps(576) == 2);  // 18 steps: warps 0 and 1 take two
  CHECK_FALSE(gemv_takes(0, 896, 3584));   // no tokens
  CHECK_FALSE(gemv_takes(17, 896, 3584));  // past the product's 16 rows (normalising: one tile)
  CHECK(gemv_takes(17, 896, 3584, false));  // N given: tiles of 16 one after another
  CHECK(gemv_takes(64, 896, 3584, false));
  CHECK_FALSE(gemv_takes(65, 896, 3584, false));  // past 4 tiles
  CHECK_FALSE(gemv_takes(0, 896, 3584, false));
  CHECK_FALSE(gemv_takes(1, 900, 3584));   // n not a multiple of 8
  CHECK_FALSE(gemv_takes(1, 0, 3584));
  CHECK_FALSE(gemv_takes(1, 896, 3580));   // K not a multiple of 32
  CHECK_FALSE(gemv_takes(1, 896, 4128));   // 129 steps: 9 for warp 0
  CHECK_FALSE(gemv_takes(1, 896, 0));
  // The steps a warp cover K with no step to spare, and the shapes taken
  // stop where a warp would need more than kMaxSteps (K 4096).
  for (int K = 32; K <= 8192; K += 32) {
    const int s = gemv_warp_steps(K);
    CHECK(s * gemv::kWarps * gemv::kStep >= K);
    CHECK((s - 1) * gemv::kWarps * gemv::kStep < K);
    CHECK(gemv_takes(1, 8, K) == (K <= 4096));
  }
}

TEST_CASE("gpu_plan: tier 0's default path by tokens and shard width") {
  // k3 (L 3584): H/T 896 at T 8, 448 at T 16, 1792 at T 4, 3584 at T 2.
  for (int n : {448, 896, 1792, 3584}) {
    CHECK(tier0_default_path(1, n, true, true, false, false) == Tier0Path::gemv_split);
    CHECK(tier0_default_path(kTier0GemvMaxTokens, n, true, true, false, false) == Tier0Path::gemv_split);
    CHECK(tier0_default_path(kTier0KernelMaxTokens + 1, n, false, true, false, false) == Tier0Path::cublas);
  }
  // The few-token kernel past one tile on k3's T 8 and 16 shards only (to
  // M 112 at T 8, 128 at T 16); where it does not take the shape, the
  // cluster kernel up to 64, then cuBLAS.
  for (int M : {kTier0GemvMaxTokens + 1, 33, kTier0KernelMaxTokens, kTier0GemvNarrowMaxTokens}) {
    CHECK(tier0_default_path(M, 448, true, true, false, false) == Tier0Path::gemv_split);
    CHECK(tier0_default_path(M, 896, true, true, false, false) == Tier0Path::gemv_split);
    CHECK(tier0_default_path(M, 1792, true, true, false, false) == Tier0Path::cublas);
    CHECK(tier0_default_path(M, 3584, true, true, false, false) == Tier0Path::cublas);
    CHECK(tier0_default_path(M, 896, true, true, true, false) == (M <= kTier0KernelMaxTokens ? Tier0Path::split : Tier0Path::cublas));
  }
  CHECK(tier0_default_path(kTier0GemvNarrowMaxTokens + 1, 896, true, true, false, false) == Tier0Path::cublas);
  CHECK(tier0_default_path(kTier0GemvNarrowMaxTokens + 1, 448, true, true, false, false) == Tier0Path::gemv_split);
  CHECK(tier0_default_path(kTier0KernelLimit, 448, true, true, false, false) == Tier0Path::gemv_split);
  CHECK(tier0_default_path(kTier0KernelLimit, 512, true, true, false, false) == Tier0Path::cublas);  // wider than 448
  // The cluster kernel from M 17 to 64 on k3's T 8 and 16 shards only.
  for (int M : {kTier0GemvMaxTokens + 1, 33, kTier0KernelMaxTokens}) {
    CHECK(tier0_default_path(M, 448, false, true, false, false) == Tier0Path::split);
    CHECK(tier0_default_path(M, 896, false, true, false, false) == Tier0Path::split);
    CHECK(tier0_default_path(M, 1792, false, true, false, false) == Tier0Path::cublas);
    CHECK(tier0_default_path(M, 3584, false, true, false, false) == Tier0Path::cublas);
    // A forced column tiling runs the kernel wherever it has a plan.
    CHECK(tier0_default_path(M, 3584, false, true, true, false) == Tier0Path::split);
  }
  // Where a kernel does not take the shape, the next path.
  CHECK(tier0_default_path(5, 896, false, true, false, false) == Tier0Path::split);
  CHECK(tier0_default_path(5, 896, false, false, false, false) == Tier0Path::cublas);
  CHECK(tier0_default_path(5, 896, true, true, true, false) == Tier0Path::split);  // a forced tiling passes the few-token kernel by
  CHECK(tier0_default_path(kTier0KernelMaxTokens, 896, false, false, false, false) == Tier0Path::cublas);
}

TEST_CASE("gpu_plan: tier 0's default path where the MMA kernel takes the shape") {
  // From kTier0MmaMinTokens up to 128, on k3's T 8 and 16 shards: the MMA
  // kernel given N (mma: the collective normalises), whatever else takes the shape.
  for (int M : {kTier0MmaMinTokens, kTier0GemvMaxTokens, kTier0GemvMaxTokens + 1, 33, 64, 65, kTier0GemvNarrowMaxTokens,
                kTier0GemvNarrowMaxTokens + 1, kTier0KernelLimit})
    for (int n : {448, 896}) {
      CAPTURE(M);
      CAPTURE(n);
      CHECK(tier0_default_path(M, n, true, true, false, true) == Tier0Path::mma);
      CHECK(tier0_default_path(M, n, false, false, false, true) == Tier0Path::mma);
      // Not with a column tiling forced (that runs the cluster kernel), nor on
      // wider shards (the few-token kernel up to its 16 tokens there).
      CHECK(tier0_default_path(M, n, true, true, true, true) ==
            (M <= kTier0KernelMaxTokens ? Tier0Path::split : Tier0Path::cublas));
      CHECK(tier0_default_path(M, 1792, true, true, false, true) ==
            (M <= kTier0GemvMaxTokens ? Tier0Path::gemv_split : Tier0Path::cublas));
    }
  // Fewer tokens: the few-token kernel (it won there); the MMA kernel only
  // where that one does not take the shape; past 128 tokens, cuBLAS.
  for (int M : {1, 5, kTier0MmaMinTokens - 1}) {
    CHECK(tier0_default_path(M, 896, true, true, false, true) == Tier0Path::gemv_split);
    CHECK(tier0_default_path(M, 896, false, true, false, true) == Tier0Path::mma);
    CHECK(tier0_default_path(M, 896, false, true, true, true) == Tier0Path::split);
  }
  CHECK(tier0_default_path(kTier0KernelLimit + 1, 448, true, true, false, true) == Tier0Path::cublas);
}

TEST_CASE("gpu_plan: the few-token kernel's cluster form (gemv_cluster_takes, plan_gemv)") {
  // k3 (K 3584): T 8 (n 896) 4 groups of 8 columns over 4 slices, 112 blocks,
  // 2 steps (28 over 16 warps) a warp; T 16 (n 448) 4 x 8, 112 blocks, 1 step
  // (14 warps busy).
  CHECK(gemv_cluster_takes({4, 4}, 1, 896, 3584));
  CHECK(gemv_cluster_steps({4, 4}, 3584) == 2);
  CHECK(gemv_cluster_steps({4, 8}, 3584) == 1);
  CHECK(gemv_cluster_steps({1, 2}, 3584) == 4);  // 56 steps over 16 warps
  // One tile of tokens: the one-block form.
  for (int M : {1, 5, 16}) {
    CAPTURE(M);
    for (int n : {448, 896}) {
      const GemvPlan pl = plan_gemv(M, n, 3584, kSms);
      CHECK(pl.cn == 1);
      CHECK(pl.ck == 1);
    }
  }
  for (int M : {17, 64, 65, 128}) {
    CAPTURE(M);
    const GemvPlan t8 = plan_gemv(M, 896, 3584, kSms), t16 = plan_gemv(M, 448, 3584, kSms);
    CHECK(t8.cn == 4);
    CHECK(t8.ck == 4);
    CHECK(t16.cn == 4);
    CHECK(t16.ck == 8);
  }
  // Wide shards (T 2, 4): every cluster plan needs more blocks than SMs or
  // more steps than a warp holds: the one-block form up to 64 tokens, none past.
  for (int n : {1792, 3584}) {
    CAPTURE(n);
    const GemvPlan a = plan_gemv(64, n, 3584, kSms), b = plan_gemv(65, n, 3584, kSms);
    CHECK(a.cn == 1);
    CHECK(a.ck == 1);
    CHECK(b.cn == 0);
  }
  // No clusters (sms 0, a device before Hopper): the one-block form or none.
  CHECK(plan_gemv(5, 896, 3584, 0).cn == 1);
  CHECK(plan_gemv(5, 896, 3584, 0).ck == 1);
  CHECK(plan_gemv(65, 896, 3584, 0).cn == 0);
  // The edges of the shapes taken.
  CHECK(gemv_cluster_takes({4, 4}, 128, 896, 3584));
  CHECK_FALSE(gemv_cluster_takes({4, 4}, 129, 896, 3584));  // past 8 tiles
  CHECK_FALSE(gemv_cluster_takes({4, 4}, 0, 896, 3584));
  CHECK_FALSE(gemv_cluster_takes({1, 1}, 5, 896, 3584));    // the one-block form: gemv_takes()
  CHECK(gemv_plan_takes({1, 1}, 64, 896, 3584));            // ... which gemv_plan_takes() asks for 1x1
  CHECK_FALSE(gemv_plan_takes({1, 1}, 65, 896, 3584));
  CHECK(gemv_plan_takes({4, 4}, 128, 896, 3584));
  CHECK_FALSE(gemv_plan_takes({4, 1}, 5, 896, 3584));
  CHECK_FALSE(gemv_cluster_takes({3, 4}, 5, 896, 3584));    // groups of 8 columns: 1, 2 or 4
  CHECK_FALSE(gemv_cluster_takes({4, 16}, 5, 896, 3584));   // past the portable cluster
  CHECK_FALSE(gemv_cluster_takes({4, 4}, 5, 880, 3584));    // n not a multiple of 32
  CHECK_FALSE(gemv_cluster_takes({4, 8}, 5, 896, 3712));    // K not a multiple of 256
  CHECK_FALSE(gemv_cluster_takes({4, 1}, 5, 896, 3584));    // 7 steps a warp: 56 pieces
  CHECK(gemv_cluster_takes({4, 4}, 5, 896, 6144));          // 3 steps: 24 pieces, the most
  CHECK_FALSE(gemv_cluster_takes({4, 4}, 5, 896, 6656));    // 4 steps: 32
  CHECK(gemv_cluster_takes({2, 2}, 5, 896, 3584));          // 4 steps: 24 pieces
  CHECK_FALSE(gemv_cluster_takes({2, 2}, 5, 896, 4608));    // 5: 30
  // The pieces a lane holds stay within the budget wherever a plan takes the shape.
  for (int K = 32; K <= 16384; K += 32)
    for (int cn : {1, 2, 4})
      for (int ck : {1, 2, 4, 8})
        if (!(cn == 1 && ck == 1) && gemv_cluster_takes({cn, ck}, 5, 64, K)) {
          CHECK(gemv_cluster_steps({cn, ck}, K) >= 1);
          CHECK(gemv_cluster_steps({cn, ck}, K) * (cn + 4) <= gemv::kClusterPieces);
          CHECK(gemv_cluster_steps({cn, ck}, K) * gemv::kWarps * gemv::kStep * ck >= K);
        }
  // Every plan chosen over a sweep takes its shape, needs one wave at most,
  // and reads N no more often than any other plan that would.
  int plans = 0;
  for (int K : {32, 128, 576, 1024, 3584, 4096, 7168})
    for (int n : {8, 16, 32, 64, 128, 448, 896, 1792})
      for (int M : {1, 9, 16, 17, 64, 65, 128, 129}) {
        CAPTURE(K);
        CAPTURE(n);
        CAPTURE(M);
        const GemvPlan pl = plan_gemv(M, n, K, kSms);
        if (pl.cn == 0) {
          CHECK_FALSE(gemv_takes(M, n, K, false));
          continue;
        }
        ++plans;
        if (pl.cn == 1 && pl.ck == 1) {
          CHECK(gemv_takes(M, n, K, false));
          continue;
        }
        CHECK(gemv_cluster_takes(pl, M, n, K));
        CHECK((M > gemv::kMaxTokens || !gemv_takes(M, n, K, false)));  // one tile: the one-block form where it takes it
        CHECK(n / (gemv::kCols * pl.cn) * pl.ck <= kSms);
        for (int cn : {1, 2, 4})
          for (int ck : {1, 2, 4, 8})
            if (!(cn == 1 && ck == 1) && gemv_cluster_takes({cn, ck}, M, n, K) && n / (gemv::kCols * cn) * ck <= kSms)
              CHECK(cn * ck <= pl.cn * pl.ck);
      }
  CHECK(plans > 300);
}

TEST_CASE("gpu_plan: the MMA kernel's shapes and slices (mma_takes, plan_mma)") {
  // The product's n: M rounded up to a multiple of 16, 64 from 33 to 48.
  CHECK(mma_width(1) == 16);
  CHECK(mma_width(16) == 16);
  CHECK(mma_width(17) == 32);
  CHECK(mma_width(32) == 32);
  CHECK(mma_width(33) == 64);  // n 48 measured slow behind the RMSNorm kernel
  CHECK(mma_width(48) == 64);
  CHECK(mma_width(49) == 64);
  CHECK(mma_width(65) == 80);
  CHECK(mma_width(100) == 112);
  CHECK(mma_width(128) == 128);
  // k3 (K 3584): T 8 (n 896) 14 column tiles of 64 over 8 slices of 448
  // (7 chunks of 64), 112 blocks; T 16 (n 448) 7 x 8, 56 blocks.
  for (int M : {1, 16, 17, 64, 65, 128}) {
    CAPTURE(M);
    CHECK(plan_mma(M, 896, 3584, kSms) == 8);
    CHECK(plan_mma(M, 448, 3584, kSms) == 8);
    CHECK(mma_smem(M, 3584, 8) <= mma::kSmemOptin);
    // Its normalising form (mma-fused) too.
    CHECK(plan_mma(M, 896, 3584, kSms, true) == 8);
    CHECK(plan_mma(M, 448, 3584, kSms, true) == 8);
  }
  // Shared memory at the widest product: 1 KB slack, 7 chunks of W (8 KB)
  // and of N (16 KB), the received partials 64 x 132 fp32, 7 + 1 barriers;
  // normalising: 2 barriers and 16 bytes of slack, the sums of squares 8 x
  // 128 and the rstd 128 fp32, g's slice 7 x 64 bf16.
  CHECK(mma_smem(128, 3584, 8) == 1024 + 7 * (8192 + 16384) + 64 * 132 * 4 + 8 * 8);
  CHECK(mma_smem(128, 3584, 8, true) == mma_smem(128, 3584, 8) + 32 + 9 * 128 * 4 + 7 * 128);
  // The tiles hold the partial where they are smaller (one chunk, n 128).
  CHECK(mma_tiles(1, 128, mma_part_ld(128)) == 64 * 132 * 4);
  CHECK(mma_tiles(2, 128, mma_part_ld(128)) == 2 * (64 + 128) * 128);
  // Eight chunks a slice (K 4096 over 8) still fit at M 128; nine do not.
  CHECK(mma_takes(8, 128, 896, 4096));
  CHECK_FALSE(mma_takes(8, 128, 896, 4608));
  CHECK(mma_takes(8, 64, 896, 4608));  // narrower N: more chunks fit
  // The shapes it refuses: M past 128, n not a multiple of 64, K not a
  // multiple of 64 ck, a cluster size not 1, 2, 4 or 8.
  CHECK_FALSE(mma_takes(8, 129, 896, 3584));
  CHECK_FALSE(mma_takes(8, 0, 896, 3584));
  CHECK_FALSE(mma_takes(8, 5, 96, 3584));
  CHECK_FALSE(mma_takes(8, 5, 896, 3552));
  CHECK(mma_takes(4, 5, 896, 3328));  // 3328 = 13 x 256: 4 slices of 832
  CHECK_FALSE(mma_takes(8, 5, 896, 3328));
  CHECK_FALSE(mma_takes(3, 5, 896, 3072));
  CHECK_FALSE(mma_takes(16, 5, 896, 4096));
  // The most slices that take the shape in one wave: wide shards drop to
  // fewer slices (T 4: 28 column tiles, 4 a cluster = 112 blocks), K
  // narrower than 8 chunks to fewer. At T 2 (56 column tiles) none: 4
  // slices are two waves, and a slice of 2 (28 chunks) is past the shared memory.
  CHECK(plan_mma(5, 3584, 3584, kSms) == 0);
  CHECK(mma_takes(4, 5, 3584, 3584));
  CHECK_FALSE(mma_takes(2, 5, 3584, 3584));
  CHECK(plan_mma(5, 1792, 3584, kSms) == 4);
  CHECK(plan_mma(5, 896, 3328, kSms) == 4);
  CHECK(plan_mma(5, 128, 128, kSms) == 2);
  CHECK(plan_mma(5, 64, 64, kSms) == 1);
  CHECK(plan_mma(5, 96, 3584, kSms) == 0);
  CHECK(plan_mma(5, 7168 * 4, 3584, kSms) == 0);  // 448 column tiles: 4 and 8 a cluster past one wave; fewer do not fit
  CHECK(mma_takes(8, 5, 7168 * 4, 3584));
  CHECK(plan_mma(5, 1024 / 8, 256, kSms) == 4);   // the ctest entries' L 256, 128 and 1344 at H 1024, T 8
  CHECK(plan_mma(5, 1024 / 8, 128, kSms) == 2);
  CHECK(plan_mma(16, 1024 / 8, 1344, kSms) == 1);  // 21 chunks a block: only n 16 fits
  CHECK(plan_mma(17, 1024 / 8, 1344, kSms) == 0);
}
