// Tier 0's sharded up-projection for skinny M: Y [M, n] = bf16(N [M, K]
// W [n, K]^T + A [M, n]) in one kernel, the fp32 addend added in the
// epilogue, one rounding, -0 made +0 for a Lamport writer (no_neg_zero).
// Tensor cores (WMMA 16x16x16, bf16 operands, fp32 accumulation); each block
// owns up to 64 output columns (a warp per 16) and one of `ks` slices of K,
// holding that slice of W and of 16 rows of N at a time in shared memory
// (rows padded against bank conflicts); the last block of a column group to
// finish adds the slices' partial sums in slice order (0, 1, ..., ks-1: the
// same bits whichever block ends last), then the addend, then rounds once. Launched as a programmatic
// dependent of the kernel that makes N (Hopper): W's slice is loaded while
// that kernel still runs, and the GEMM waits for N only before its first MMA.
#include "cuda_check.cuh"
#include "kernels.cuh"

#include <mma.h>  // after cuda_bf16.h (kernels.cuh): its bf16 fragments need it

namespace ltt::gpu {

namespace {

constexpr int kCols = 16;  // a column tile: one warp's 16 output columns
// Shared-memory rows padded by 8 elements (16 bytes; WMMA needs a stride of
// a multiple of 8 elements and 256-bit aligned fragment pointers, which the
// row-0 pointers stay): a row stride that is a multiple of 128 bytes would
// put all 16 rows of a fragment on the same banks.
constexpr int kPad = 8;

__device__ float f(bf x) { return __bfloat162float(x); }

// Block (b, slice): `ct` warps, warp w owning column tile b ct + w (16
// columns) over K slice `slice`; the 16-row tiles of N are loaded into shared
// memory once per block and shared by its warps.
__global__ void __launch_bounds__(128)
    shard_gemm_add_k(const bf* N, int ldn, const bf* W, int ldw, const bf* A, int lda, bf* Y, int ldy, int M, int n, int K,
                     int ks, float* work, unsigned* counters, int nnz) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  __trap();  // bf16 tensor cores need sm_80; shard_gemm_slices() keeps older devices on cuBLAS
#else
  using namespace nvcuda;
  extern __shared__ __align__(128) unsigned char smem[];
  const int ct = static_cast<int>(blockDim.x / 32), warp = threadIdx.x / 32;
  const int slice = blockIdx.y, Kc = K / ks, k0 = slice * Kc, ld = Kc + kPad;
  const int col0 = blockIdx.x * ct * kCols;  // the block's first output column
  bf* w_s = reinterpret_cast<bf*>(smem);   // [ct 16][ld]: W's rows of the block's columns, this slice of K
  bf* a_s = w_s + ct * kCols * ld;         // [16][ld]: N's rows of the row tile at hand (zero past M)
  float* c_s = reinterpret_cast<float*>(a_s + 16 * ld) + warp * 256;  // this warp's 16 x 16 tile
  const int vrow = Kc / 8;
  for (int v = threadIdx.x; v < ct * kCols * vrow; v += blockDim.x) {
    const int row = v / vrow, cv = v % vrow;
    reinterpret_cast<uint4*>(w_s + static_cast<size_t>(row) * ld)[cv] =
        reinterpret_cast<const uint4*>(W + static_cast<size_t>(col0 + row) * ldw + k0)[cv];
  }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();  // N complete and visible (a no-op when not launched as a dependent)
#endif
  const int mtiles = (M + 15) / 16, lane = threadIdx.x % 32;
  const bf* w_mine = w_s + static_cast<size_t>(warp) * kCols * ld;
  for (int mt = 0; mt < mtiles; ++mt) {
    __syncthreads();  // the previous row tile consumed
    for (int v = threadIdx.x; v < 16 * vrow; v += blockDim.x) {
      const int row = v / vrow, cv = v % vrow, m = mt * 16 + row;
      reinterpret_cast<uint4*>(a_s + static_cast<size_t>(row) * ld)[cv] =
          m < M ? reinterpret_cast<const uint4*>(N + static_cast<size_t>(m) * ldn + k0)[cv] : make_uint4(0, 0, 0, 0);
    }
    __syncthreads();
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k = 0; k < Kc; k += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, bf, wmma::row_major> a;
      wmma::fragment<wmma::matrix_b, 16, 16, 16, bf, wmma::col_major> b;
      wmma::load_matrix_sync(a, a_s + k, ld);
      wmma::load_matrix_sync(b, w_mine + k, ld);
      wmma::mma_sync(acc, a, b, acc);
    }
    wmma::store_matrix_sync(c_s, acc, 16, wmma::mem_row_major);
    __syncwarp();
    for (int e = lane; e < 256; e += 32) {
      const int row = mt * 16 + e / 16;
      if (row < M) work[(static_cast<size_t>(slice) * M + row) * n + col0 + warp * kCols + e % 16] = c_s[e];
    }
  }
  // The last of the block's ks slices to arrive makes its columns' output.
  __threadfence();
  __syncthreads();
  __shared__ int last;
  if (threadIdx.x == 0) last = atomicAdd(&counters[blockIdx.x], 1u) == static_cast<unsigned>(ks - 1);
  __syncthreads();
  if (!last) return;
  __threadfence();
  const int w = ct * kCols;
  for (int e = threadIdx.x; e < M * w; e += blockDim.x) {
    const int row = e / w, col = col0 + e % w;
    float acc = __ldcg(&work[static_cast<size_t>(row) * n + col]);
    for (int s = 1; s < ks; ++s) acc = __fadd_rn(acc, __ldcg(&work[(static_cast<size_t>(s) * M + row) * n + col]));
    acc = __fadd_rn(acc, f(A[static_cast<size_t>(row) * lda + col]));
    bf y = __float2bfloat16_rn(acc);
    if (nnz && __bfloat16_as_ushort(y) == kNegZero) y = __ushort_as_bfloat16(0);
    Y[static_cast<size_t>(row) * ldy + col] = y;
  }
  if (threadIdx.x == 0) counters[blockIdx.x] = 0;  // ready for the next launch
#endif
}

