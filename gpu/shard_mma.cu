// Tier 0's per-rank step with Hopper's warpgroup products, M up to 128:
// Y [M, n] = bf16(N [M, K] W [n, K]^T + S [M, n]) with fp32 accumulation,
// one rounding, -0 made +0 for a Lamport writer; N given, or made here from
// Z (RMSNorm, the kernel's normalising form: kNorm below).
//
// The product is taken transposed, Y^T = W N^T: W's 64 rows of a cluster are
// the wgmma's m (64), the tokens its n (mma_width(M): M rounded up to 16, 64
// from 33 to 48; rows past M zero in shared memory), so that few tokens
// waste no tensor-core rows. A cluster of ck blocks along K owns 64 output
// columns; block q takes K's chunks of 64 elements q, q + ck, q + 2 ck, ...
// (so that the cluster's first copies together cover ck chunks side by side
// of each row), one 128-byte swizzled row a chunk (wgmma.cuh), copied by
// the tensor copy unit (TMA: a tensor map an operand, 128-byte swizzle, N's
// rows past M read as zero). One thread issues the copies of the block's
// whole share of W at once, each chunk on its own barrier, before the wait
// for the kernel that writes N (a programmatic launch lets W stream in
// while that kernel finishes); another issues N's, on the same barriers,
// after that wait. The first warpgroup issues chunk j's 4 products (K steps
// of 16) as soon as its barrier completes, while the later chunks are still
// arriving. Block q makes the outputs of the cluster's columns 64 / ck q ..
// 64 / ck (q + 1) - 1: every block writes its fp32 partial product over its
// own tiles, then copies the rows of block q's columns into block q's
// shared memory (the bulk copy unit over distributed shared memory, counted
// on a barrier there: no block reads another's memory, and no cluster-wide
// barrier sits between the products and the sums); block q adds the ck
// partials (its own read in place) in block order, then S, then rounds once. Every order is fixed:
// the same bits on every run and every rank. One cluster barrier, waited
// for at the end, keeps every block until every copy has read its source. What the kernel computes is
// shard_plan.hpp's `mma` plan; this file also holds its exact self-check
// (integer operands: mma_exact()).
#include <cooperative_groups.h>
#include <cuda.h>
#include <cudaTypedefs.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string>
#include <vector>

#include "bf16.hpp"
#include "cuda_backend.hpp"
#include "cuda_check.cuh"
#include "ctx.cuh"
#include "elem.cuh"
#include "kernels.cuh"
#include "shard_plan.hpp"
#include "wgmma.cuh"

namespace ltt::gpu {

namespace {

using mma::kChunk;
using mma::kRows;
using mma::kThreads;

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
__device__ __forceinline__ uint32_t smem_u32(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

// An mbarrier: `arrivals` arrivals (one by default, with the bytes the copies will bring), phase 0.
__device__ __forceinline__ void bar_init(uint32_t bar, uint32_t arrivals = 1) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(arrivals) : "memory");
}
// The arrival, announcing `bytes` to come by bulk copies.
__device__ __forceinline__ void bar_expect(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
// Until phase 0 of the barrier completes (the arrival made and every byte in).
__device__ __forceinline__ void bar_wait(uint32_t bar) {
  asm volatile(
      "{\n.reg .pred done;\nWAIT:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n"
      "@!done bra WAIT;\n}\n" ::"r"(bar)
      : "memory");
}
// The shared::cluster address of `addr` (this block's shared memory) in block `rank` of the cluster.
__device__ __forceinline__ uint32_t cluster_addr(uint32_t addr, uint32_t rank) {
  uint32_t a;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(a) : "r"(addr), "r"(rank));
  return a;
}
// `bytes` (a multiple of 16) from this block's shared memory at src to the
// shared memory of a block of the cluster at dst (shared::cluster address),
// by the bulk copy unit, counted on that block's barrier bar.
__device__ __forceinline__ void copy_to_cluster(uint32_t dst, uint32_t src, uint32_t bytes, uint32_t bar) {
  asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(dst),
               "r"(src), "r"(bytes), "r"(bar)
               : "memory");
}
// This thread's writes to shared memory visible to the bulk copy unit's reads.
__device__ __forceinline__ void fence_async_smem() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
// The cluster's split barrier: every thread arrives (relaxed: what it must
// publish is published by a fence before) and later waits.
__device__ __forceinline__ void cluster_arrive() { asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.aligned;\n" ::: "memory"); }

// The box of tensor map m at (x: K, y: rows) into shared memory at dst,
// counted on barrier bar (the tensor copy unit: 128-byte swizzled rows, rows
// past the map's zero-filled).
__device__ __forceinline__ void tma_load(uint32_t dst, const CUtensorMap* m, int x, int y, uint32_t bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(
          dst),
      "l"(reinterpret_cast<uint64_t>(m)), "r"(x), "r"(y), "r"(bar)
      : "memory");
}
#endif

