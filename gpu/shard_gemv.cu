// Tier 0's per-rank step for few tokens (M <= 16 where it normalises, 64
// with N given, in tiles of 16; 128 in the cluster form) in one kernel: Y [M, n] =
// bf16(N [M, K] W [n, K]^T + S [M, n]) with fp32 accumulation, one rounding,
// -0 made +0 for a Lamport writer; N either given (the collective
// normalised) or made here from Z (RMSNorm with weight g, the order's
// rounding points: elem.cuh), so that the whole per-rank compute is one launch.
//
// At such M the step is a batched GEMV: it moves W's shard (n K bf16) from
// memory and little else, so the kernel is built to have all of W in flight
// at once rather than around tiles in shared memory. Block b owns W's rows
// 8b .. 8b+7 (8 output columns) over all of K; its 16 warps take K's 32-wide
// steps round robin (step s by warp s mod 16), and each lane loads its
// 16-byte piece of W for every step it takes at once. Launched as a
// programmatic dependent, it does so before it waits for the kernel that
// writes N (or Z) and S, so that W streams in while that kernel finishes,
// then loads its pieces of N or Z (L2); launched plainly, it loads those few
// bytes first and W's after, so that they do not queue behind W's.
// Normalising: each lane sums the squares of its pieces of tokens g and
// g + 8, the 4 lanes of a row group add theirs (a butterfly: the same bits in
// each), the warps' sums meet in shared memory and are added in warp order,
// so every block (and every rank) gets the same rstd; the lane then
// normalises its pieces in registers (g from shared memory). Tensor cores:
// mma m16n8k16 (bf16 in, fp32 accumulate) with the tokens as the product's
// 16 rows (zero past M) and the 8 W rows as its columns. Within a step, lane
// t of a row group holds 8 consecutive elements of K for both operands and
// feeds them to its k slots of two products (slots 2t, 2t+1, 2t+8, 2t+9 of
// each): a permutation of K applied alike to N and W, so each output is
// still a sum of the same products; only the fp32 order differs, which the
// contract leaves free (as it leaves the sum of squares' order). The 16
// warps' partial products meet in shared memory and are added in warp order
// (the same bits on every run and every rank), then S, then the rounding.
// No atomics, no workspace, no cluster.
//
// With N given, on Hopper, a cluster form (plan {cn, ck}: shard_plan.hpp's
// GemvPlan, below) spreads the same work over clusters of ck blocks along K
// with 8 cn columns a block, M up to 128: the same W in flight a lane, N's
// rows read cn ck times fewer times from L2; the partials meet through
// distributed shared memory in slice order.
#include <cooperative_groups.h>

#include <cstdlib>
#include <string>
#include <type_traits>

#include "cuda_check.cuh"
#include "elem.cuh"
#include "kernels.cuh"
#include "shard_plan.hpp"

