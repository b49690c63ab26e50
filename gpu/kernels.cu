// The cuda backend's kernels (kernels.cuh).
#include "cuda_check.cuh"
#include "kernels.cuh"

namespace ltt::gpu {

namespace {

constexpr int kThreads = 256;

unsigned blocks_for(size_t n) {
  const size_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 65535u * 32u ? (b == 0 ? 1 : b) : 65535u * 32u);
}

__device__ float f(bf x) { return __bfloat162float(x); }
__device__ bf r(float x) { return __float2bfloat16_rn(x); }

// One-shot: rank order 0..T-1 in fp32, one rounding; every rank gets the sum.
// The sums start from -0, the identity of IEEE addition (-0 + x == x, bit for
// bit), so a dropped first term needs no special case.
__global__ void allreduce_one_shot(bf* const* bufs, int T, size_t n, Terms t) {
  for (size_t e = blockIdx.x * size_t(blockDim.x) + threadIdx.x; e < n; e += size_t(gridDim.x) * blockDim.x) {
    float acc = -0.0f;
    for (int q = 0; q < T; ++q) {
      if (q == t.drop) continue;
      acc = __fadd_rn(acc, f(bufs[q][e]));
      if (q == t.twice) acc = __fadd_rn(acc, f(bufs[q][e]));
    }
    const bf y = r(acc);
    for (int q = 0; q < T; ++q) bufs[q][e] = y;
  }
}

// Ring: element e lies in chunk c = [n c / T, n (c+1) / T); its sum starts
// with rank c+1's value and adds ranks c+2, ..., c+T (mod T), rounding to
// bf16 at every hop.
__device__ int chunk_of(size_t e, size_t n, int T) {
  long long c = static_cast<long long>((static_cast<unsigned long long>(e) * T) / n);
  while (c + 1 < T && n * static_cast<size_t>(c + 1) / static_cast<size_t>(T) <= e) ++c;
  while (c > 0 && n * static_cast<size_t>(c) / static_cast<size_t>(T) > e) --c;
  return static_cast<int>(c);
}

__global__ void allreduce_ring(bf* const* bufs, int T, size_t n, Terms t) {
  for (size_t e = blockIdx.x * size_t(blockDim.x) + threadIdx.x; e < n; e += size_t(gridDim.x) * blockDim.x) {
    const int c = chunk_of(e, n, T);
    bf acc = __float2bfloat16_rn(-0.0f);
    for (int k = 0; k < T; ++k) {
      const int q = (c + 1 + k) % T;
      if (q == t.drop) continue;
      acc = r(__fadd_rn(f(acc), f(bufs[q][e])));
      if (q == t.twice) acc = r(__fadd_rn(f(acc), f(bufs[q][e])));
    }
    for (int q = 0; q < T; ++q) bufs[q][e] = acc;
  }
}

__global__ void reduce_scatter(const bf* const* in, bf* const* out, int T, int rows, int ld, int w, int ring, Terms t) {
  const size_t n = static_cast<size_t>(rows) * ld;
  for (size_t e = blockIdx.x * size_t(blockDim.x) + threadIdx.x; e < n; e += size_t(gridDim.x) * blockDim.x) {
    const int i = static_cast<int>(e / ld), col = static_cast<int>(e % ld);
    const int sh = col / w, j = col % w;
    const size_t at = static_cast<size_t>(i) * ld + col;
    bf y;
    if (!ring) {
      float acc = -0.0f;
      for (int q = 0; q < T; ++q) {
        if (q == t.drop) continue;
        acc = __fadd_rn(acc, f(in[q][at]));
        if (q == t.twice) acc = __fadd_rn(acc, f(in[q][at]));
      }
      y = r(acc);
    } else {
      bf acc = __float2bfloat16_rn(-0.0f);
      for (int k = 0; k < T; ++k) {
        const int q = (sh + 1 + k) % T;
        if (q == t.drop) continue;
        acc = r(__fadd_rn(f(acc), f(in[q][at])));
        if (q == t.twice) acc = r(__fadd_rn(f(acc), f(in[q][at])));
      }
      y = acc;
    }
    out[sh][static_cast<size_t>(i) * w + j] = y;
  }
}

// The sum over the block (a tree of fp32 additions), returned to every thread.
__device__ float block_sum(float v) {
  for (int o = 16; o > 0; o /= 2) v = __fadd_rn(v, __shfl_down_sync(0xffffffffu, v, o));
  __shared__ float warp_sums[32];
  __shared__ float total;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0.0f;
    for (int i = 0; i < static_cast<int>(blockDim.x / 32); ++i) t = __fadd_rn(t, warp_sums[i]);
    total = t;
  }
  __syncthreads();
  return total;
}