#if defined(LTT_MMA_TRACE)
// The kernel's own timeline (a build option, CMake's LTT_MMA_TRACE, off in
// every normal build): thread 0 of each block stamps the global timer and its
// SM's clock at each phase of the last launch; at entry it first keeps the
// previous launch's exit stamp of the same block (mark kPrevExit), so that
// the gap between two launches shows. mma_trace() (below) summarises.
constexpr int kTraceBlocks = 1024, kMarks = 12, kPrevExit = 11;
__device__ unsigned long long g_trace[kTraceBlocks][kMarks][2];
int g_trace_blocks = 0;  // the last launch's blocks (host)
__device__ __forceinline__ void mark(int i) {
  const int b = static_cast<int>(blockIdx.y * gridDim.x + blockIdx.x);
  if (threadIdx.x != 0 || b >= kTraceBlocks) return;
  unsigned long long g;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g));
  const unsigned long long c = clock64();
  if (i == 0) {
    g_trace[b][kPrevExit][0] = g_trace[b][10][0];
    g_trace[b][kPrevExit][1] = g_trace[b][10][1];
  }
  g_trace[b][i][0] = g;
  g_trace[b][i][1] = c;
}
#define LTT_MARK(i) mark(i)
#else
#define LTT_MARK(i) ((void)0)
#endif

