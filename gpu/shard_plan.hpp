// The plans of tier 0's per-rank kernels, apart from the device: how the
// cluster kernel (shard_gemm.cu) and the few-token kernel (shard_gemv.cu,
// GemvPlan) split Y [M, n] = N [M, K] W [n, K]^T over blocks and clusters,
// the shared memory and registers a block needs, and which path tier 0
// runs by default. Plain C++ (no CUDA), so that the rules are tested on any
// machine (tests/gpu_plan.cpp); the kernels share these constants.
#pragma once

#include <cstddef>

#include "cuda_backend.hpp"

namespace ltt::gpu {

struct ShardGemmPlan {
  int ks = 0;      // K slices: blocks of a cluster (0: no plan)
  int ct = 0;      // 16-column tiles a cluster owns
  int kp = 0;      // parts of a block's K slice, one a warp, folded in order
  size_t smem = 0; // shared memory a block, bytes
};

namespace shard {
constexpr int kThreads = 512, kWarps = kThreads / 32;  // 16 warps: short serial chains a warp (bench/results/h200.md)
constexpr int kCols = 16;                              // a column tile: 16 output columns
constexpr int kMaxSlices = 8;                          // the portable cluster size
// Shared-memory rows padded by 8 elements (16 bytes): a row stride that is a
// multiple of 128 bytes would put all 16 rows of a fragment on the same
// banks; WMMA wants strides of a multiple of 8 elements and 256-bit aligned
// fragment pointers, which every tile's pointer keeps.
constexpr int kPad = 8;

// The shared-memory carve-up of one block, in bytes from its start
// (constexpr: the kernel calls it too).
struct Carve {
  size_t w, a, p, g, ss, rs, total;
};
constexpr Carve carve(int M, int ct, int kp, int Kc) {
  const size_t ld = static_cast<size_t>(Kc + kPad), w = static_cast<size_t>(ct) * kCols,
               Mp = static_cast<size_t>((M + 15) / 16) * 16;
  Carve c{};
  c.w = 0;                                           // W: [w][ld] bf16
  c.a = c.w + 2 * w * ld;                            // N: [Mp][ld] bf16, zero past M
  c.p = c.a + 2 * Mp * ld;                           // partial products: [kp][Mp][w] fp32
  c.g = c.p + 4 * static_cast<size_t>(kp) * Mp * w;  // g's slice: [Kc] bf16
  c.ss = c.g + 2 * static_cast<size_t>(Kc);          // per row: the slice's sum of squares, rstd
  c.rs = c.ss + 4 * Mp;
  c.total = c.rs + 4 * Mp;
  return c;
}
}  // namespace shard

// The plan for M rows, n = H/T columns and K = L on a device with `sms`
// multiprocessors and `smem_optin` bytes of shared memory a block, or ks 0
// where the kernel does not take the shape (n or K not a multiple of 16, a
// K slice over 4096, operands beyond the shared memory). K splits into the
// most slices (a power of two up to 8) that leave multiples of 16; the
// column tiles a cluster (4, 2, 1; force_ct, when not 0, the only one
// tried) keep the SMs most evenly busy over whole waves of one block an SM,
// ties to the wider; the K split of a block is the widest that gives its
// warps no more tasks than warps and fits, else 1.
ShardGemmPlan plan_shard_gemm(int M, int n, int K, int force_ct, int sms, size_t smem_optin);

// Tier 0's kernel for few tokens (shard_gemv.cu), N given or made from Z:
// a block owns 8 output columns over all of K, its 16 warps take K's
// 32-wide steps round robin, and every lane has all its steps' W in flight
// at once; the tokens are the rows of a 16x8x16 tensor-core product (zero
// past M).
namespace gemv {
constexpr int kThreads = 512, kWarps = kThreads / 32;
constexpr int kCols = 8;        // output columns a block: the product's n
constexpr int kMaxTokens = 16;  // the product's m: one tile of tokens (the normalising form's most)
constexpr int kMaxTiles = 4;    // N given: up to 4 tiles of 16 tokens, one after another over W's registers
constexpr int kStep = 32;       // K a warp step: 8 elements a lane, 4 lanes a row of W
constexpr int kMaxSteps = 8;    // steps a warp (K up to 16 x 8 x 32 = 4096), all in registers
}  // namespace gemv

// Whether that kernel takes M rows, n columns and K (on a device of compute
// capability 8.0 or later): 1 <= M <= 16 where it normalises (one tile of
// tokens), up to 64 where N is given (tiles of 16 one after another), n a
// positive multiple of 8, K a positive multiple of 32 up to 4096.
bool gemv_takes(int M, int n, int K, bool normalising = true);
// The steps a warp of that kernel takes for K (its template argument).
constexpr int gemv_warp_steps(int K) { return (K / gemv::kStep + gemv::kWarps - 1) / gemv::kWarps; }

// The same kernel's cluster form (shard_gemv.cu; Hopper, N given, M up to
// 128): a cluster of ck blocks owns 8 cn output columns; block q of it
// takes K's slice q (K / ck elements), its 16 warps the slice's 32-wide
// steps round robin, each lane its pieces of all cn column groups' W rows
// for every step it takes, in flight at once; the cluster's ck partial
// products meet through distributed shared memory in slice order. What it
// buys: a piece of N a lane loads feeds cn products, and a block reads N's
// slice only (K / ck), so N's bytes into an SM fall cn ck times (at M 16,
// T 8, plan 4x4: 28 KB a block instead of 112).
// {1, 1} names the one-block form above.
struct GemvPlan {
  int cn = 0;  // groups of 8 output columns a block: 1, 2 or 4 (0: no plan)
  int ck = 0;  // K slices: blocks of a cluster, 1, 2, 4 or 8
};
namespace gemv {
constexpr int kMaxRows = 128;      // the cluster form's tokens: 8 tiles of 16
constexpr int kClusterPieces = 24;  // 16-byte registers a lane: W's steps x cn, N's two tiles' steps x 4
}
// The steps a warp of the cluster form takes (its template argument).
constexpr int gemv_cluster_steps(GemvPlan pl, int K) {
  const int steps = K / pl.ck / gemv::kStep;
  return (steps + gemv::kWarps - 1) / gemv::kWarps;
}
// Whether the cluster form with plan pl (not {1, 1}) takes M, n, K: 1 <= M
// <= 128, n a positive multiple of 8 cn, K a positive multiple of 32 ck, a
// lane's W pieces and two tiles' N pieces (steps (cn + 4) 16-byte registers)
// within kClusterPieces.
bool gemv_cluster_takes(GemvPlan pl, int M, int n, int K);
// Whether plan pl of that kernel (N given) takes M, n, K: {1, 1} the
// one-block form (gemv_takes()), any other the cluster form.
bool gemv_plan_takes(GemvPlan pl, int M, int n, int K);
// The plan ltt runs for N given on a device of `sms` multiprocessors with
// clusters (on others: {1, 1} where gemv_takes(), else none): {1, 1} for one
// tile of tokens (M <= 16) where it takes the shape (on the H200, seventh
// session, call 3: 4.3 us at T 8, M 1, against 4x4's 5.2); past it, of the
// plans that take the shape and need no more blocks than SMs (one wave),
// the one that reads N the fewest times (largest cn ck; ties to wider
// blocks, then smaller clusters: 4x4 at k3's T 8, 4x8 at T 16, each the
// fastest plan there from M 17 to 128); {1, 1} where none does and
// gemv_takes(); {0, 0} otherwise. LTT_TIER0_GEMV_PLAN forces another
// (shard_gemv.cu).
GemvPlan plan_gemv(int M, int n, int K, int sms);

// Tier 0's MMA kernel (shard_mma.cu), N given, M up to 128: Hopper's
// warpgroup products (wgmma) with the tokens as the product's n
// (mma_width(M), zero past M) and W's rows as its 64 rows. A cluster of ck
// blocks along K owns 64 output columns; block q takes K's chunks of 64
// elements q, q + ck, q + 2 ck, ... (its share: K / ck elements). One of its
// threads issues the copies of its share of W's 64 rows into shared memory
// by the tensor copy unit (TMA), all at once, a barrier a chunk, before the
// wait for the kernel that writes N; another issues N's, in the same
// chunks, after that wait; its first warpgroup multiplies chunk j as soon
// as chunk j's barrier completes. Each block copies its partial product's
// columns into the shared memory of the block that makes them (bulk copies
// over distributed shared memory, counted on a barrier there), which adds
// the ck partials in block order, then S, then rounds once. The
// wgmma instructions exist on compute capability 9.0 only (an sm_90a image).
namespace mma {
constexpr int kThreads = 256;          // two warpgroups: W and the products; N
constexpr int kRows = 64;              // output columns a cluster: the product's m
constexpr int kChunk = 64;             // K elements a chunk: one 128-byte swizzled row
constexpr int kMaxRows = 128;          // tokens: the widest product's n
constexpr int kMaxSlices = 8;          // the portable cluster size
constexpr size_t kSmemOptin = 232448;  // shared memory a block may have on compute capability 9.0 (227 KB)
}  // namespace mma
// The product's n for M tokens: M rounded up to a multiple of 16 (16 .. 128),
// but 64 from 33 to 48: on the H200 (bench/results/h200.md, eighth session,
// call 6) the kernel with n 48 took 2.9 us longer at M 48 behind the RMSNorm
// kernel (a programmatic launch) than alone, at T 8 and 16, where every
// other n took about 1 us longer (not explained).
constexpr int mma_width(int M) { return M > 32 && M <= 48 ? 64 : (M + 15) / 16 * 16; }
// The row stride (tokens) of that kernel's received fp32 partial products
// for a product n of w: 4 words of padding, so that the 8 columns a warp
// reads of 4 tokens fall on 32 different banks.
constexpr int mma_part_ld(int w) { return w + 4; }
// The bytes of that kernel's tiles for `chunks` chunks and a product n of
// w: W's chunks (64 rows) and N's (w rows), 128 bytes a row and chunk, or,
// where more, the block's fp32 partial product [64][mma_part_ld(w)], which
// it writes over its tiles once its products have read them.
constexpr size_t mma_tiles(int chunks, int w, int ld) {
  const size_t tiles = static_cast<size_t>(chunks) * static_cast<size_t>(mma::kRows + w) * 128,
               part = static_cast<size_t>(mma::kRows) * static_cast<size_t>(ld) * 4;
  return tiles > part ? tiles : part;
}
// What its normalising form (Z given) needs more: two barriers and 16
// bytes of alignment slack, the sums of squares [kMaxSlices][w] and the
// rows' rstd [w] fp32, g's slice (64 bf16 a chunk).
constexpr size_t mma_norm_smem(int chunks, int w) {
  return 32 + static_cast<size_t>(mma::kMaxSlices + 1) * static_cast<size_t>(w) * 4 + static_cast<size_t>(chunks) * 128;
}
// The shared memory a block of that kernel needs: 1024 bytes of alignment
// slack, its tiles (mma_tiles()), the cluster's fp32 partial products of its
// columns [ck][64 / ck][mma_part_ld()], a barrier (8 bytes) a chunk and one
// for those partials; norm: and mma_norm_smem().
constexpr size_t mma_smem(int M, int K, int ck, bool norm = false) {
  const int chunks = K / ck / mma::kChunk, w = mma_width(M), ld = mma_part_ld(w);
  return 1024 + mma_tiles(chunks, w, ld) + static_cast<size_t>(mma::kRows) * static_cast<size_t>(ld) * 4 +
         8 * static_cast<size_t>(chunks + 1) + (norm ? mma_norm_smem(chunks, w) : 0);
}
// Whether that kernel with clusters of ck blocks takes M, n, K: ck 1, 2, 4
// or 8, 1 <= M <= 128, n a positive multiple of 64, K a positive multiple
// of 64 ck, mma_smem() (norm: its normalising form's) within kSmemOptin.
bool mma_takes(int ck, int M, int n, int K, bool norm = false);
// The slices ltt runs on a device of `sms` multiprocessors: the most (8, 4,
// 2, 1) that take the shape with the grid (n / 64 ck blocks) in one wave;
// 0 where none does.
int plan_mma(int M, int n, int K, int sms, bool norm = false);

// Tier 0's per-rank step up to this many tokens where the few-token kernel
// (below) does not take the shape: the collective normalises and one kernel
// (shard_gemm.cu) multiplies, adds S and rounds (split); cuBLAS past it. On the H200 (bench/results/h200.md, fourth session) that
// split form took 7.9 us a rank at M 1, 10.1 at 33 and 11.6 at 64, against
// 8.4, 12.1 and 14.7 with RMSNorm inside the kernel (fused) and 11.4, 12.1
// and 14.2 with cuBLAS, and lost at M 128 (17.5 against cuBLAS's 15.0). The
// kernel itself takes M up to 128 (kTier0KernelLimit: shared memory), so
// LTT_TIER0_PATH can force it there.
constexpr int kTier0KernelMaxTokens = 64;
// Up to this many tokens the few-token kernel (shard_gemv.cu) instead (from
// kTier0MmaMinTokens the MMA kernel, where it takes the shape): the
// collective normalises, the kernel multiplies, adds S and rounds
// (gemv-split). On the H200 (bench/results/h200.md, fifth session) tier 0
// took 84.4 us on 8 fake ranks at M 1 and 100.4 at 16 that way, against
// 102.3 and 125.6 with the kernel normalising (gemv); per call, 4.7 us
// against 6.2 (ranks 1..7's kernels are not programmatic dependents, so
// their W loads do not overlap anything, and the normalisation's barrier
// is on the path).
constexpr int kTier0GemvMaxTokens = 16;
// From this many tokens the MMA kernel, where it takes the shape, runs
// instead of the few-token kernel (tier0_default_path()). Both behind the
// kernel before that brings W into L2 (tenth session, call 4: us a rank at
// T 8, M 9 .. 16, MMA 5.2 5.0 5.2 5.0 5.0 5.0 5.0 5.0 against the few-token
// kernel's 4.7 4.9 5.0 4.9 5.4 5.4 5.1 5.6; at T 16 4.3 from M 9 against
// 3.9 4.2 4.2 4.2 4.3 4.4 4.6 4.6).
constexpr int kTier0MmaMinTokens = 13;
// And on shards of up to kTier0KernelMaxColumns columns up to this many
// (N given; on Hopper the cluster form, GemvPlan above), and on shards of up
// to kTier0GemvNarrowestColumns up to tier 0's last M (128). On the H200
// (bench/results/h200.md, seventh session, call 3), us a rank at T 8 (896
// columns, plan 4x4), M 17 / 33 / 64 / 96 / 128: 7.2 / 7.9 / 9.0 / 11.5 /
// 13.9 against the cluster kernel's (split) 9.1 / 9.9 / 11.3 / 15.1 / 16.9
// and cuBLAS's 11.8 / 12.0 / 12.3 / 12.7 / 13.0; at T 16 (448 columns, plan
// 4x8) 5.7 / 6.5 / 7.5 / 9.3 / 10.9 against 7.2 / 7.8 / 8.9 / 10.5 / 11.7
// and 11.3 / 11.5 / 11.9 / 12.0 / 12.2. Between M 97 and 128 at T 8 (call
// 7): 12.1 / 12.7 / 13.5 at M 97 / 112 / 116 against cuBLAS's 13.9 / 13.9 /
// 13.0, so the kernel up to 112 there.
constexpr int kTier0GemvNarrowMaxTokens = 112;
constexpr int kTier0GemvNarrowestColumns = 448;
constexpr int kTier0KernelLimit = 128;
// The cluster kernel (split) only for shards up to this many columns: it
// was built for k3's shards at T 8 and 16 (H/T 896 and 448), and on wider
// ones it loses to cuBLAS by far. On the H200 (bench/results/h200x2.md,
// sixth session, call 3) at M 17 / 33 / 64 it took 44.6 / 49.5 / 57.4 us
// a rank at H/T 3584 (T 2) and 37.6 / 40.5 / 46.0 at 1792 (T 4), against
// cuBLAS's 15.6 / 16.4 / 16.2 and 12.7 / 12.8 / 13.4; at 896 (T 8) 9.9 and
// 11.3 at M 33 and 64 against 12.0 and 12.3.
constexpr int kTier0KernelMaxColumns = 896;

// The per-rank path tier 0 runs unless LTT_TIER0_PATH forces one, for M
// tokens and a shard of n = H/T columns: the MMA kernel given N (mma: the
// collective normalises) where it takes the shape on this device (mma_ok:
// shard_mma_plan()) from kTier0MmaMinTokens to kTier0KernelLimit
// tokens on shards of up to kTier0KernelMaxColumns and no column tiling is
// forced. Its normalising form (mma-fused: one kernel for the step) was
// slower at every M on the H200 (ninth session, call 5: us a rank at T 8,
// M 17 / 64 / 128, 8.5 / 11.8 / 17.5 against 6.7 / 7.0 / 9.4 with the
// RMSNorm kernel before it: its serial RMSNorm inside one block an SM, with
// a cluster-wide exchange, sits before every product). On the H200 (bench/results/h200.md, eighth
// session, call 5), us a rank at T 8, M 17 / 33 / 64 / 96 / 128, the kernel
// alone: 5.9 / 6.6 / 7.0 / 8.3 / 9.2 against the few-token kernel's 6.3 /
// 7.1 / 8.4 / 10.8 / 12.7; at T 16 5.1 / 5.8 / 6.2 / 7.2 / 8.2 against 5.2 /
// 5.8 / 6.8 / 8.3 / 9.8; at M 1 and 16 it lost then (T 8: 5.4 and 5.6
// against 4.3 and 5.5), but with W brought into L2 by the kernel before
// (the tenth session) it wins from 13 tokens (kTier0MmaMinTokens); below,
// only where the few-token kernel does not take the shape. Else gemv-split where the few-token kernel takes the shape
// (gemv_ok) and no column tiling is forced, up to kTier0GemvMaxTokens on any
// shard, kTier0GemvNarrowMaxTokens on shards of up to kTier0KernelMaxColumns
// and kTier0KernelLimit on shards of up to kTier0GemvNarrowestColumns
// (gemv_ok says only that some plan takes the shape: before Hopper, or where
// no cluster plan does, that is the one-block form, which on the H200 took
// 11.8 us at T 8, M 64 against the cluster kernel's 11.3); else split up to
// kTier0KernelMaxTokens and kTier0KernelMaxColumns where the cluster kernel
// has a plan (kernel_ok; a forced column tiling, LTT_TIER0_COLUMNS, lifts
// the column bound: it is there to run that kernel); cuBLAS otherwise.
Tier0Path tier0_default_path(int M, int n, bool gemv_ok, bool kernel_ok, bool columns_forced, bool mma_ok);

}  // namespace ltt::gpu