// Column tiles per block: 4 where n allows, else 2 or 1.
int tiles_per_block(int n) { return (n / kCols) % 4 == 0 ? 4 : (n / kCols) % 2 == 0 ? 2 : 1; }

size_t smem_bytes(int n, int K, int ks) {
  return sizeof(bf) * static_cast<size_t>(tiles_per_block(n) * kCols + 16) * (K / ks + kPad) +
         static_cast<size_t>(tiles_per_block(n)) * 256 * sizeof(float);
}

}  // namespace

int shard_gemm_slices(int M, int n, int K) {
  int dev = 0, major = 0, optin = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess)
    return 0;
  const size_t budget = static_cast<size_t>(optin) > 256 ? static_cast<size_t>(optin) - 256 : 0;  // the static `last` and slack
  if (major < 8 || n % kCols != 0 || K % 16 != 0) return 0;
  // Many slices (many blocks, each W's bytes) with few rows; fewer, so less
  // partial-sum traffic, as M grows. Operands must fit in the device's
  // shared memory per block (227 KB on Hopper, 163 KB on A100).
  for (int ks : {M <= 16 ? 16 : 8, 8, 4, 2, 1, 7, 14})
    if (K % (16 * ks) == 0 && smem_bytes(n, K, ks) <= budget) return ks;
  return 0;
}

Status shard_gemm_add(const bf* N, int ldn, const bf* W, int ldw, const bf* A, int lda, bf* Y, int ldy, int M, int n, int K,
                      int ks, float* work, unsigned* counters, bool no_neg_zero, bool pdl, cudaStream_t s) {
  if (ks <= 0 || n % kCols != 0 || K % (16 * ks) != 0 || ldn % 8 != 0 || ldw % 8 != 0)
    return LTT_ERR(Errc::internal, "shard_gemm_add: shape M ", M, " n ", n, " K ", K, " slices ", ks, " not supported");
  const int ct = tiles_per_block(n);
  const size_t smem = smem_bytes(n, K, ks);
  LTT_CUDA(cudaFuncSetAttribute(shard_gemm_add_k, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(static_cast<unsigned>(n / (ct * kCols)), static_cast<unsigned>(ks));
  cfg.blockDim = dim3(static_cast<unsigned>(32 * ct));
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