// Grid (n / 64, ck) blocks of 256 threads in clusters of (1, ck); kNT =
// mma_width(M); mma_smem(M, K, ck, kNorm) bytes of dynamic shared memory. tw: W's
// map ([n rows, K], boxes of 64 rows x 64); ta: N's ([M rows, K], boxes of
// kNT rows x 64, rows past M zero). kNorm: ta maps Z, which the kernel
// normalises itself (RMSNorm with weight g, eps, the order's rounding points:
// `fused`) before its products: each block's sums of squares of its slice of
// every row go to every block of the cluster by bulk copies, and each adds
// the ck of a row in block order for the row's rstd.
template <int kNT, bool kNorm>
__global__ void __launch_bounds__(kThreads, 1)
    shard_mma_k(const __grid_constant__ CUtensorMap tw, const __grid_constant__ CUtensorMap ta, const bf* S, int lds, bf* Y,
                int ldy, int M, int K, int nnz, const bf* g, float eps, int fused) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  namespace cgs = cooperative_groups;
  constexpr int kLd = mma_part_ld(kNT);  // a received partial's rows (tokens), padded
  constexpr int kPre = 4;                // S elements a thread fetches before the products
  LTT_MARK(0);
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const uint32_t raw = smem_u32(smem_raw), base = (raw + 1023u) & ~1023u;  // swizzled tiles: 1024-byte aligned
  cgs::cluster_group cluster = cgs::this_cluster();
  const int ck = static_cast<int>(cluster.num_blocks()), q = static_cast<int>(cluster.block_rank());
  // The warpgroup through a shuffle: a value ptxas sees as warp-uniform, so
  // that the products on one warpgroup's path are not serialised.
  const int tid = threadIdx.x, wg = __shfl_sync(0xffffffffu, tid / 128, 0), t = tid % 128;
  const int col0 = static_cast<int>(blockIdx.x) * kRows, chunks = K / ck / kChunk;
  // Chunk j of this block is K's chunk j ck + q: at each j the cluster's
  // copies together cover ck chunks side by side of every row.
  const auto kx = [&](int j) { return (j * ck + q) * kChunk; };
  // Shared memory (mma_smem()): the tiles (mma_tiles(): W's chunks
  // [chunks][64 rows][128 bytes], N's [chunks][kNT rows][128 bytes]; after
  // the products, this block's partial [64][kLd] fp32 over them), the
  // received partials [ck][cq][kLd] fp32 (block p's partial of this block's
  // cq output columns at [p]), a barrier a chunk, then the barrier of the
  // received partials.
  const int cq = kRows / ck;  // the output columns a block makes: cq q .. cq (q + 1) - 1 of the cluster's 64
  const uint32_t sW = base, sN = base + static_cast<uint32_t>(chunks * kRows * 128);
  const uint32_t part_bytes = static_cast<uint32_t>(kRows * kLd * 4);
  const uint32_t sRecv = base + static_cast<uint32_t>(mma_tiles(chunks, kNT, kLd));
  const float* recv = reinterpret_cast<const float*>(smem_raw + (sRecv - raw));  // slot q unused: q's own stay in place
  const uint32_t bars = sRecv + part_bytes, bar_red = bars + 8 * static_cast<uint32_t>(chunks);
  // kNorm (mma_norm_smem()): Z's barrier, the sums' barrier, the sums of
  // squares [kMaxSlices][kNT] (block p's of each row at [p]), the rows'
  // rstd [kNT], g's slice [chunks][64] bf16.
  const uint32_t bar_z = bar_red + 8, bar_ss = bar_red + 16, sSs = (bar_red + 24 + 15u) & ~15u;
  const uint32_t sRs = sSs + static_cast<uint32_t>(mma::kMaxSlices * kNT * 4), sG = sRs + static_cast<uint32_t>(kNT * 4);
  const auto at = [&](uint32_t a) { return smem_raw + (a - raw); };
  if (tid == 0) {  // the barriers, then W's chunks, all at once, before the wait for the kernel that writes N
    asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(&tw)) : "memory");
    for (int j = 0; j < chunks; ++j) bar_init(bars + 8 * j);
    bar_init(bar_red);
    // The other ck - 1 blocks' partials of this block's columns, by bulk copies.
    bar_expect(bar_red, part_bytes / static_cast<uint32_t>(ck) * static_cast<uint32_t>(ck - 1));
    if (kNorm) {
      bar_init(bar_z);
      bar_expect(bar_z, static_cast<uint32_t>(chunks * kNT * 128));  // all of Z's chunks
      bar_init(bar_ss);
      bar_expect(bar_ss, static_cast<uint32_t>((ck - 1) * kNT * 4));  // the other blocks' sums of squares
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    for (int j = 0; j < chunks; ++j) {
      bar_expect(bars + 8 * j, static_cast<uint32_t>((kRows + (kNorm ? 0 : kNT)) * 128));
      tma_load(sW + static_cast<uint32_t>(j * kRows * 128), &tw, kx(j), col0, bars + 8 * j);
    }
  }
  if (tid == kThreads / 2) asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(&ta)) : "memory");
  if (kNorm)  // g's slice (a weight: no kernel before this one writes it)
    for (int i = tid; i < chunks * 8; i += kThreads)
      *reinterpret_cast<uint4*>(at(sG + static_cast<uint32_t>(16 * i))) =
          *reinterpret_cast<const uint4*>(g + kx(i / 8) + 8 * (i % 8));
  __syncthreads();  // the chunks' barriers set before any thread waits on one
  cluster_arrive();  // this block's barrier of the received partials set (waited for before the first copy into it)
  LTT_MARK(1);
  allow_dependents();
  LTT_MARK(2);
  wait_dependencies();
  LTT_MARK(3);
  if (tid == kThreads / 2) {  // N's, on the same barriers (Z's, on its own)
    for (int j = 0; j < chunks; ++j)
      tma_load(sN + static_cast<uint32_t>(j * kNT * 128), &ta, kx(j), 0, kNorm ? bar_z : bars + 8 * j);
  }
  // This block's outputs: e = it kThreads + tid (column q cq + e % cq of
  // the cluster's 64, token e / cq); the first kPre's S fetched now.
  const int outs = cq * M, c0 = col0 + q * cq;
  const auto s_at = [&](int e) { return S[static_cast<size_t>(e / cq) * lds + c0 + e % cq]; };
  bf s_pre[kPre];
