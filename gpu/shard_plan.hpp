// The plan of tier 0's per-rank kernel (shard_gemm.cu), apart from the
// device: how it splits Y [M, n] = N [M, K] W [n, K]^T over clusters of
// blocks, and the shared memory a block needs. Plain C++ (no CUDA), so that
// the rules are tested on any machine (tests/gpu_plan.cpp); shard_gemm.cu
// shares these constants and the carve-up with its kernel.
#pragma once

#include <cstddef>

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
constexpr int kMaxTokens = 16;  // the product's m
constexpr int kStep = 32;       // K a warp step: 8 elements a lane, 4 lanes a row of W
constexpr int kMaxSteps = 8;    // steps a warp (K up to 16 x 8 x 32 = 4096), all in registers
}  // namespace gemv

// Whether that kernel takes M rows, n columns and K (on a device of compute
// capability 8.0 or later): 1 <= M <= 16, n a positive multiple of 8, K a
// positive multiple of 32 up to 4096.
bool gemv_takes(int M, int n, int K);
// The steps a warp of that kernel takes for K (its template argument).
constexpr int gemv_warp_steps(int K) { return (K / gemv::kStep + gemv::kWarps - 1) / gemv::kWarps; }

}  // namespace ltt::gpu