// One block per row: the sum of squares in fp32 (a tree over the block),
// rstd = 1 / sqrt(ss / L + eps) correctly rounded at each step, then N.
__global__ void rmsnorm_rows(const bf* Z, int ldz, const bf* g, bf* N, int L, float eps, int fused) {
  const bf* z = Z + static_cast<size_t>(blockIdx.x) * ldz;
  bf* out = N + static_cast<size_t>(blockIdx.x) * L;
  float ss = 0.0f;
  for (int k = threadIdx.x; k < L; k += blockDim.x) ss = __fadd_rn(ss, __fmul_rn(f(z[k]), f(z[k])));
  const float t = block_sum(ss);
  const float rstd = __fdiv_rn(1.0f, __fsqrt_rn(__fadd_rn(__fdiv_rn(t, static_cast<float>(L)), eps)));
  for (int k = threadIdx.x; k < L; k += blockDim.x) {
    const float zr = __fmul_rn(f(z[k]), rstd);
    out[k] = fused ? r(__fmul_rn(zr, f(g[k]))) : r(__fmul_rn(f(r(zr)), f(g[k])));
  }
}

// The same with 16-byte loads and stores (8 bf16 at a time) where L, the
// row stride and the pointers allow: one block per row, the row read twice
// (the second time from cache), N written once.
__global__ void rmsnorm_rows_vec(const bf* Z, int ldz, const bf* g, bf* N, int L, float eps, int fused) {
  const uint4* z = reinterpret_cast<const uint4*>(Z + static_cast<size_t>(blockIdx.x) * ldz);
  const uint4* gv = reinterpret_cast<const uint4*>(g);
  uint4* out = reinterpret_cast<uint4*>(N + static_cast<size_t>(blockIdx.x) * L);
  const int nv = L / 8;
  float ss = 0.0f;
  for (int v = threadIdx.x; v < nv; v += blockDim.x) {
    const uint4 q = z[v];
    const bf* e = reinterpret_cast<const bf*>(&q);
    for (int k = 0; k < 8; ++k) ss = __fadd_rn(ss, __fmul_rn(f(e[k]), f(e[k])));
  }
  const float t = block_sum(ss);
  const float rstd = __fdiv_rn(1.0f, __fsqrt_rn(__fadd_rn(__fdiv_rn(t, static_cast<float>(L)), eps)));
  for (int v = threadIdx.x; v < nv; v += blockDim.x) {
    const uint4 q = z[v], w = gv[v];
    const bf* e = reinterpret_cast<const bf*>(&q);
    const bf* gw = reinterpret_cast<const bf*>(&w);
    uint4 o;
    bf* y = reinterpret_cast<bf*>(&o);
    for (int k = 0; k < 8; ++k) {
      const float zr = __fmul_rn(f(e[k]), rstd);
      y[k] = fused ? r(__fmul_rn(zr, f(gw[k]))) : r(__fmul_rn(f(r(zr)), f(gw[k])));
    }
    out[v] = o;
  }
}

__global__ void widen_k(const bf* src, int lds, float* dst, int ldd, int rows, int cols) {
  const size_t n = static_cast<size_t>(rows) * cols;
  for (size_t e = blockIdx.x * size_t(blockDim.x) + threadIdx.x; e < n; e += size_t(gridDim.x) * blockDim.x) {
    const size_t i = e / cols, j = e % cols;
    dst[i * ldd + j] = f(src[i * lds + j]);
  }
}

__global__ void round_k(const float* src, int lds, bf* dst, int ldd, int rows, int cols, int nnz) {
  const size_t n = static_cast<size_t>(rows) * cols;
  for (size_t e = blockIdx.x * size_t(blockDim.x) + threadIdx.x; e < n; e += size_t(gridDim.x) * blockDim.x) {
    const size_t i = e / cols, j = e % cols;
    bf y = r(src[i * lds + j]);
    if (nnz && __bfloat16_as_ushort(y) == kNegZero) y = __ushort_as_bfloat16(0);
    dst[i * ldd + j] = y;
  }
}

