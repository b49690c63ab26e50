// Tier 0's per-rank step with Hopper's warpgroup products, N given, M up to
// 128: Y [M, n] = bf16(N [M, K] W [n, K]^T + S [M, n]) with fp32
// accumulation, one rounding, -0 made +0 for a Lamport writer.
//
// The product is taken transposed, Y^T = W N^T: W's 64 rows of a cluster are
// the wgmma's m (64), the tokens its n (mma_width(M): 16 .. 128, rows past M
// zero in shared memory), so that few tokens waste no tensor-core rows. A
// cluster of ck blocks along K owns 64 output columns; block q takes K's
// slice q in chunks of 64 elements (one 128-byte swizzled row a chunk:
// wgmma.cuh). The block's first warpgroup issues the copies of its whole
// slice of W into shared memory at once (cp.async, one group a chunk),
// before it waits for the kernel that writes N (a programmatic launch lets
// W stream in while that kernel finishes); the second waits for that kernel
// and copies N's slice, one group a chunk. Chunk j's 4 products (K steps of
// 16) are issued as soon as both warpgroups have chunk j in, while the
// later chunks are still arriving. The block's fp32 partial product goes to
// shared memory; the cluster's ck partials are added through distributed
// shared memory in slice order, then S, then the rounding (block q makes
// the outputs of columns 64 / ck q .. 64 / ck (q + 1) - 1). Every order is
// fixed: the same bits on every run and every rank. What the kernel
// computes is shard_plan.hpp's `mma` plan; this file also holds its exact
// self-check (integer operands: mma_exact()).
#include <cooperative_groups.h>

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

__device__ __forceinline__ uint32_t smem_u32(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

// A 16-byte copy from global to shared memory, not kept in L1; `bytes` 0
// writes zeros (src is then not read, but must be a valid address).
__device__ __forceinline__ void copy16(uint32_t dst, const void* src, int bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(bytes) : "memory");
}
__device__ __forceinline__ void copy_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int kPending>
__device__ __forceinline__ void copy_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}
// Until at most `pending` (0 .. 7) of this thread's copy groups are in flight.
__device__ __forceinline__ void copy_wait_upto(int pending) {
  switch (pending) {
    case 0: copy_wait<0>(); break;
    case 1: copy_wait<1>(); break;
    case 2: copy_wait<2>(); break;
    case 3: copy_wait<3>(); break;
    case 4: copy_wait<4>(); break;
    case 5: copy_wait<5>(); break;
    case 6: copy_wait<6>(); break;
    default: copy_wait<7>(); break;
  }
}

// The byte offset of 16-byte piece c (0 .. 7) of row r in a 128-byte
// swizzled tile (wgmma.cuh).
__device__ __forceinline__ uint32_t swizzled(int r, int c) {
  return static_cast<uint32_t>(r * 128 + ((c ^ (r & 7)) << 4));
}

