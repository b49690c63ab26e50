// Tier 0's per-rank step in one kernel: Y [M, n] = bf16(N [M, K] W [n, K]^T
// + S [M, n]) with fp32 accumulation, one rounding, -0 made +0 for a Lamport
// writer; N either given, or made here from Z (RMSNorm with weight g, the
// fused order of elem.cuh), so the whole per-rank compute is one launch.
//
// A cluster of ks blocks (Hopper) owns 16 ct output columns; block q of the
// cluster holds slice q of K: W's rows of those columns (cp.async, issued
// before the kernel waits for the one that makes N or Z, a programmatic
// dependent, so W streams in while that kernel still runs) and the M rows
// of N (or Z) in shared memory (through registers, while W streams in), and
// fetches the S of its share of the outputs early. RMSNorm: each block sums the
// squares of its slice per row; the cluster's ks partial sums, read through
// distributed shared memory in slice order, give every block the same rstd;
// the block normalises its slice in place. Tensor cores (WMMA 16x16x16, bf16,
// fp32) make each block's partial product; the cluster adds the ks partials
// in slice order (0, 1, ..., ks-1: the same bits whichever block finishes
// first) through distributed shared memory, each block a share of the
// elements, then S, then the rounding. No global workspace, no atomics.
#include <cooperative_groups.h>

#include "cuda_check.cuh"
#include "elem.cuh"
#include "kernels.cuh"
#include "shard_plan.hpp"

#include <mma.h>  // after cuda_bf16.h (kernels.cuh): its bf16 fragments need it

namespace ltt::gpu {

namespace {

using namespace shard;

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900  // what the kernel's Hopper body uses
__device__ __forceinline__ void cp16(void* dst, const void* src) {
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(src) : "memory");
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
__device__ __forceinline__ void cp_wait_all() { asm volatile("cp.async.wait_group 0;\n" ::: "memory"); }

#endif

// Grid (n / (16 ct), ks), clusters (1, ks, 1). kp: warps splitting K within
// the block (a divisor of the slice's 16-steps), their products folded in
// order before the cluster's sum.
template <bool kNorm>
__global__ void __launch_bounds__(kThreads, 1)
    shard_gemm_k(const bf* A, int lda, const bf* g, float eps, int fused, const bf* W, int ldw, const bf* S, int lds,
                 bf* Y, int ldy, int M, int n, int K, int ct, int kp, int nnz) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  using namespace nvcuda;
  namespace cgs = cooperative_groups;
  constexpr int kBatch = 8;  // 16-byte loads a thread in flight while N (or Z) moves to shared memory
  constexpr int kSPre = 2;   // S elements a thread fetches early for the epilogue (the epilogue names both)
  cgs::cluster_group cluster = cgs::this_cluster();
  const int ks = static_cast<int>(cluster.num_blocks()), slice = static_cast<int>(cluster.block_rank());
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int w = ct * kCols, Kc = K / ks, k0 = slice * Kc, ld = Kc + kPad, vrow = Kc / 8;
  const int mtiles = (M + 15) / 16, Mp = 16 * mtiles;
  const int col0 = static_cast<int>(blockIdx.x) * w;
  extern __shared__ __align__(128) unsigned char smem[];
  const Carve cv = carve(M, ct, kp, Kc);
  bf* w_s = reinterpret_cast<bf*>(smem + cv.w);
  bf* a_s = reinterpret_cast<bf*>(smem + cv.a);
  float* p_s = reinterpret_cast<float*>(smem + cv.p);
  bf* g_s = reinterpret_cast<bf*>(smem + cv.g);
  float* ss_s = reinterpret_cast<float*>(smem + cv.ss);
  float* rs_s = reinterpret_cast<float*>(smem + cv.rs);