__global__ void add_round_k(bf* y, const bf* b, size_t n) {
  for (size_t e = blockIdx.x * size_t(blockDim.x) + threadIdx.x; e < n; e += size_t(gridDim.x) * blockDim.x)
    y[e] = r(__fadd_rn(f(y[e]), f(b[e])));
}

__global__ void fill_k(bf* p, size_t n, unsigned short bits) {
  for (size_t e = blockIdx.x * size_t(blockDim.x) + threadIdx.x; e < n; e += size_t(gridDim.x) * blockDim.x)
    p[e] = __ushort_as_bfloat16(bits);
}

__global__ void sanitize_k(bf* p, size_t n) {
  for (size_t e = blockIdx.x * size_t(blockDim.x) + threadIdx.x; e < n; e += size_t(gridDim.x) * blockDim.x)
    if (__bfloat16_as_ushort(p[e]) == kNegZero) p[e] = __ushort_as_bfloat16(0);
}

__global__ void concat_k(const bf* R, const bf* S, bf* X, int M, int L, int H) {
  const size_t w = static_cast<size_t>(L) + H, n = static_cast<size_t>(M) * w;
  for (size_t e = blockIdx.x * size_t(blockDim.x) + threadIdx.x; e < n; e += size_t(gridDim.x) * blockDim.x) {
    const size_t i = e / w, j = e % w;
    X[e] = j < static_cast<size_t>(L) ? R[i * L + j] : S[i * H + (j - L)];
  }
}

__global__ void lamport_publish_k(const bf* const* in, bf* recv, int T, int rows, int w, int skip) {
  const size_t ld = static_cast<size_t>(T) * w, n = static_cast<size_t>(rows) * ld;
  for (size_t e = blockIdx.x * size_t(blockDim.x) + threadIdx.x; e < n; e += size_t(gridDim.x) * blockDim.x) {
    const size_t i = e / ld, col = e % ld, q = col / w, j = col % w;
    if (static_cast<int>(q) == skip) continue;
    recv[e] = in[q][i * w + j];
  }
}

__global__ void lamport_read_k(const bf* recv, bf* const* out, int T, size_t n, long long* stuck) {
  const volatile unsigned short* slot = reinterpret_cast<const volatile unsigned short*>(recv);
  for (size_t e = blockIdx.x * size_t(blockDim.x) + threadIdx.x; e < n; e += size_t(gridDim.x) * blockDim.x) {
    unsigned short v = slot[e];
    for (int spin = 0; v == kNegZero && spin < 1000; ++spin) v = slot[e];  // a Lamport reader waits for the slot
    if (v == kNegZero) {
      atomicMin(reinterpret_cast<unsigned long long*>(stuck), static_cast<unsigned long long>(e));
      continue;
    }
    for (int q = 0; q < T; ++q) out[q][e] = __ushort_as_bfloat16(v);
  }
}

__global__ void find_neg_zero_k(const bf* p, size_t n, long long base, long long* stuck) {
  for (size_t e = blockIdx.x * size_t(blockDim.x) + threadIdx.x; e < n; e += size_t(gridDim.x) * blockDim.x)
    if (__bfloat16_as_ushort(p[e]) == kNegZero)
      atomicMin(reinterpret_cast<unsigned long long*>(stuck), static_cast<unsigned long long>(base + static_cast<long long>(e)));
}

__global__ void lamport_race_k(const bf* const* in, bf* recv, bf* const* out, int T, int rows, int w) {
  const size_t ld = static_cast<size_t>(T) * w, n = static_cast<size_t>(rows) * ld;
  for (size_t e = blockIdx.x * size_t(blockDim.x) + threadIdx.x; e < n; e += size_t(gridDim.x) * blockDim.x) {
    const size_t i = e / ld, col = e % ld, q = col / w, j = col % w;
    const bf pub = in[q][i * w + j];
    const bf old = recv[e];
    const bf take = __bfloat16_as_ushort(old) == kNegZero ? pub : old;
    for (int k = 0; k < T; ++k) out[k][e] = take;
    recv[e] = pub;
  }
}

}  // namespace

Status find_neg_zero(const bf* p, size_t n, long long base, long long* stuck, cudaStream_t s) {
  find_neg_zero_k<<<blocks_for(n), kThreads, 0, s>>>(p, n, base, stuck);
  LTT_LAUNCHED();
  return {};
}

