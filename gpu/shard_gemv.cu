// Tier 0's per-rank step for few tokens (M <= 16), N given (the collective
// normalised): Y [M, n] = bf16(N [M, K] W [n, K]^T + S [M, n]) with fp32
// accumulation, one rounding, -0 made +0 for a Lamport writer.
//
// At such M the step is a batched GEMV: it moves W's shard (n K bf16) from
// memory and little else, so the kernel is built to have all of W in flight
// at once rather than around tiles in shared memory. Block b owns W's rows
// 8b .. 8b+7 (8 output columns) over all of K; its 16 warps take K's 32-wide
// steps round robin (step s by warp s mod 16), and each lane loads its
// 16-byte piece of W for every step it takes before anything else, before it
// waits for the kernel that writes N and S (programmatic launch: W streams
// in while that kernel finishes). Then N's pieces (L2) and tensor cores:
// mma m16n8k16 (bf16 in, fp32 accumulate) with the tokens as the product's
// 16 rows (zero past M) and the 8 W rows as its columns. Within a step, lane
// t of a row group holds 8 consecutive elements of K for both operands and
// feeds them to its k slots of two products (slots 2t, 2t+1, 2t+8, 2t+9 of
// each): a permutation of K applied alike to N and W, so each output is
// still a sum of the same products; only the fp32 order differs, which the
// contract leaves free. The 16 warps' partial sums meet in shared memory
// and are added in warp order (the same bits on every run and every rank),
// then S, then the rounding. No atomics, no workspace, no cluster.
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

// Grid n / 8 blocks of 512 threads; kSteps = gemv_warp_steps(K).
template <int kSteps>
__global__ void __launch_bounds__(kThreads, 1)
    shard_gemv_k(const bf* N, int ldn, const bf* W, int ldw, const bf* S, int lds, bf* Y, int ldy, int M, int K, int nnz) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  __shared__ float part[kWarps][kMaxTokens][kCols];
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
  const int col0 = static_cast<int>(blockIdx.x) * kCols, steps = K / kStep;
  // Lane (g, t): W's row col0 + g, elements 8t .. 8t+7 of each step it takes.
  const bf* wp = W + static_cast<size_t>(col0 + g) * ldw + 8 * t;
  uint4 wv[kSteps];
#pragma unroll
  for (int i = 0; i < kSteps; ++i) {
    const int st = warp + i * kWarps;
    wv[i] = st < steps ? load_stream(wp + static_cast<size_t>(st) * kStep) : make_uint4(0, 0, 0, 0);
  }
  allow_dependents();
  wait_dependencies();  // N and S written by the kernel before (the collective)
  // The S of this thread's output (thread e < 8 M: token e / 8, column e % 8),
  // fetched now so that the epilogue does not wait for it.
  const int m_out = tid / kCols, c_out = tid % kCols;
  const bool writes = tid < M * kCols;
  const bf s_out = writes ? S[static_cast<size_t>(m_out) * lds + col0 + c_out] : __ushort_as_bfloat16(0);
  // Tokens g and g + 8, the same elements of K as the lane's W.
  const bf* n0 = N + static_cast<size_t>(g) * ldn + 8 * t;
  const bf* n1 = n0 + static_cast<size_t>(8) * ldn;
  uint4 a0[kSteps], a1[kSteps];
