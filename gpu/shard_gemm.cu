// Tier 0's sharded up-projection for skinny M: Y [M, n] = bf16(N [M, K]
// W [n, K]^T + A [M, n]) in one kernel, the fp32 addend added in the
// epilogue, one rounding, -0 made +0 for a Lamport writer (no_neg_zero).
// Tensor cores (WMMA 16x16x16, bf16 operands, fp32 accumulation); each block
// owns 16 output columns and one of `ks` slices of K, holding that slice of W
// and of 16 rows of N at a time in shared memory; its four warps each take a
// quarter of the slice, added in warp order; the last block of a column tile
// to finish adds the slices' partial sums in slice order (0, 1, ..., ks-1:
// the same bits whichever block ends last), then the addend, then rounds once. Launched as a programmatic
// dependent of the kernel that makes N (Hopper): W's slice is loaded while
// that kernel still runs, and the GEMM waits for N only before its first MMA.
#include "cuda_check.cuh"
#include "kernels.cuh"

#include <mma.h>  // after cuda_bf16.h (kernels.cuh): its bf16 fragments need it

namespace ltt::gpu {

namespace {

constexpr int kWarps = 4;
constexpr int kCols = 16;

__device__ float f(bf x) { return __bfloat162float(x); }

__global__ void __launch_bounds__(kWarps * 32)
    shard_gemm_add_k(const bf* N, int ldn, const bf* W, int ldw, const bf* A, int lda, bf* Y, int ldy, int M, int n, int K,
                     int ks, float* work, unsigned* counters, int nnz) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  __trap();  // bf16 tensor cores need sm_80; shard_gemm_slices() keeps older devices on cuBLAS
#else
  using namespace nvcuda;
  extern __shared__ __align__(128) unsigned char smem[];
  const int tile = blockIdx.x, slice = blockIdx.y, Kc = K / ks, k0 = slice * Kc, Kw = Kc / kWarps;
  const int warp = threadIdx.x / 32;
  bf* w_s = reinterpret_cast<bf*>(smem);   // [16][Kc]: W's rows of this tile, this slice of K
  bf* a_s = w_s + kCols * Kc;              // [16][Kc]: N's rows of the row tile at hand (zero past M)
  float* c_s = reinterpret_cast<float*>(a_s + 16 * Kc);  // [kWarps][16 x 16]: each warp's partial tile
  const int vrow = Kc / 8;
  for (int v = threadIdx.x; v < kCols * vrow; v += blockDim.x) {
    const int row = v / vrow, cv = v % vrow;
    reinterpret_cast<uint4*>(w_s + static_cast<size_t>(row) * Kc)[cv] =
        reinterpret_cast<const uint4*>(W + static_cast<size_t>(tile * kCols + row) * ldw + k0)[cv];
  }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();  // N complete and visible (a no-op when not launched as a dependent)
#endif
  const int mtiles = (M + 15) / 16;
  for (int mt = 0; mt < mtiles; ++mt) {
    __syncthreads();  // the previous row tile's operands and partials consumed
    for (int v = threadIdx.x; v < 16 * vrow; v += blockDim.x) {
      const int row = v / vrow, cv = v % vrow, m = mt * 16 + row;
      reinterpret_cast<uint4*>(a_s + static_cast<size_t>(row) * Kc)[cv] =
          m < M ? reinterpret_cast<const uint4*>(N + static_cast<size_t>(m) * ldn + k0)[cv] : make_uint4(0, 0, 0, 0);
    }
    __syncthreads();
    // Each warp one quarter of the slice's K; the quarters added in order below.
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k = warp * Kw; k < (warp + 1) * Kw; k += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, bf, wmma::row_major> a;
      wmma::fragment<wmma::matrix_b, 16, 16, 16, bf, wmma::col_major> b;
      wmma::load_matrix_sync(a, a_s + k, Kc);
      wmma::load_matrix_sync(b, w_s + k, Kc);
      wmma::mma_sync(acc, a, b, acc);
    }
    wmma::store_matrix_sync(c_s + warp * 256, acc, 16, wmma::mem_row_major);
    __syncthreads();
    for (int e = threadIdx.x; e < 256; e += blockDim.x) {
      const int row = mt * 16 + e / 16;
      if (row >= M) continue;
      float x = c_s[e];
      for (int w = 1; w < kWarps; ++w) x = __fadd_rn(x, c_s[w * 256 + e]);
      work[(static_cast<size_t>(slice) * M + row) * n + tile * kCols + e % 16] = x;
    }
  }
  // The last of the tile's ks blocks to arrive makes the tile's output.
  __threadfence();
  __syncthreads();
  __shared__ int last;
  if (threadIdx.x == 0) last = atomicAdd(&counters[tile], 1u) == static_cast<unsigned>(ks - 1);
  __syncthreads();
  if (!last) return;
  __threadfence();
  for (int e = threadIdx.x; e < M * kCols; e += blockDim.x) {
    const int row = e / kCols, col = tile * kCols + e % kCols;
    float acc = __ldcg(&work[static_cast<size_t>(row) * n + col]);
    for (int s = 1; s < ks; ++s) acc = __fadd_rn(acc, __ldcg(&work[(static_cast<size_t>(s) * M + row) * n + col]));
    acc = __fadd_rn(acc, f(A[static_cast<size_t>(row) * lda + col]));
    bf y = __float2bfloat16_rn(acc);
    if (nnz && __bfloat16_as_ushort(y) == kNegZero) y = __ushort_as_bfloat16(0);
    Y[static_cast<size_t>(row) * ldy + col] = y;
  }
  if (threadIdx.x == 0) counters[tile] = 0;  // ready for the next launch
#endif
}