Status lamport_race(const bf* const* in, bf* recv, bf* const* out, int T, int rows, int w, cudaStream_t s) {
  lamport_race_k<<<blocks_for(static_cast<size_t>(rows) * T * w), kThreads, 0, s>>>(in, recv, out, T, rows, w);
  LTT_LAUNCHED();
  return {};
}

Status allreduce(bf* const* bufs, int T, size_t n, Algo algo, cudaStream_t s, Terms terms) {
  if (algo == Algo::one_shot) allreduce_one_shot<<<blocks_for(n), kThreads, 0, s>>>(bufs, T, n, terms);
  else allreduce_ring<<<blocks_for(n), kThreads, 0, s>>>(bufs, T, n, terms);
  LTT_LAUNCHED();
  return {};
}

Status reduce_scatter_cols(const bf* const* in, bf* const* out, int T, int rows, int ld, int w, Algo algo, cudaStream_t s,
                           Terms terms) {
  reduce_scatter<<<blocks_for(static_cast<size_t>(rows) * ld), kThreads, 0, s>>>(in, out, T, rows, ld, w, algo == Algo::ring, terms);
  LTT_LAUNCHED();
  return {};
}

Status rmsnorm(const bf* Z, int ldz, const bf* g, bf* N, int M, int L, float eps, NormOrder order, cudaStream_t s) {
  const auto aligned = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
  if (L % 8 == 0 && ldz % 8 == 0 && aligned(Z) && aligned(g) && aligned(N))
    rmsnorm_rows_vec<<<static_cast<unsigned>(M), kThreads, 0, s>>>(Z, ldz, g, N, L, eps, order == NormOrder::fused);
  else
    rmsnorm_rows<<<static_cast<unsigned>(M), kThreads, 0, s>>>(Z, ldz, g, N, L, eps, order == NormOrder::fused);
  LTT_LAUNCHED();
  return {};
}

Status widen(const bf* src, int ld_src, float* dst, int ld_dst, int rows, int cols, cudaStream_t s) {
  widen_k<<<blocks_for(static_cast<size_t>(rows) * cols), kThreads, 0, s>>>(src, ld_src, dst, ld_dst, rows, cols);
  LTT_LAUNCHED();
  return {};
}

Status round_to(const float* src, int ld_src, bf* dst, int ld_dst, int rows, int cols, bool no_neg_zero, cudaStream_t s) {
  round_k<<<blocks_for(static_cast<size_t>(rows) * cols), kThreads, 0, s>>>(src, ld_src, dst, ld_dst, rows, cols, no_neg_zero);
  LTT_LAUNCHED();
  return {};
}

Status add_round(bf* y, const bf* b, size_t n, cudaStream_t s) {
  add_round_k<<<blocks_for(n), kThreads, 0, s>>>(y, b, n);
  LTT_LAUNCHED();
  return {};
}

Status fill(bf* p, size_t n, uint16_t bits, cudaStream_t s) {
  fill_k<<<blocks_for(n), kThreads, 0, s>>>(p, n, bits);
  LTT_LAUNCHED();
  return {};
}

Status sanitize(bf* p, size_t n, cudaStream_t s) {
  sanitize_k<<<blocks_for(n), kThreads, 0, s>>>(p, n);
  LTT_LAUNCHED();
  return {};
}

Status concat(const bf* R, const bf* S, bf* X, int M, int L, int H, cudaStream_t s) {
  concat_k<<<blocks_for(static_cast<size_t>(M) * (L + H)), kThreads, 0, s>>>(R, S, X, M, L, H);
  LTT_LAUNCHED();
  return {};
}

Status lamport_publish(const bf* const* in, bf* recv, int T, int rows, int w, cudaStream_t s, int skip) {
  lamport_publish_k<<<blocks_for(static_cast<size_t>(rows) * T * w), kThreads, 0, s>>>(in, recv, T, rows, w, skip);
  LTT_LAUNCHED();
  return {};
}

Status lamport_read(const bf* recv, bf* const* out, int T, size_t n, long long* stuck, cudaStream_t s) {
  lamport_read_k<<<blocks_for(n), kThreads, 0, s>>>(recv, out, T, n, stuck);
  LTT_LAUNCHED();
  return {};
}

}  // namespace ltt::gpu
