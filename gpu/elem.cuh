// The element-wise device functions every kernel file shares: bf16 <-> fp32,
// RMSNorm's rstd and its output element (the contract's rounding points),
// the programmatic-launch trigger and wait, and a launch that asks for it;
// a weight's prefetch into L2;
// a tier 0 output's rounding; the sums in block order of the kernels split
// along K.
// One definition, so that the tier 0 kernels and the RMSNorm kernels round
// alike.
#pragma once

#include <cooperative_groups.h>

#include "cuda_check.cuh"
#include "kernels.cuh"

namespace ltt::gpu {

__device__ __forceinline__ float f(bf x) { return __bfloat162float(x); }
__device__ __forceinline__ bf r(float x) { return __float2bfloat16_rn(x); }

// 1 / sqrt(ss / L + eps), correctly rounded at each step.
__device__ __forceinline__ float rstd_of(float ss, int L, float eps) {
  return __fdiv_rn(1.0f, __fsqrt_rn(__fadd_rn(__fdiv_rn(ss, static_cast<float>(L)), eps)));
}

// An element of N: z rstd, then the weight g, rounded at the order's points
// (fused: once at the end; else also after z rstd).
__device__ __forceinline__ bf normalised(float z, float rstd, float g, int fused) {
  const float zr = __fmul_rn(z, rstd);
  return fused ? r(__fmul_rn(zr, g)) : r(__fmul_rn(f(r(zr)), g));
}

// The squares of a 16-byte vector's 8 elements added to ss in element order.
__device__ __forceinline__ float add_squares(float ss, uint4 v) {
  const bf* e = reinterpret_cast<const bf*>(&v);
#pragma unroll
  for (int k = 0; k < 8; ++k) ss = __fadd_rn(ss, __fmul_rn(f(e[k]), f(e[k])));
  return ss;
}

// Eight elements of N from eight of Z and eight of g (16-byte vectors).
__device__ __forceinline__ uint4 normalised8(uint4 z, uint4 g, float rstd, int fused) {
  const bf* e = reinterpret_cast<const bf*>(&z);
  const bf* gw = reinterpret_cast<const bf*>(&g);
  uint4 o;
  bf* y = reinterpret_cast<bf*>(&o);
#pragma unroll
  for (int k = 0; k < 8; ++k) y[k] = normalised(f(e[k]), rstd, f(gw[k]), fused);
  return o;
}

// A tier 0 output from its fp32 value: one rounding, -0 made +0 when nnz
// (a Lamport writer's: a published -0 is a slot no reader can take).
__device__ __forceinline__ bf out_round(float acc, int nnz) {
  bf y = r(acc);
  if (nnz && __bfloat16_as_ushort(y) == kNegZero) y = __ushort_as_bfloat16(0);
  return y;
}

// v(0) + v(1) + ... + v(n - 1) in that order (n <= kMax, at least 1): the
// same bits whichever thread or block asks; the n values fetched together
// first, so that their latencies overlap.
template <int kMax, class V>
__device__ __forceinline__ float ordered_sum(V v, int n) {
  float pv[kMax];
#pragma unroll
  for (int p = 0; p < kMax; ++p)
    if (p < n) pv[p] = v(p);
  float acc = pv[0];
#pragma unroll
  for (int p = 1; p < kMax; ++p)
    if (p < n) acc = __fadd_rn(acc, pv[p]);
  return acc;
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
// The float at x in the shared memory of each of the cluster's first n
// (<= kMax) blocks, added in block order 0 .. n - 1 (ordered_sum()).
template <int kMax>
__device__ __forceinline__ float cluster_sum(cooperative_groups::cluster_group& cluster, float* x, int n) {
  return ordered_sum<kMax>([&](int p) { return *cluster.map_shared_rank(x, p); }, n);
}
#endif

// A kernel that makes what a programmatic dependent reads lets that
// dependent start at once: the dependent still waits for this grid's
// completion before it reads (cudaGridDependencySynchronize), so only its
// prologue overlaps. Nothing before Hopper.
__device__ __forceinline__ void allow_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();
#endif
}

// The other side: a kernel launched as a programmatic dependent waits here,
// before its first read of what the kernel before it writes, for that
// kernel's completion and its writes' visibility. A no-op otherwise.
__device__ __forceinline__ void wait_dependencies() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
}

// Brings `bytes` from p into L2 with Hopper's bulk prefetch, in 16 KB
// pieces dealt to the grid's blocks round robin (piece i to block i mod
// blocks, 1-D blocks): a hint, nothing waits for it and no value changes,
// only where the bytes sit. One SM's copy unit issues its pieces one by
// one, so the more blocks share them the sooner W is in. For a weight the
// next kernel reads (tier 0's W shard, L2Prefetch in kernels.cuh): issued
// before this kernel's own wait, it moves W while the kernels before still
// run. p 16-byte aligned and bytes a multiple of 16 (checked by the
// launching function); nothing where p is null, nor before Hopper.
__device__ __forceinline__ void prefetch_l2(const void* p, size_t bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (p == nullptr) return;
  constexpr size_t kPiece = 16384;
  const size_t blocks = static_cast<size_t>(gridDim.x) * gridDim.y, b = static_cast<size_t>(blockIdx.y) * gridDim.x + blockIdx.x;
  const size_t pieces = (bytes + kPiece - 1) / kPiece;
  for (size_t i = b + blocks * threadIdx.x; i < pieces; i += blocks * blockDim.x) {
    const size_t off = i * kPiece;
    const uint32_t n = static_cast<uint32_t>(bytes - off < kPiece ? bytes - off : kPiece);
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;\n" ::"l"(static_cast<const char*>(p) + off), "r"(n) : "memory");
  }
#endif
}
// Blocks enough that each issues at most 3 pieces of prefetch_l2()'s, at
// most `cap` (the device's multiprocessors).
inline unsigned prefetch_blocks(size_t bytes, int cap) {
  const size_t want = (bytes + 3 * 16384 - 1) / (3 * 16384);
  return static_cast<unsigned>(want < static_cast<size_t>(cap) ? want : static_cast<size_t>(cap));
}

// A launch of grid (gx, cy) blocks of `block` threads in clusters of (1, cy,
// 1) on s with `smem` bytes of dynamic shared memory, as a programmatic
// dependent of the kernel before it when pdl; attr holds its attributes
// (the tier 0 kernels' clusters along K: shard_gemm.cu, shard_gemv.cu).
inline cudaLaunchConfig_t cluster_config(unsigned gx, unsigned cy, unsigned block, size_t smem, bool pdl, cudaStream_t s,
                                         cudaLaunchAttribute (&attr)[2]) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(gx, cy);
  cfg.blockDim = dim3(block);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = s;
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = 1;
  attr[0].val.clusterDim.y = cy;
  attr[0].val.clusterDim.z = 1;
  attr[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[1].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = attr;
  cfg.numAttrs = pdl ? 2 : 1;
  return cfg;
}

// Launches k (grid, block, no dynamic shared memory) on s, as a programmatic
// dependent of the kernel before it when pdl.
template <class... P, class... A>
inline Status launch(void (*k)(P...), unsigned grid, unsigned block, bool pdl, cudaStream_t s, A... a) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(block);
  cfg.stream = s;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = attr;
  cfg.numAttrs = pdl ? 1 : 0;
  LTT_CUDA(cudaLaunchKernelEx(&cfg, k, static_cast<P>(a)...));
  return {};
}

}  // namespace ltt::gpu