#pragma unroll
  for (int it = 0; it < kPre; ++it) {
    const int e = it * kThreads + tid;
    s_pre[it] = e < outs ? s_at(e) : __ushort_as_bfloat16(0);
  }
  if (kNorm) {
    // RMSNorm of the block's slice of Z, in place, while W streams in.
    float* ss = reinterpret_cast<float*>(at(sSs));
    float* rs = reinterpret_cast<float*>(at(sRs));
    const int warp = tid / 32, lane = tid % 32, units = chunks * 8;  // 16-byte units of a row's slice
    bar_wait(bar_z);  // Z's chunks in
    // A row's slice: each lane's units in order, then a butterfly (the
    // units' places in a swizzled row do not matter to a row's sum).
    for (int m = warp; m < M; m += kThreads / 32) {
      float acc = 0.0f;
      for (int v = lane; v < units; v += 32)
        acc = add_squares(acc, *reinterpret_cast<const uint4*>(
                                   at(sN + static_cast<uint32_t>((v / 8) * kNT * 128 + m * 128 + (v % 8) * 16))));
#pragma unroll
      for (int o = 16; o > 0; o /= 2) acc = __fadd_rn(acc, __shfl_xor_sync(0xffffffffu, acc, o));
      if (lane == 0) ss[q * kNT + m] = acc;
    }
    fence_async_smem();
    __syncthreads();  // the block's sums written
    cluster_wait();   // every block's barriers set
    if (tid == 0) {
      const uint32_t bytes = static_cast<uint32_t>(kNT * 4), mine = sSs + static_cast<uint32_t>(q) * bytes;
      for (int p = 0; p < ck; ++p)
        if (p != q) copy_to_cluster(cluster_addr(mine, static_cast<uint32_t>(p)), mine, bytes, cluster_addr(bar_ss, static_cast<uint32_t>(p)));
    }
    bar_wait(bar_ss);  // the other blocks' sums in
    for (int m = tid; m < M; m += kThreads) {
      float t = ss[m];
#pragma unroll
      for (int p = 1; p < mma::kMaxSlices; ++p)
        if (p < ck) t = __fadd_rn(t, ss[p * kNT + m]);
      rs[m] = rstd_of(t, K, eps);
    }
    __syncthreads();
    // Row m's unit at place pu holds K elements 8 (pu ^ (m % 8)) .. of its chunk (128-byte swizzle).
    for (int i = tid; i < M * units; i += kThreads) {
      const int m = i / units, v = i % units, j = v / 8, pu = v % 8;
      uint4* zp = reinterpret_cast<uint4*>(at(sN + static_cast<uint32_t>(j * kNT * 128 + m * 128 + pu * 16)));
      const uint4 gq = *reinterpret_cast<const uint4*>(at(sG + static_cast<uint32_t>(j * 128 + 16 * (pu ^ (m % 8)))));
      *zp = normalised8(*zp, gq, rs[m], fused);
    }
    fence_async_smem();  // N visible to the products
    __syncthreads();
  }
  float d[kNT / 2];