  // W's slice first: it does not depend on the kernel before. A warp a row,
  // a lane a 16-byte vector (no index division on the way).
  for (int row = warp; row < w; row += kWarps)
    for (int v = lane; v < vrow; v += 32)
      cp16(w_s + static_cast<size_t>(row) * ld + 8 * v, W + static_cast<size_t>(col0 + row) * ldw + k0 + 8 * v);
  cp_commit();
  uint4 gq = make_uint4(0, 0, 0, 0);  // g's slice, a vector a thread (vrow <= kThreads: the plan's)
  if (kNorm && tid < vrow) gq = *reinterpret_cast<const uint4*>(g + k0 + 8 * tid);
  // The next kernel on the stream may start its own prologue (a chained
  // call of this one: its W prefetch) while this one computes; it reads
  // what this one writes only after its own dependency wait.
  allow_dependents();
  cudaGridDependencySynchronize();  // N (or Z) and S complete and visible; a no-op without a programmatic launch
  // This block's share of the output elements (row-major [M][w]), and the
  // S it adds there, fetched now so that the epilogue does not wait for it.
  const int E = M * w, per = (E + ks - 1) / ks, e0 = slice * per, e1 = min(E, e0 + per);
  // (Kept as loaded, not converted: a warp stalls at the first instruction
  // that uses a load's result, and these are first used in the epilogue.)
  bf spre[kSPre];
#pragma unroll
  for (int i = 0; i < kSPre; ++i) {
    const int e = e0 + tid + i * kThreads;
    spre[i] = e < e1 ? S[static_cast<size_t>(e / w) * lds + col0 + e % w] : __ushort_as_bfloat16(0);
  }
  // N (or Z) into shared memory through registers, kBatch loads a thread in
  // flight, zero past M: the normalisation below runs while W still streams
  // in (its cp.async group is waited for only before the product).
  const int nvec = Mp * vrow;
  for (int base = tid; base < nvec; base += kThreads * kBatch) {
    uint4 q[kBatch];
#pragma unroll
    for (int b = 0; b < kBatch; ++b) {
      const int v = base + b * kThreads, row = v / vrow, c8 = 8 * (v % vrow);
      q[b] = make_uint4(0, 0, 0, 0);
      if (v < nvec && row < M) q[b] = *reinterpret_cast<const uint4*>(A + static_cast<size_t>(row) * lda + k0 + c8);
    }
#pragma unroll
    for (int b = 0; b < kBatch; ++b) {
      const int v = base + b * kThreads, row = v / vrow, c8 = 8 * (v % vrow);
      if (v < nvec) *reinterpret_cast<uint4*>(a_s + static_cast<size_t>(row) * ld + c8) = q[b];
    }
  }
  if (kNorm && tid < vrow) *reinterpret_cast<uint4*>(g_s + 8 * tid) = gq;
  __syncthreads();

  if (kNorm) {
    // The slice's sum of squares per row: each lane in order, then a butterfly.
    for (int m = warp; m < M; m += kWarps) {
      float ss = 0.0f;
      for (int v = lane; v < vrow; v += 32) {
        const uint4 q = *reinterpret_cast<const uint4*>(a_s + static_cast<size_t>(m) * ld + 8 * v);
        ss = add_squares(ss, q);
      }
      for (int o = 16; o > 0; o /= 2) ss = __fadd_rn(ss, __shfl_xor_sync(0xffffffffu, ss, o));
      if (lane == 0) ss_s[m] = ss;
    }
    cluster.sync();  // every slice's sums written
    for (int m = tid; m < M; m += kThreads) {
      rs_s[m] = rstd_of(cluster_sum<kMaxSlices>(cluster, ss_s + m, ks), K, eps);
    }
    __syncthreads();
    for (int row = warp; row < M; row += kWarps) {
      const float rstd = rs_s[row];
      for (int v = lane; v < vrow; v += 32) {
        uint4* zp = reinterpret_cast<uint4*>(a_s + static_cast<size_t>(row) * ld + 8 * v);
        *zp = normalised8(*zp, *reinterpret_cast<const uint4*>(g_s + 8 * v), rstd, fused);
      }
    }
  }
  cp_wait_all();  // W's slice in
  __syncthreads();

  // The block's partial product: task (column tile c, row tile mt, K part).
  const int kper = Kc / 16 / kp;
  for (int task = warp; task < ct * mtiles * kp; task += kWarps) {
    const int c = task % ct, mt = (task / ct) % mtiles, part = task / (ct * mtiles);
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    const bf* a0 = a_s + static_cast<size_t>(mt) * 16 * ld;
    const bf* b0 = w_s + static_cast<size_t>(c) * 16 * ld;
    for (int kk = part * kper; kk < (part + 1) * kper; ++kk) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, bf, wmma::row_major> a;
      wmma::fragment<wmma::matrix_b, 16, 16, 16, bf, wmma::col_major> b;
      wmma::load_matrix_sync(a, a0 + 16 * kk, ld);
      wmma::load_matrix_sync(b, b0 + 16 * kk, ld);
      wmma::mma_sync(acc, a, b, acc);
    }
    wmma::store_matrix_sync(p_s + (static_cast<size_t>(part) * Mp + 16 * mt) * w + 16 * c, acc, w, wmma::mem_row_major);
  }
  __syncthreads();
  if (kp > 1)
    for (int e = tid; e < E; e += kThreads) {
      float a = p_s[e];
      for (int part = 1; part < kp; ++part) a = __fadd_rn(a, p_s[static_cast<size_t>(part) * Mp * w + e]);
      p_s[e] = a;
    }
  cluster.sync();  // every slice's product complete