#pragma unroll
  for (int i = 0; i < kSteps; ++i) {
    const int st = warp + i * kWarps;
    const size_t off = static_cast<size_t>(st) * kStep;
    a0[i] = st < steps && g < M ? *reinterpret_cast<const uint4*>(n0 + off) : make_uint4(0, 0, 0, 0);
    a1[i] = st < steps && g + 8 < M ? *reinterpret_cast<const uint4*>(n1 + off) : make_uint4(0, 0, 0, 0);
  }
  float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
  for (int i = 0; i < kSteps; ++i) {
    if (warp + i * kWarps >= steps) break;
    // Elements 8t, 8t+1 | 8t+2, 8t+3 in the first product's slots 2t, 2t+1 | 2t+8, 2t+9; 8t+4 .. 8t+7 in the second's.
    mma16816(d, a0[i].x, a1[i].x, a0[i].y, a1[i].y, wv[i].x, wv[i].y);
    mma16816(d, a0[i].z, a1[i].z, a0[i].w, a1[i].w, wv[i].z, wv[i].w);
  }
  // d: tokens g (d0, d1) and g + 8 (d2, d3), columns 2t and 2t + 1.
  part[warp][g][2 * t] = d[0];
  part[warp][g][2 * t + 1] = d[1];
  part[warp][g + 8][2 * t] = d[2];
  part[warp][g + 8][2 * t + 1] = d[3];
  __syncthreads();
  if (writes) {
    float acc = part[0][m_out][c_out];
#pragma unroll
    for (int w = 1; w < kWarps; ++w) acc = __fadd_rn(acc, part[w][m_out][c_out]);
    acc = __fadd_rn(acc, f(s_out));
    bf y = r(acc);
    if (nnz && __bfloat16_as_ushort(y) == kNegZero) y = __ushort_as_bfloat16(0);
    Y[static_cast<size_t>(m_out) * ldy + col0 + c_out] = y;
  }
#else
  __trap();  // mma.sync on bf16 needs sm_80; shard_gemv_available() keeps older devices off
#endif
}

template <int kSteps>
Status launch(const bf* N, int ldn, const bf* W, int ldw, const bf* S, int lds, bf* Y, int ldy, int M, int n, int K,
              int nnz, bool pdl, cudaStream_t s) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(static_cast<unsigned>(n / kCols));
  cfg.blockDim = dim3(kThreads);
  cfg.stream = s;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = attr;
  cfg.numAttrs = pdl ? 1 : 0;
  LTT_CUDA(cudaLaunchKernelEx(&cfg, shard_gemv_k<kSteps>, N, ldn, W, ldw, S, lds, Y, ldy, M, K, nnz));
  return {};
}

}  // namespace

bool shard_gemv_available(int M, int n, int K) {
  int dev = 0, major = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return major >= 8 && gemv_takes(M, n, K);
}

Status shard_gemv_add(const bf* N, int ldn, const bf* W, int ldw, const bf* S, int lds, bf* Y, int ldy, int M, int n, int K,
                      bool no_neg_zero, bool pdl, cudaStream_t s) {
  const auto aligned = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
  if (!gemv_takes(M, n, K) || ldn % 8 != 0 || ldw % 8 != 0 || !aligned(N) || !aligned(W))
    return LTT_ERR(Errc::internal, "shard_gemv_add: shape M ", M, " n ", n, " K ", K, " (ldn ", ldn, ", ldw ", ldw,
                   ") not taken: M <= ", kMaxTokens, ", n a multiple of ", kCols, ", K a multiple of ", kStep,
                   " up to ", kWarps * kMaxSteps * kStep, ", 16-byte rows");
  const int nnz = no_neg_zero;
  switch (gemv_warp_steps(K)) {
    case 1: return launch<1>(N, ldn, W, ldw, S, lds, Y, ldy, M, n, K, nnz, pdl, s);
    case 2: return launch<2>(N, ldn, W, ldw, S, lds, Y, ldy, M, n, K, nnz, pdl, s);
    case 3: return launch<3>(N, ldn, W, ldw, S, lds, Y, ldy, M, n, K, nnz, pdl, s);
    case 4: return launch<4>(N, ldn, W, ldw, S, lds, Y, ldy, M, n, K, nnz, pdl, s);
    case 5: return launch<5>(N, ldn, W, ldw, S, lds, Y, ldy, M, n, K, nnz, pdl, s);
    case 6: return launch<6>(N, ldn, W, ldw, S, lds, Y, ldy, M, n, K, nnz, pdl, s);
    case 7: return launch<7>(N, ldn, W, ldw, S, lds, Y, ldy, M, n, K, nnz, pdl, s);
    default: return launch<8>(N, ldn, W, ldw, S, lds, Y, ldy, M, n, K, nnz, pdl, s);
  }
}

}  // namespace ltt::gpu