#pragma unroll
  for (int j = 0; j < kNT / 2; ++j) d[j] = 0.0f;
  if (wg == 0) {
#pragma unroll 1
    for (int j = 0; j < chunks; ++j) {
      bar_wait(bars + 8 * j);  // chunk j of W (and of N, unless kNorm) in
      if (j == 0) LTT_MARK(4);
      if (j == chunks - 1) LTT_MARK(5);
      wgmma::fence();
#pragma unroll
      for (int s = 0; s < kChunk / 16; ++s)
        wgmma::Wgmma<kNT>::mma(d, wgmma::desc_sw128(sW + static_cast<uint32_t>(j * kRows * 128 + 32 * s)),
                               wgmma::desc_sw128(sN + static_cast<uint32_t>(j * kNT * 128 + 32 * s)));
      wgmma::commit();
    }
  }
  wgmma::wait<0>();  // (nothing in flight on the second warpgroup)
  LTT_MARK(6);
  // The partial, over this block's own tiles (every product read them):
  // [64 output columns][kLd tokens] fp32.
  float* part = reinterpret_cast<float*>(smem_raw + (base - raw));
  if (wg == 0) {
    // d[j]: output column 16 (t / 32) + (t % 32) / 4 + 8 ((j / 2) % 2), token 8 (j / 4) + 2 (t % 4) + j % 2.
    const int w = t / 32, l = t % 32;
#pragma unroll
    for (int j = 0; j < kNT / 2; j += 2) {
      const int row = 16 * w + l / 4 + 8 * ((j / 2) % 2), col = 8 * (j / 4) + 2 * (l % 4);
      *reinterpret_cast<float2*>(part + row * kLd + col) = make_float2(d[j], d[j + 1]);
    }
    fence_async_smem();
  }
  __syncthreads();               // the partial written (this block reads its own columns of it in place)
  if (!kNorm) cluster_wait();  // every block's barrier of the received partials set (kNorm: waited for above)
  LTT_MARK(7);
  if (tid == 0) {
    // Columns cq p .. cq (p + 1) - 1 of the partial to block p != q, at its slot q.
    const uint32_t bytes = static_cast<uint32_t>(cq * kLd * 4);
    for (int p = 0; p < ck; ++p)
      if (p != q)
        copy_to_cluster(cluster_addr(sRecv + static_cast<uint32_t>(q) * bytes, static_cast<uint32_t>(p)),
                        base + static_cast<uint32_t>(p) * bytes, bytes, cluster_addr(bar_red, static_cast<uint32_t>(p)));
  }
  LTT_MARK(8);
  bar_wait(bar_red);  // the cluster's ck partials of this block's columns in
  cluster_arrive();   // so every copy into this block has read its source
  LTT_MARK(9);
  // Output e: the partials added in block order, then S, one rounding, -0 made +0.
  const auto emit = [&](int e, float s_val) {
    const int c = e % cq, m = e / cq;
    float pv[mma::kMaxSlices];
#pragma unroll
    for (int p = 0; p < mma::kMaxSlices; ++p)
      if (p < ck) pv[p] = (p == q ? part : recv)[(p * cq + c) * kLd + m];
    float acc = pv[0];
#pragma unroll
    for (int p = 1; p < mma::kMaxSlices; ++p)
      if (p < ck) acc = __fadd_rn(acc, pv[p]);
    Y[static_cast<size_t>(m) * ldy + c0 + c] = out_round(__fadd_rn(acc, s_val), nnz);
  };
#pragma unroll
  for (int it = 0; it < kPre; ++it) {
    const int e = it * kThreads + tid;
    if (e < outs) emit(e, f(s_pre[it]));
  }
  for (int e = kPre * kThreads + tid; e < outs; e += kThreads) emit(e, f(s_at(e)));
  cluster_wait();  // every block's copies in: no block leaves while a copy still reads its partial
  LTT_MARK(10);
#else
  __trap();  // wgmma needs sm_90a: shard_mma_device() keeps every other device off this kernel
#endif
}

// cuTensorMapEncodeTiled, from the driver through the runtime (no link to
// libcuda); null where the driver does not have it.
PFN_cuTensorMapEncodeTiled_v12000 encode_tiled() {
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess) {
      (void)cudaGetLastError();
      p = nullptr;
    }
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}