// Grid (n / 64, ck) blocks of 256 threads in clusters of (1, ck); kNT =
// mma_width(M); mma_smem(M, K, ck) bytes of dynamic shared memory.
template <int kNT>
__global__ void __launch_bounds__(kThreads, 1)
    shard_mma_k(const bf* A, int lda, const bf* W, int ldw, const bf* S, int lds, bf* Y, int ldy, int M, int K, int nnz) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  namespace cgs = cooperative_groups;
  constexpr int kLd = kNT + 8;  // the partial product's rows (output columns), padded
  constexpr int kPre = 4;       // S elements a thread fetches before the products
  constexpr int kMaxSlices = mma::kMaxSlices;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const uint32_t raw = smem_u32(smem_raw), base = (raw + 1023u) & ~1023u;  // swizzled tiles: 1024-byte aligned
  cgs::cluster_group cluster = cgs::this_cluster();
  const int ck = static_cast<int>(cluster.num_blocks()), q = static_cast<int>(cluster.block_rank());
  // The warpgroup through a shuffle: a value ptxas sees as warp-uniform, so
  // that the products on one warpgroup's path are not serialised.
  const int tid = threadIdx.x, wg = __shfl_sync(0xffffffffu, tid / 128, 0), t = tid % 128;
  const int col0 = static_cast<int>(blockIdx.x) * kRows, Kc = K / ck, chunks = Kc / kChunk;
  const size_t k0 = static_cast<size_t>(q) * Kc;
  // Shared memory: W's chunks [chunks][64 rows][128 bytes], N's [chunks][kNT rows][128 bytes], the partial [64][kLd] fp32.
  const uint32_t sW = base, sN = base + static_cast<uint32_t>(chunks * kRows * 128);
  float* part = reinterpret_cast<float*>(smem_raw + (base - raw) + static_cast<size_t>(chunks) * (kRows + kNT) * 128);
  allow_dependents();
  if (wg == 0) {
    // W's rows col0 .. col0 + 63 of the slice: a warp copies 4 rows' 128 bytes a step.
    const bf* w0 = W + static_cast<size_t>(col0) * ldw + k0;
#pragma unroll 1
    for (int j = 0; j < chunks; ++j) {
#pragma unroll
      for (int i = t; i < kRows * 8; i += 128) {
        const int row = i / 8, c = i % 8;
        copy16(sW + static_cast<uint32_t>(j * kRows * 128) + swizzled(row, c),
               w0 + static_cast<size_t>(row) * ldw + j * kChunk + 8 * c, 16);
      }
      copy_commit();
    }
    wait_dependencies();
  } else {
    wait_dependencies();
    const bf* a0 = A + k0;
#pragma unroll 1
    for (int j = 0; j < chunks; ++j) {
#pragma unroll
      for (int i = t; i < kNT * 8; i += 128) {
        const int row = i / 8, c = i % 8;
        const bool in = row < M;
        copy16(sN + static_cast<uint32_t>(j * kNT * 128) + swizzled(row, c),
               a0 + static_cast<size_t>(in ? row : 0) * lda + j * kChunk + 8 * c, in ? 16 : 0);
      }
      copy_commit();
    }
  }
  // This block's outputs: e = it kThreads + tid (column q cq + e % cq of
  // the cluster's 64, token e / cq); the first kPre's S fetched now.
  const int cq = kRows / ck, outs = cq * M, c0 = col0 + q * cq;
  const auto s_at = [&](int e) { return S[static_cast<size_t>(e / cq) * lds + c0 + e % cq]; };
  bf s_pre[kPre];
#pragma unroll
  for (int it = 0; it < kPre; ++it) {
    const int e = it * kThreads + tid;
    s_pre[it] = e < outs ? s_at(e) : __ushort_as_bfloat16(0);
  }
  float d[kNT / 2];
#pragma unroll
  for (int j = 0; j < kNT / 2; ++j) d[j] = 0.0f;
#pragma unroll 1
  for (int j = 0; j < chunks; ++j) {
    copy_wait_upto(chunks - 1 - j);  // this thread's copies of chunk j are in
    wgmma::fence_proxy_async();
    __syncthreads();  // and every thread's
    if (wg == 0) {
      wgmma::fence();
#pragma unroll
      for (int s = 0; s < kChunk / 16; ++s)
        wgmma::Wgmma<kNT>::mma(d, wgmma::desc_sw128(sW + static_cast<uint32_t>(j * kRows * 128 + 32 * s)),
                               wgmma::desc_sw128(sN + static_cast<uint32_t>(j * kNT * 128 + 32 * s)));
      wgmma::commit();
    }
  }
  wgmma::wait<0>();  // (nothing in flight on the second warpgroup)
  if (wg == 0) {
    // d[j]: output column 16 (t / 32) + (t % 32) / 4 + 8 ((j / 2) % 2), token 8 (j / 4) + 2 (t % 4) + j % 2.
    const int w = t / 32, l = t % 32;
#pragma unroll
    for (int j = 0; j < kNT / 2; j += 2) {
      const int row = 16 * w + l / 4 + 8 * ((j / 2) % 2), col = 8 * (j / 4) + 2 * (l % 4);
      *reinterpret_cast<float2*>(part + row * kLd + col) = make_float2(d[j], d[j + 1]);
    }
  }
  cluster.sync();  // every slice's partial complete
  const auto emit = [&](int e, float s_val) {
    const int c = q * cq + e % cq, m = e / cq;
    float pv[kMaxSlices];
#pragma unroll
    for (int p = 0; p < kMaxSlices; ++p)
      if (p < ck) pv[p] = *cluster.map_shared_rank(part + c * kLd + m, p);
    float acc = pv[0];
#pragma unroll
    for (int p = 1; p < kMaxSlices; ++p)
      if (p < ck) acc = __fadd_rn(acc, pv[p]);
    acc = __fadd_rn(acc, s_val);
    bf y = r(acc);
    if (nnz && __bfloat16_as_ushort(y) == kNegZero) y = __ushort_as_bfloat16(0);
    Y[static_cast<size_t>(m) * ldy + col0 + c] = y;
  };