  // This block's share of the elements: the ks slices in order, S, one rounding.
  for (int e = e0 + tid, i = 0; e < e1; e += kThreads, ++i) {
    float acc = cluster_sum<kMaxSlices>(cluster, p_s + e, ks);
    const int row = e / w, col = e % w;
    acc = __fadd_rn(acc, f(i == 0 ? spre[0] : i == 1 ? spre[1] : S[static_cast<size_t>(row) * lds + col0 + col]));
    Y[static_cast<size_t>(row) * ldy + col0 + col] = out_round(acc, nnz);
  }
  cluster.sync();  // no block leaves while a sibling still reads its shared memory
#else
  __trap();  // clusters need sm_90; shard_gemm_plan() keeps older devices on cuBLAS
#endif
}

cudaLaunchConfig_t config(const ShardGemmPlan& pl, int n, bool pdl, cudaStream_t s, cudaLaunchAttribute (&attr)[2]) {
  return cluster_config(static_cast<unsigned>(n / (pl.ct * kCols)), static_cast<unsigned>(pl.ks), kThreads, pl.smem, pdl, s,
                        attr);
}

}  // namespace

ShardGemmPlan shard_gemm_plan(int M, int n, int K, int force_ct) {
  const DeviceCaps caps = device_caps();
  if (cluster_sms(caps) <= 0) return {};  // no device, or no clusters
  const int optin = caps.smem_optin, sms = caps.sms;
  const ShardGemmPlan best = plan_shard_gemm(M, n, K, force_ct, sms, static_cast<size_t>(optin));
  if (!best.ks) return {};
  // The kernels may take up to the device's whole opt-in shared memory (set
  // here, once a plan, not at every launch: a launch needs a plan), and the
  // cluster must fit on the device with this plan's.
  if (cudaFuncSetAttribute(shard_gemm_k<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, optin) != cudaSuccess ||
      cudaFuncSetAttribute(shard_gemm_k<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, optin) != cudaSuccess) {
    (void)cudaGetLastError();  // not taken: no stale error for a later check to report
    return {};
  }
  cudaLaunchAttribute attr[2];
  const cudaLaunchConfig_t cfg = config(best, n, false, nullptr, attr);
  int clusters = 0;
  if (cudaOccupancyMaxActiveClusters(&clusters, shard_gemm_k<true>, &cfg) != cudaSuccess || clusters < 1) {
    (void)cudaGetLastError();
    return {};
  }
  return best;
}

Status shard_gemm_add(const ShardGemmPlan& pl, const bf* A, int lda, const bf* g, float eps, NormOrder order, const bf* W,
                      int ldw, const bf* S, int lds, bf* Y, int ldy, int M, int n, int K, bool no_neg_zero, bool pdl,
                      cudaStream_t s) {
  const auto aligned = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
  // The plan must be one shard_gemm_plan() made for this shape: its shared
  // memory holds M rows, its K split divides the slice.
  const bool plan_fits = pl.ks > 0 && pl.ks <= kMaxSlices && (pl.ct == 1 || pl.ct == 2 || pl.ct == 4) && pl.kp > 0 &&
                         K % (16 * pl.ks) == 0 && (K / pl.ks / 16) % pl.kp == 0 && n % (pl.ct * kCols) == 0 &&
                         carve(M, pl.ct, pl.kp, K / pl.ks).total <= pl.smem;
  if (!plan_fits || lda % 8 != 0 || ldw % 8 != 0 || lds % 8 != 0 || !aligned(A) || !aligned(W) || !aligned(S) ||
      (g && !aligned(g)))
    return LTT_ERR(Errc::internal, "shard_gemm_add: shape M ", M, " n ", n, " K ", K, " slices ", pl.ks, " columns ",
                   pl.ct * kCols, " not supported by its plan");
  cudaLaunchAttribute attr[2];
  const cudaLaunchConfig_t cfg = config(pl, n, pdl, s, attr);
  const int fused = order == NormOrder::fused, nnz = no_neg_zero;
  if (g)
    LTT_CUDA(cudaLaunchKernelEx(&cfg, shard_gemm_k<true>, A, lda, g, eps, fused, W, ldw, S, lds, Y, ldy, M, n, K, pl.ct, pl.kp, nnz));
  else
    LTT_CUDA(cudaLaunchKernelEx(&cfg, shard_gemm_k<false>, A, lda, g, eps, fused, W, ldw, S, lds, Y, ldy, M, n, K, pl.ct, pl.kp, nnz));
  return {};
}

}  // namespace ltt::gpu