// The map of a [rows, K] bf16 matrix (rows ld elements apart) in boxes of
// box_rows rows x 64 elements, 128-byte swizzled, rows past `rows` read as zero.
Status tensor_map(CUtensorMap* m, const bf* p, int rows, int K, int ld, int box_rows) {
  const PFN_cuTensorMapEncodeTiled_v12000 encode = encode_tiled();
  if (!encode) return LTT_ERR(Errc::internal, "tier 0's MMA kernel: the driver has no cuTensorMapEncodeTiled");
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(K), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(ld) * sizeof(bf)};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(kChunk), static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t steps[2] = {1, 1};
  const CUresult e = encode(m, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<bf*>(p), dims, strides, box, steps,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (e != CUDA_SUCCESS)
    return LTT_ERR(Errc::internal, "tier 0's MMA kernel: cuTensorMapEncodeTiled failed (CUresult ", static_cast<int>(e),
                   ") for ", rows, " rows of ", K, ", ld ", ld, ", boxes of ", box_rows, " rows");
  return {};
}

template <int kNT, bool kNorm>
Status launch_mma(int ck, const bf* A, int lda, const bf* g, float eps, int fused, const bf* W, int ldw, const bf* S, int lds,
                  bf* Y, int ldy, int M, int n, int K, int nnz, bool pdl, cudaStream_t s) {
  CUtensorMap tw, ta;
  LTT_TRY(tensor_map(&tw, W, n, K, ldw, kRows));
  LTT_TRY(tensor_map(&ta, A, M, K, lda, kNT));
  auto* k = shard_mma_k<kNT, kNorm>;
  const size_t smem = mma_smem(M, K, ck, kNorm);
  // The kernel's allowance only ever raised, so that a launch captured in a
  // graph earlier with more shared memory stays valid.
  static std::atomic<size_t> allowed{0};
  if (smem > allowed.load()) {
    LTT_CUDA(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    size_t seen = allowed.load();
    while (smem > seen && !allowed.compare_exchange_weak(seen, smem)) {
    }
  }
  cudaLaunchAttribute attr[2];
  const cudaLaunchConfig_t cfg =
      cluster_config(static_cast<unsigned>(n / kRows), static_cast<unsigned>(ck), kThreads, smem, pdl, s, attr);
  LTT_CUDA(cudaLaunchKernelEx(&cfg, k, tw, ta, S, lds, Y, ldy, M, K, nnz, g, eps, fused));
#if defined(LTT_MMA_TRACE)
  g_trace_blocks = n / kRows * ck;
#endif
  return {};
}

// The device's multiprocessors where it runs the kernel (compute capability
// 9.0 and this build's sm_90a image loads on it), else 0.
int mma_sms() {
  const DeviceCaps c = device_caps();
  if (c.major != 9 || c.minor != 0) return 0;
  cudaFuncAttributes fa{};
  if (cudaFuncGetAttributes(&fa, shard_mma_k<16, false>) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return c.sms;
}

}  // namespace

#if defined(LTT_MMA_TRACE)
Result<std::string> mma_trace() {
  LTT_CUDA(cudaDeviceSynchronize());
  const int nb = std::min(g_trace_blocks, kTraceBlocks);
  if (nb == 0) return LTT_USAGE("mma_trace: the MMA kernel has not run");
  std::vector<unsigned long long> h(static_cast<size_t>(kTraceBlocks) * kMarks * 2);
  LTT_CUDA(cudaMemcpyFromSymbol(h.data(), g_trace, h.size() * sizeof(unsigned long long)));
  const auto at = [&](int b, int i, int k) { return h[(static_cast<size_t>(b) * kMarks + i) * 2 + k]; };
  unsigned long long t0 = ~0ull, prev = 0;
  for (int b = 0; b < nb; ++b) t0 = std::min(t0, at(b, 0, 0)), prev = std::max(prev, at(b, kPrevExit, 0));
  const auto stats = [&](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return cat(v.front(), " / ", v[v.size() / 2], " / ", v.back());
  };
  static const char* const names[] = {"entry", "W issued", "dependents allowed", "dependency met", "chunk 0 in",
                                      "last chunk in", "products done", "partial staged", "copies issued", "partials in",
                                      "exit"};
  std::string out = cat("# mma trace, ", nb, " blocks: ns from the first block's entry (global timer), min / median / max;"
                        " then the block's own cycles since the mark before, median / max\n");
  out += cat("#   previous launch's last exit: ", prev ? static_cast<double>(prev) - static_cast<double>(t0) : 0.0, " ns\n");
  for (int i = 0; i <= 10; ++i) {
    std::vector<double> g, c;
    for (int b = 0; b < nb; ++b) {
      g.push_back(static_cast<double>(at(b, i, 0) - t0));
      if (i > 0) c.push_back(static_cast<double>(at(b, i, 1) - at(b, i - 1, 1)));
    }
    std::sort(c.begin(), c.end());
    out += cat("#   ", i, " ", names[i], ": ", stats(g), i > 0 ? cat(";  cycles ", c[c.size() / 2], " / ", c.back()) : "",
               "\n");
  }
  return out;
}
#endif

bool shard_mma_device() { return mma_sms() > 0; }

int shard_mma_plan(int M, int n, int K, bool norm) {
  const int sms = mma_sms();
  return sms > 0 ? plan_mma(M, n, K, sms, norm) : 0;
}

Status shard_mma_add(const bf* A, int lda, const bf* g, float eps, NormOrder order, const bf* W, int ldw, const bf* S, int lds,
                     bf* Y, int ldy, int M, int n, int K, bool no_neg_zero, bool pdl, cudaStream_t s, int ck) {
  const bool norm = g != nullptr;
  const auto aligned = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
  const int sms = mma_sms();
  if (sms == 0)
    return LTT_ERR(Errc::internal, "shard_mma_add: the device is not of compute capability 9.0, or this build's sm_90a "
                   "image does not load on it");
  if (ck == 0) ck = plan_mma(M, n, K, sms, norm);
  if (ck == 0)
    return LTT_ERR(Errc::internal, "shard_mma_add: no plan for M ", M, " n ", n, " K ", K, " (plan_mma(): no cluster "
                   "size that mma_takes() accepts puts the grid in one wave)");
  if (!mma_takes(ck, M, n, K, norm) || lda < K || ldw < K || lds < n || ldy < n || lda % 8 != 0 || ldw % 8 != 0 ||
      !aligned(A) || !aligned(W) || (norm && !aligned(g)))
    return LTT_ERR(Errc::internal, "shard_mma_add: M ", M, " n ", n, " K ", K, " with ", ck, " blocks a cluster (lda ",
                   lda, ", ldw ", ldw, ", lds ", lds, ", ldy ", ldy, ") not taken: mma_takes() refuses it, a leading "
                   "dimension is shorter than its row, or a row (or g) is not 16-byte aligned");
  const int nnz = no_neg_zero, fused = order == NormOrder::fused;
  switch (mma_width(M)) {
#define LTT_MMA_CASE(w)                                                                                                  \
  case w:                                                                                                                \
    return norm ? launch_mma<w, true>(ck, A, lda, g, eps, fused, W, ldw, S, lds, Y, ldy, M, n, K, nnz, pdl, s)         \
                : launch_mma<w, false>(ck, A, lda, g, eps, fused, W, ldw, S, lds, Y, ldy, M, n, K, nnz, pdl, s);
    LTT_MMA_CASE(16)
    LTT_MMA_CASE(32)
    LTT_MMA_CASE(64)
    LTT_MMA_CASE(80)
    LTT_MMA_CASE(96)
    LTT_MMA_CASE(112)
#undef LTT_MMA_CASE
    default:
      return norm ? launch_mma<128, true>(ck, A, lda, g, eps, fused, W, ldw, S, lds, Y, ldy, M, n, K, nnz, pdl, s)
                  : launch_mma<128, false>(ck, A, lda, g, eps, fused, W, ldw, S, lds, Y, ldy, M, n, K, nnz, pdl, s);
  }
}

namespace {
// An integer in [-span, span] from (i, j, salt): operands whose products and
// sums fp32 holds exactly in any order.
int small_int(size_t i, size_t j, uint32_t salt, int span) {
  uint64_t h = (i + 1) * 0x9E3779B97F4A7C15ull ^ (j + 1) * 0xC2B2AE3D27D4EB4Full ^ salt;
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 32;
  return static_cast<int>(h % static_cast<uint64_t>(2 * span + 1)) - span;
}
}  // namespace

Result<std::string> mma_exact(int M, int n, int K, int ck) {
  LTT_TRY(cuda_available());
  if (mma_sms() == 0)
    return LTT_USAGE("tier 0's MMA kernel runs on compute capability 9.0 only (wgmma, an sm_90a image): not on this device");
  if (!mma_takes(ck, M, n, K)) return LTT_USAGE("mma_exact: M ", M, " n ", n, " K ", K, " with ", ck, " slices: mma_takes() refuses it");
  // Leading dimensions past the rows, so that a wrong stride shows; Y's pad
  // columns must stay poisoned.
  const int lda = K + 8, ldw = K + 16, lds = n + 8, ldy = n + 24;
  constexpr uint16_t kPoison = 0x7fa5;
  std::vector<bf16> a(static_cast<size_t>(M) * lda), w(static_cast<size_t>(n) * ldw), s(static_cast<size_t>(M) * lds),
      y(static_cast<size_t>(M) * ldy, bf16{kPoison});
  for (int m = 0; m < M; ++m)
    for (int k = 0; k < lda; ++k) a[static_cast<size_t>(m) * lda + k] = to_bf16(static_cast<float>(small_int(m, k, 1, 4)));
  for (int c = 0; c < n; ++c)
    for (int k = 0; k < ldw; ++k) w[static_cast<size_t>(c) * ldw + k] = to_bf16(static_cast<float>(small_int(c, k, 2, 3)));
  for (int m = 0; m < M; ++m)
    for (int c = 0; c < lds; ++c) s[static_cast<size_t>(m) * lds + c] = to_bf16(static_cast<float>(small_int(m, c, 3, 60)));
  DevBuf<bf> da, dw, ds, dy;
  LTT_TRY(da.alloc(a.size()));
  LTT_TRY(dw.alloc(w.size()));
  LTT_TRY(ds.alloc(s.size()));
  LTT_TRY(dy.alloc(y.size()));
  LTT_CUDA(cudaMemcpy(da.get(), a.data(), a.size() * sizeof(bf), cudaMemcpyHostToDevice));
  LTT_CUDA(cudaMemcpy(dw.get(), w.data(), w.size() * sizeof(bf), cudaMemcpyHostToDevice));
  LTT_CUDA(cudaMemcpy(ds.get(), s.data(), s.size() * sizeof(bf), cudaMemcpyHostToDevice));
  LTT_CUDA(cudaMemcpy(dy.get(), y.data(), y.size() * sizeof(bf), cudaMemcpyHostToDevice));
  LTT_TRY(shard_mma_add(da.get(), lda, nullptr, 0.0f, NormOrder::fused, dw.get(), ldw, ds.get(), lds, dy.get(), ldy, M, n, K,
                        true, false, nullptr, ck));
  LTT_CUDA(cudaDeviceSynchronize());
  LTT_CUDA(cudaMemcpy(y.data(), dy.get(), y.size() * sizeof(bf), cudaMemcpyDeviceToHost));
  size_t wrong = 0;
  std::string first;
  for (int m = 0; m < M; ++m)
    for (int c = 0; c < ldy; ++c) {
      const uint16_t got = y[static_cast<size_t>(m) * ldy + c].bits;
      uint16_t want = kPoison;
      if (c < n) {
        long long acc = small_int(m, c, 3, 60);  // S, then the exact dot product: |sum| < 2^24
        for (int k = 0; k < K; ++k) acc += static_cast<long long>(small_int(m, k, 1, 4)) * small_int(c, k, 2, 3);
        want = to_bf16(static_cast<double>(acc)).bits;
      }
      if (got == want) continue;
      if (++wrong <= 6)
        first += cat(" (token ", m, ", column ", c, c < n ? "" : ", a pad column", ": 0x", std::hex, got, " for 0x", want,
                     std::dec, ")");
    }
  if (wrong == 0) return std::string();
  return cat(wrong, " of ", static_cast<size_t>(M) * ldy, " elements wrong at M ", M, " n ", n, " K ", K, " ck ", ck, ":",
             first);
}

}  // namespace ltt::gpu