#pragma unroll
  for (int it = 0; it < kPre; ++it) {
    const int e = it * kThreads + tid;
    if (e < outs) emit(e, f(s_pre[it]));
  }
  for (int e = kPre * kThreads + tid; e < outs; e += kThreads) emit(e, f(s_at(e)));
  cluster.sync();  // no block leaves while a sibling still reads its partial
#else
  __trap();  // wgmma needs sm_90a: shard_mma_available() keeps every other device off this kernel
#endif
}

template <int kNT>
Status launch_mma(int ck, const bf* A, int lda, const bf* W, int ldw, const bf* S, int lds, bf* Y, int ldy, int M, int n, int K,
              int nnz, bool pdl, cudaStream_t s) {
  auto* k = shard_mma_k<kNT>;
  const size_t smem = mma_smem(M, K, ck);
  LTT_CUDA(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  cudaLaunchAttribute attr[2];
  const cudaLaunchConfig_t cfg =
      cluster_config(static_cast<unsigned>(n / kRows), static_cast<unsigned>(ck), kThreads, smem, pdl, s, attr);
  LTT_CUDA(cudaLaunchKernelEx(&cfg, k, A, lda, W, ldw, S, lds, Y, ldy, M, K, nnz));
  return {};
}

// The device's multiprocessors where it runs the kernel (compute capability
// 9.0 and this build's sm_90a image loads on it), else 0.
int mma_sms() {
  int dev = 0, major = 0, minor = 0, sms = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  if (major != 9 || minor != 0) return 0;
  cudaFuncAttributes fa{};
  if (cudaFuncGetAttributes(&fa, shard_mma_k<16>) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return sms;
}

}  // namespace

bool shard_mma_device() { return mma_sms() > 0; }

int shard_mma_plan(int M, int n, int K) {
  const int sms = mma_sms();
  return sms > 0 ? plan_mma(M, n, K, sms) : 0;
}

Status shard_mma_add(const bf* A, int lda, const bf* W, int ldw, const bf* S, int lds, bf* Y, int ldy, int M, int n, int K,
                     bool no_neg_zero, bool pdl, cudaStream_t s, int ck) {
  const auto aligned = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
  if (ck == 0) ck = shard_mma_plan(M, n, K);
  if (ck == 0 || !mma_takes(ck, M, n, K) || mma_sms() == 0 || lda % 8 != 0 || ldw % 8 != 0 || !aligned(A) || !aligned(W))
    return LTT_ERR(Errc::internal, "shard_mma_add: M ", M, " n ", n, " K ", K, " with ", ck, " slices (lda ", lda, ", ldw ",
                   ldw, ") not taken: mma_takes() refuses it, the device is not of compute capability 9.0, or a row is "
                   "not 16-byte aligned");
  const int nnz = no_neg_zero;
  switch (mma_width(M)) {
    case 16: return launch_mma<16>(ck, A, lda, W, ldw, S, lds, Y, ldy, M, n, K, nnz, pdl, s);
    case 32: return launch_mma<32>(ck, A, lda, W, ldw, S, lds, Y, ldy, M, n, K, nnz, pdl, s);
    case 64: return launch_mma<64>(ck, A, lda, W, ldw, S, lds, Y, ldy, M, n, K, nnz, pdl, s);
    default: return launch_mma<128>(ck, A, lda, W, ldw, S, lds, Y, ldy, M, n, K, nnz, pdl, s);
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
  LTT_TRY(shard_mma_add(da.get(), lda, dw.get(), ldw, ds.get(), lds, dy.get(), ldy, M, n, K, true, false, nullptr, ck));
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