size_t smem_bytes(int K, int ks) { return sizeof(bf) * 2 * (kCols * (K / ks)) + kWarps * 256 * sizeof(float); }

}  // namespace

int shard_gemm_slices(int M, int n, int K) {
  int dev = 0, major = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess)
    return 0;
  if (major < 8 || n % kCols != 0 || K % 16 != 0) return 0;
  // Enough blocks to cover the GPU's SMs several times with few rows (the
  // time is W's bytes); fewer slices, so less partial-sum traffic, as M
  // grows. A slice splits into four warps' quarters of whole 16-steps, and
  // its operands fit in shared memory.
  for (int ks : {M <= 32 ? 8 : M <= 64 ? 4 : 2, 4, 2, 1, 7, 14, 16})
    if (K % (64 * ks) == 0 && smem_bytes(K, ks) <= 200 * 1024) return ks;
  return 0;
}

Status shard_gemm_add(const bf* N, int ldn, const bf* W, int ldw, const bf* A, int lda, bf* Y, int ldy, int M, int n, int K,
                      int ks, float* work, unsigned* counters, bool no_neg_zero, bool pdl, cudaStream_t s) {
  if (ks <= 0 || n % kCols != 0 || K % (64 * ks) != 0 || ldn % 8 != 0 || ldw % 8 != 0)
    return LTT_ERR(Errc::internal, "shard_gemm_add: shape M ", M, " n ", n, " K ", K, " slices ", ks, " not supported");
  const size_t smem = smem_bytes(K, ks);
  LTT_CUDA(cudaFuncSetAttribute(shard_gemm_add_k, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(static_cast<unsigned>(n / kCols), static_cast<unsigned>(ks));
  cfg.blockDim = dim3(kWarps * 32);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = s;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = attr;
  cfg.numAttrs = pdl ? 1 : 0;
  LTT_CUDA(cudaLaunchKernelEx(&cfg, shard_gemm_add_k, N, ldn, W, ldw, A, lda, Y, ldy, M, n, K, ks, work, counters,
                              static_cast<int>(no_neg_zero)));
  return {};
}

}  // namespace ltt::gpu