namespace ltt::gpu {

namespace {

using namespace gemv;

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
// A 16-byte load of W: read once, not kept in L1.
__device__ __forceinline__ uint4 load_stream(const bf* p) {
  uint4 v;
  asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}

// d += a b: a [16 x 16] (rows: tokens), b [16 x 8] (columns: W's rows), fp32.
__device__ __forceinline__ void mma16816(float (&d)[4], unsigned a0, unsigned a1, unsigned a2, unsigned a3, unsigned b0,
                                         unsigned b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}
#endif

// The sum of the squares of a 16-byte vector's 8 elements, pairwise.
__device__ __forceinline__ float squares_tree(uint4 v) {
  const bf* e = reinterpret_cast<const bf*>(&v);
  float q[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) q[k] = __fmul_rn(f(e[k]), f(e[k]));
  return __fadd_rn(__fadd_rn(__fadd_rn(q[0], q[1]), __fadd_rn(q[2], q[3])),
                   __fadd_rn(__fadd_rn(q[4], q[5]), __fadd_rn(q[6], q[7])));
}

// Grid n / 8 blocks of 512 threads; kSteps = gemv_warp_steps(K). kNorm: A
// is Z, normalised here with g (fused: the order's rounding points). kTwo:
// M > 8, tokens 8 .. 15 of a tile too (else they are zero in registers, not
// loaded). kTiles (N given only): tiles of 16 tokens, one after another,
// each multiplied by the W pieces the lane holds in registers (M up to 16
// kTiles). w_first: W's loads before the wait for the kernel before (a
// programmatic launch), else after the first tile's N (or Z).
template <int kSteps, bool kNorm, bool kTwo, int kTiles>
__global__ void __launch_bounds__(kThreads, 1)
    shard_gemv_k(const bf* A, int lda, const bf* g, float eps, int fused, const bf* W, int ldw, const bf* S, int lds, bf* Y,
                 int ldy, int M, int K, int nnz, int w_first) {
  static_assert(kTiles == 1 || (!kNorm && kTwo), "several tiles: N given, every tile's rows 8 .. 15 possible");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  __shared__ __align__(16) float part[kWarps][kMaxTokens * kTiles][kCols];
  __shared__ float ssq[kNorm ? kWarps : 1][kMaxTokens];
  __shared__ uint4 g_s[kNorm ? kWarps * kMaxSteps * kStep / 8 : 1];  // g, K / 8 vectors
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, gr = lane / 4, t = lane % 4;
  const int col0 = static_cast<int>(blockIdx.x) * kCols, steps = K / kStep;
  // Lane (gr, t): W's row col0 + gr, elements 8t .. 8t+7 of each step it
  // takes; tokens gr and gr + 8, the same elements of N (or Z).
  const bf* wp = W + static_cast<size_t>(col0 + gr) * ldw + 8 * t;
  const bf* n0 = A + static_cast<size_t>(gr) * lda + 8 * t;
  const bf* n1 = n0 + static_cast<size_t>(8) * lda;
  uint4 wv[kSteps], a0[kSteps], a1[kSteps];
  const auto load_w = [&] {
#pragma unroll
    for (int i = 0; i < kSteps; ++i) {
      const int st = warp + i * kWarps;
      wv[i] = st < steps ? load_stream(wp + static_cast<size_t>(st) * kStep) : make_uint4(0, 0, 0, 0);
    }
    if (kNorm)  // the weight does not depend on the kernel before either
      for (int v = tid; v < K / 8; v += kThreads) g_s[v] = *reinterpret_cast<const uint4*>(g + 8 * v);
  };
  // Tile j's rows 16 j + gr and 16 j + gr + 8.
  const auto load_a = [&](int j) {
    const size_t rows = static_cast<size_t>(16 * j) * lda;
    const int r0 = 16 * j + gr;
#pragma unroll
    for (int i = 0; i < kSteps; ++i) {
      const int st = warp + i * kWarps;
      const size_t off = rows + static_cast<size_t>(st) * kStep;
      a0[i] = st < steps && r0 < M ? *reinterpret_cast<const uint4*>(n0 + off) : make_uint4(0, 0, 0, 0);
      a1[i] = kTwo && st < steps && r0 + 8 < M ? *reinterpret_cast<const uint4*>(n1 + off) : make_uint4(0, 0, 0, 0);
    }
  };
  // The S of this thread's output (thread e < 8 M: token e / 8, column e % 8),
  // fetched early so that the epilogue does not wait for it.
  const int m_out = tid / kCols, c_out = tid % kCols;
  const bool writes = tid < M * kCols;
  bf s_out = __ushort_as_bfloat16(0);
  if (w_first) {
    // A programmatic dependent: W streams in while the kernel before (which
    // writes N or Z and S) still runs; then wait for it.
    load_w();
    allow_dependents();
    wait_dependencies();
    if (writes) s_out = S[static_cast<size_t>(m_out) * lds + col0 + c_out];
    load_a(0);
  } else {
    // Nothing to overlap before the kernel starts: the few bytes of N (or Z)
    // first, so that they do not queue behind W's and the normalisation runs
    // while W streams in.
    allow_dependents();
    load_a(0);
    if (writes) s_out = S[static_cast<size_t>(m_out) * lds + col0 + c_out];
    load_w();
  }
  float r0 = 0.0f, r1 = 0.0f;
  if (kNorm) {
    // Sums of squares of tokens gr and gr + 8: each piece's 8 squares as a
    // tree, the lane's pieces in step order, its row group's 4 lanes, the 16
    // warps in order (short dependent chains; the order is the contract's to
    // leave free, and fixed here).
    float s0 = 0.0f, s1 = 0.0f;
#pragma unroll
    for (int i = 0; i < kSteps; ++i) {
      s0 = __fadd_rn(s0, squares_tree(a0[i]));
      if (kTwo) s1 = __fadd_rn(s1, squares_tree(a1[i]));
    }
#pragma unroll
    for (int o = 1; o < 4; o *= 2) {
      s0 = __fadd_rn(s0, __shfl_xor_sync(0xffffffffu, s0, o));
      s1 = __fadd_rn(s1, __shfl_xor_sync(0xffffffffu, s1, o));
    }
    if (t == 0) {
      ssq[warp][gr] = s0;
      ssq[warp][gr + 8] = s1;
    }
    __syncthreads();  // also publishes g_s
    float q0 = ssq[0][gr], q1 = ssq[0][gr + 8];
#pragma unroll
    for (int w = 1; w < kWarps; ++w) {
      q0 = __fadd_rn(q0, ssq[w][gr]);
      q1 = __fadd_rn(q1, ssq[w][gr + 8]);
    }
    r0 = rstd_of(q0, K, eps);
    r1 = rstd_of(q1, K, eps);
  }
  // Each step normalised (g from shared memory) just before its products;
  // tile j's products from its N pieces (the next tile's loaded after).
#pragma unroll 1
  for (int j = 0; j < kTiles; ++j) {
    if (j > 0) {
      if (16 * j >= M) break;
      load_a(j);
    }
    float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
    for (int i = 0; i < kSteps; ++i) {
      const int st = warp + i * kWarps;
      if (st >= steps) break;
      if (kNorm) {
        const uint4 gv = g_s[4 * st + t];
        a0[i] = normalised8(a0[i], gv, r0, fused);
        if (kTwo) a1[i] = normalised8(a1[i], gv, r1, fused);
      }
      // Elements 8t, 8t+1 | 8t+2, 8t+3 in the first product's slots 2t, 2t+1 | 2t+8, 2t+9; 8t+4 .. 8t+7 in the second's.
      mma16816(d, a0[i].x, a1[i].x, a0[i].y, a1[i].y, wv[i].x, wv[i].y);
      mma16816(d, a0[i].z, a1[i].z, a0[i].w, a1[i].w, wv[i].z, wv[i].w);
    }
    // d: tokens 16 j + gr (d0, d1) and 16 j + gr + 8 (d2, d3), columns 2t and 2t + 1.
    // float2 stores: a half warp's 4 row groups fill the 32 banks once.
    *reinterpret_cast<float2*>(&part[warp][16 * j + gr][2 * t]) = make_float2(d[0], d[1]);
    *reinterpret_cast<float2*>(&part[warp][16 * j + gr + 8][2 * t]) = make_float2(d[2], d[3]);
  }
  __syncthreads();
  if (writes) {
    float acc = part[0][m_out][c_out];
#pragma unroll
    for (int w = 1; w < kWarps; ++w) acc = __fadd_rn(acc, part[w][m_out][c_out]);
    Y[static_cast<size_t>(m_out) * ldy + col0 + c_out] = out_round(__fadd_rn(acc, f(s_out)), nnz);
  }
#else
  __trap();  // mma.sync on bf16 needs sm_80; shard_gemv_available() keeps older devices off
#endif
}

template <int kSteps>
Status launch_steps(const bf* A, int lda, const bf* g, float eps, int fused, const bf* W, int ldw, const bf* S, int lds, bf* Y,
                    int ldy, int M, int n, int K, int nnz, bool pdl, cudaStream_t s) {
  auto* k = g ? (M > 8 ? shard_gemv_k<kSteps, true, true, 1> : shard_gemv_k<kSteps, true, false, 1>)
          : M > 48 ? shard_gemv_k<kSteps, false, true, 4>
          : M > 32 ? shard_gemv_k<kSteps, false, true, 3>
          : M > 16 ? shard_gemv_k<kSteps, false, true, 2>
          : M > 8  ? shard_gemv_k<kSteps, false, true, 1>
                   : shard_gemv_k<kSteps, false, false, 1>;
  return launch(k, static_cast<unsigned>(n / kCols), kThreads, pdl, s, A, lda, g, eps, fused, W, ldw, S, lds, Y, ldy, M, K, nnz,
                pdl ? 1 : 0);
}

// The cluster form (plan {cn, ck}, N given): grid (n / (8 cn), ck), clusters
// (1, ck, 1). Block q of a cluster holds W's rows of the cluster's 8 cn
// columns over K's slice q; its 16 warps take the slice's 32-wide steps
// round robin (step s by warp s mod 16), each lane its 16-byte piece of every
// one of the cn column groups' rows for each step it takes, so that each
// piece of N a lane loads feeds cn products and each element of N's slice
// enters the SM once a tile. The next tile's N pieces are loaded before the
// current tile's products. Tile by tile of 16 tokens, the warps' products
// meet in shared memory and are added in warp order into the block's
// partial [M, 8 cn]; once every block of the cluster has its partial, each
// output (shared round robin among the cluster's blocks) is the sum of the
// ck partials in slice order, read through distributed shared memory, then
// S, then the rounding: the same bits whichever block finishes first.
// The row stride of a tile's products in shared memory for kW columns: 8
// or 24 words mod 32, so that the 4 row groups of a half warp's float2
// stores land on distinct banks (a stride of kW, a multiple of 16 words,
// put them 4 ways onto the same ones).
constexpr int cluster_part_ld(int kW) { return kW == kCols ? kW : kW + 8; }
// The shared memory a block of the cluster form takes for kW columns.
constexpr size_t cluster_smem(int kW) {
  return sizeof(float) * (static_cast<size_t>(kWarps) * kMaxTokens * cluster_part_ld(kW) + static_cast<size_t>(kMaxRows) * kW);
}

template <int kSteps, int kCn, bool kTwo>
__global__ void __launch_bounds__(kThreads, 1)
    shard_gemv_cluster_k(const bf* A, int lda, const bf* W, int ldw, const bf* S, int lds, bf* Y, int ldy, int M, int K,
                         int nnz, int w_first) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cgs = cooperative_groups;
  constexpr int kW = kCn * kCols;  // output columns a block (and cluster)
  constexpr int kPre = 4;          // S elements a thread fetches early
  constexpr int kMaxSlices = 8;
  static_assert(kMaxTokens * kW <= kThreads, "a tile's sums: one output a thread");
  // Shared memory (cluster_smem()): the warps' products of a tile, [kWarps][16][kLd]
  // (rows padded so that a row group's float2 stores fall on distinct banks),
  // then the block's partial product [kMaxRows][kW].
  constexpr int kLd = cluster_part_ld(kW);
  extern __shared__ float4 smem4[];
  float* part = reinterpret_cast<float*>(smem4);
  float* bp = part + kWarps * kMaxTokens * kLd;
  cgs::cluster_group cluster = cgs::this_cluster();
  const int ck = static_cast<int>(cluster.num_blocks()), q = static_cast<int>(cluster.block_rank());
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, gr = lane / 4, t = lane % 4;
  const int col0 = static_cast<int>(blockIdx.x) * kW, Kc = K / ck, steps = Kc / kStep;
  const size_t k0 = static_cast<size_t>(q) * Kc;
  // Lane (gr, t): W's rows col0 + 8 g + gr (g < cn), elements 8t .. 8t+7 of
  // each step it takes in the slice; tokens gr and gr + 8, the same elements of N.
  const bf* wp = W + static_cast<size_t>(col0 + gr) * ldw + k0 + 8 * t;
  const bf* n0 = A + static_cast<size_t>(gr) * lda + k0 + 8 * t;
  const bf* n1 = n0 + static_cast<size_t>(8) * lda;
  uint4 wv[kSteps][kCn], a0[kSteps], a1[kSteps], b0[kSteps], b1[kSteps];
  const auto load_w = [&] {
#pragma unroll
    for (int i = 0; i < kSteps; ++i) {
      const int st = warp + i * kWarps;
#pragma unroll
      for (int g = 0; g < kCn; ++g)
        wv[i][g] = st < steps ? load_stream(wp + static_cast<size_t>(kCols * g) * ldw + static_cast<size_t>(st) * kStep)
                              : make_uint4(0, 0, 0, 0);
    }
  };
  // Tile j's rows 16 j + gr and 16 j + gr + 8 into x0, x1.
  const auto load_a = [&](int j, uint4 (&x0)[kSteps], uint4 (&x1)[kSteps]) {
    const size_t rows = static_cast<size_t>(16 * j) * lda;
    const int r0 = 16 * j + gr;
#pragma unroll
    for (int i = 0; i < kSteps; ++i) {
      const int st = warp + i * kWarps;
      const size_t off = rows + static_cast<size_t>(st) * kStep;
      x0[i] = st < steps && r0 < M ? *reinterpret_cast<const uint4*>(n0 + off) : make_uint4(0, 0, 0, 0);
      x1[i] = kTwo && st < steps && r0 + 8 < M ? *reinterpret_cast<const uint4*>(n1 + off) : make_uint4(0, 0, 0, 0);
    }
  };
  // This block's outputs: e = (it ck + q) kThreads + tid for it = 0, 1, ...
  // (token e / kW, column e % kW); the first kPre's S fetched early.
  const int outs = M * kW;
  const auto s_at = [&](int e) { return S[static_cast<size_t>(e / kW) * lds + col0 + e % kW]; };
  bf s_pre[kPre];
  const auto fetch_s = [&] {
#pragma unroll
    for (int it = 0; it < kPre; ++it) {
      const int e = (it * ck + q) * kThreads + tid;
      s_pre[it] = e < outs ? s_at(e) : __ushort_as_bfloat16(0);
    }
  };
  if (w_first) {  // as the one-block form: W streams in while the kernel before finishes
    load_w();
    allow_dependents();
    wait_dependencies();
    load_a(0, a0, a1);
    fetch_s();
  } else {
    allow_dependents();
    load_a(0, a0, a1);
    fetch_s();
    load_w();
  }
  const int tiles = (M + kMaxTokens - 1) / kMaxTokens;
#pragma unroll 1
  for (int j = 0; j < tiles; ++j) {
    if (j + 1 < tiles) load_a(j + 1, b0, b1);  // in flight during this tile's products and sums
    float d[kCn][4];
#pragma unroll
    for (int g = 0; g < kCn; ++g) d[g][0] = d[g][1] = d[g][2] = d[g][3] = 0.0f;
#pragma unroll
    for (int i = 0; i < kSteps; ++i) {
      const int st = warp + i * kWarps;
      if (st >= steps) break;
#pragma unroll
      for (int g = 0; g < kCn; ++g) {
        mma16816(d[g], a0[i].x, a1[i].x, a0[i].y, a1[i].y, wv[i][g].x, wv[i][g].y);
        mma16816(d[g], a0[i].z, a1[i].z, a0[i].w, a1[i].w, wv[i][g].z, wv[i][g].w);
      }
    }
    float* pw = part + static_cast<size_t>(warp) * kMaxTokens * kLd;
#pragma unroll
    for (int g = 0; g < kCn; ++g) {
      *reinterpret_cast<float2*>(pw + gr * kLd + kCols * g + 2 * t) = make_float2(d[g][0], d[g][1]);
      *reinterpret_cast<float2*>(pw + (gr + 8) * kLd + kCols * g + 2 * t) = make_float2(d[g][2], d[g][3]);
    }
    __syncthreads();
    // Tile j's sums over the warps, in warp order: thread e, token e / kW, column e % kW.
    if (tid < kMaxTokens * kW) {
      const int m = tid / kW, c = tid % kW, row = 16 * j + m;
      if (row < M) {
        float acc = part[m * kLd + c];
#pragma unroll
        for (int w = 1; w < kWarps; ++w) acc = __fadd_rn(acc, part[(w * kMaxTokens + m) * kLd + c]);
        bp[row * kW + c] = acc;
      }
    }
    __syncthreads();  // part is the next tile's
#pragma unroll
    for (int i = 0; i < kSteps; ++i) a0[i] = b0[i], a1[i] = b1[i];
  }
  cluster.sync();  // every slice's partial complete
  const auto emit = [&](int e, float s_val) {
    const int m = e / kW, c = e % kW;
    Y[static_cast<size_t>(m) * ldy + col0 + c] =
        out_round(__fadd_rn(cluster_sum<kMaxSlices>(cluster, bp + m * kW + c, ck), s_val), nnz);
  };
#pragma unroll
  for (int it = 0; it < kPre; ++it) {
    const int e = (it * ck + q) * kThreads + tid;
    if (e < outs) emit(e, f(s_pre[it]));
  }
  for (int e = (kPre * ck + q) * kThreads + tid; e < outs; e += ck * kThreads) emit(e, f(s_at(e)));
  cluster.sync();  // no block leaves while a sibling still reads its partial
#else
  __trap();  // clusters need sm_90; gemv_plan() keeps older devices on the one-block form
#endif
}

template <int kSteps, int kCn>
Status launch_cluster_steps(GemvPlan pl, const bf* A, int lda, const bf* W, int ldw, const bf* S, int lds, bf* Y, int ldy,
                            int M, int n, int K, int nnz, bool pdl, cudaStream_t s) {
  auto* k = M > 8 ? shard_gemv_cluster_k<kSteps, kCn, true> : shard_gemv_cluster_k<kSteps, kCn, false>;
  constexpr size_t smem = cluster_smem(kCn * kCols);
  if (smem > 48 * 1024) LTT_CUDA(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  cudaLaunchAttribute attr[2];
  const cudaLaunchConfig_t cfg =
      cluster_config(static_cast<unsigned>(n / (kCols * kCn)), static_cast<unsigned>(pl.ck), kThreads, smem, pdl, s, attr);
  LTT_CUDA(cudaLaunchKernelEx(&cfg, k, A, lda, W, ldw, S, lds, Y, ldy, M, K, nnz, pdl ? 1 : 0));
  return {};
}

template <int kCn>
Status launch_cluster(GemvPlan pl, const bf* A, int lda, const bf* W, int ldw, const bf* S, int lds, bf* Y, int ldy, int M,
                      int n, int K, int nnz, bool pdl, cudaStream_t s) {
  const int steps = gemv_cluster_steps(pl, K);
  const auto at = [&](auto k) -> Status {  // steps k, where the registers hold them (gemv_cluster_takes())
    if constexpr (decltype(k)::value * (kCn + 4) <= kClusterPieces)
      return launch_cluster_steps<decltype(k)::value, kCn>(pl, A, lda, W, ldw, S, lds, Y, ldy, M, n, K, nnz, pdl, s);
    return LTT_ERR(Errc::internal, "the few-token kernel's cluster form: ", decltype(k)::value, " steps a warp at ", kCn,
                   " column groups");
  };
  switch (steps) {
    case 1: return at(std::integral_constant<int, 1>{});
    case 2: return at(std::integral_constant<int, 2>{});
    case 3: return at(std::integral_constant<int, 3>{});
    case 4: return at(std::integral_constant<int, 4>{});
    default: return LTT_ERR(Errc::internal, "the few-token kernel's cluster form: ", steps, " steps a warp");
  }
}

// gemv_plan() on a device of capabilities c.
Result<GemvPlan> gemv_plan_on(const DeviceCaps& c, int M, int n, int K) {
  const int sms = cluster_sms(c);
  if (sms < 0)
    return LTT_ERR(Errc::internal, "tier 0's few-token kernel: the device's capabilities could not be read (device_caps())");
  const char* env = std::getenv("LTT_TIER0_GEMV_PLAN");
  if (!env || !*env) return plan_gemv(M, n, K, sms);
  const std::string v = env;
  const bool form = v.size() == 3 && v[1] == 'x' && (v[0] == '1' || v[0] == '2' || v[0] == '4') &&
                    (v[2] == '1' || v[2] == '2' || v[2] == '4' || v[2] == '8');
  if (!form)
    return LTT_USAGE("LTT_TIER0_GEMV_PLAN=", v, ": expected CNxCK, CN 1, 2 or 4 groups of 8 columns a block and CK 1, 2, "
                     "4 or 8 blocks a cluster along K (1x1: the one-block form)");
  const GemvPlan pl{v[0] - '0', v[2] - '0'};
  if (pl.cn == 1 && pl.ck == 1) {
    if (!gemv_takes(M, n, K, false))
      return LTT_USAGE("LTT_TIER0_GEMV_PLAN=1x1: the few-token kernel's one-block form does not take M ", M, ", H/T ", n,
                       ", L ", K, " (M up to ", gemv::kMaxTokens * gemv::kMaxTiles, ", H/T a multiple of ", gemv::kCols,
                       ", L a multiple of ", gemv::kStep, " up to ", gemv::kWarps * gemv::kMaxSteps * gemv::kStep,
                       "); unset it to let ltt choose");
    return pl;
  }
  if (sms == 0)
    return LTT_USAGE("LTT_TIER0_GEMV_PLAN=", v, ": the few-token kernel's cluster form needs compute capability 9.0; "
                     "unset it or set 1x1");
  if (!gemv_cluster_takes(pl, M, n, K))
    return LTT_USAGE("LTT_TIER0_GEMV_PLAN=", v, ": the few-token kernel's cluster form does not take M ", M, ", H/T ", n,
                     ", L ", K, " (M up to ", gemv::kMaxRows, ", H/T a multiple of ", gemv::kCols * pl.cn,
                     ", L a multiple of ", gemv::kStep * pl.ck, ", at most ", gemv::kClusterPieces / (pl.cn + 4),
                     " K steps of ", gemv::kStep, " a warp, here ", gemv_cluster_steps(pl, K),
                     "); a plan with more blocks a cluster (CK) or fewer columns a block (CN) may; unset it to let ltt choose");
  return pl;
}

}  // namespace

Result<GemvPlan> gemv_plan(int M, int n, int K) { return gemv_plan_on(device_caps(), M, n, K); }

bool shard_gemv_available(int M, int n, int K, bool normalising) {
  const DeviceCaps c = device_caps();
  if (c.major < 8) return false;  // also: no device to ask
  if (normalising) return gemv_takes(M, n, K, true);
  auto pl = gemv_plan_on(c, M, n, K);
  return pl.ok() && pl->cn > 0;
}

Status shard_gemv_add(const bf* A, int lda, const bf* g, float eps, NormOrder order, const bf* W, int ldw, const bf* S,
                      int lds, bf* Y, int ldy, int M, int n, int K, bool no_neg_zero, bool pdl, cudaStream_t s,
                      GemvPlan plan) {
  const auto aligned = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
  const int nnz = no_neg_zero, fused = order == NormOrder::fused;
  GemvPlan pl{1, 1};  // normalising: the one-block form only
  if (!g && plan.cn > 0) {  // a benchmark's plan: the shape and, for a cluster, the device
    const bool cluster = plan.cn != 1 || plan.ck != 1;
    if (!gemv_plan_takes(plan, M, n, K) || (cluster && cluster_sms(device_caps()) <= 0))
      return LTT_USAGE("the few-token kernel's plan ", plan.cn, "x", plan.ck, " does not take M ", M, " n ", n, " K ", K,
                       cluster ? " (or this device has no clusters: compute capability 9.0)" : "");
    pl = plan;
  } else if (!g) {
    auto p = gemv_plan(M, n, K);
    if (!p.ok()) return p.error();
    pl = *p;
  }
  const bool shape_ok = g ? gemv_takes(M, n, K, true) : gemv_plan_takes(pl, M, n, K);
  if (!shape_ok || lda % 8 != 0 || ldw % 8 != 0 || !aligned(A) || !aligned(W) || (g && !aligned(g)))
    return LTT_ERR(Errc::internal, "shard_gemv_add: shape M ", M, " n ", n, " K ", K, " (lda ", lda, ", ldw ", ldw,
                   ", plan ", pl.cn, "x", pl.ck, ") not taken: gemv_takes() (one-block form) or gemv_cluster_takes() "
                   "(cluster form) refuses it, or a row is not 16-byte aligned");
  if (pl.cn != 1 || pl.ck != 1) {
    switch (pl.cn) {
      case 1: return launch_cluster<1>(pl, A, lda, W, ldw, S, lds, Y, ldy, M, n, K, nnz, pdl, s);
      case 2: return launch_cluster<2>(pl, A, lda, W, ldw, S, lds, Y, ldy, M, n, K, nnz, pdl, s);
      default: return launch_cluster<4>(pl, A, lda, W, ldw, S, lds, Y, ldy, M, n, K, nnz, pdl, s);
    }
  }
  switch (gemv_warp_steps(K)) {
#define LTT_GEMV_CASE(k) \
  case k: return launch_steps<k>(A, lda, g, eps, fused, W, ldw, S, lds, Y, ldy, M, n, K, nnz, pdl, s);
    LTT_GEMV_CASE(1)
    LTT_GEMV_CASE(2)
    LTT_GEMV_CASE(3)
    LTT_GEMV_CASE(4)
    LTT_GEMV_CASE(5)
    LTT_GEMV_CASE(6)
    LTT_GEMV_CASE(7)
#undef LTT_GEMV_CASE
    default: return launch_steps<kMaxSteps>(A, lda, g, eps, fused, W, ldw, S, lds, Y, ldy, M, n, K, nnz, pdl, s);
  }
}

}  // namespace ltt::gpu
