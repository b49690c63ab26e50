// The cuda backend's kernels (kernels.cuh).
#include <algorithm>

#include "cuda_check.cuh"
#include "elem.cuh"
#include "kernels.cuh"

namespace ltt::gpu {

namespace {

constexpr int kThreads = 256;

unsigned blocks_for(size_t n) {
  const size_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 65535u * 32u ? (b == 0 ? 1 : b) : 65535u * 32u);
}

// The GPU's global timer, in nanoseconds.
__device__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Ring: element e lies in chunk c = [n c / T, n (c+1) / T).
__device__ int chunk_of(size_t e, size_t n, int T) {
  long long c = static_cast<long long>((static_cast<unsigned long long>(e) * T) / n);
  while (c + 1 < T && n * static_cast<size_t>(c + 1) / static_cast<size_t>(T) <= e) ++c;
  while (c > 0 && n * static_cast<size_t>(c) / static_cast<size_t>(T) > e) --c;
  return static_cast<int>(c);
}

// The sum over the T ranks in the contract's order, every collective's one
// definition. One-shot: rank order 0..T-1 in fp32, one rounding. Ring (chunk
// c): from rank c+1 through c+2, ..., c+T (mod T), a bf16 rounding at every
// hop. The sums start from -0, the identity of IEEE addition (-0 + x == x,
// bit for bit), so a dropped first term needs no special case. get(q) is
// rank q's term, asked once per rank.
template <class Get>
__device__ bf sum_ordered(Get get, int T, int ring, int c, Terms t) {
  bf acc = __float2bfloat16_rn(-0.0f);
  float facc = -0.0f;
  for (int i = 0; i < T; ++i) {
    const int q = ring ? (c + 1 + i) % T : i;
    if (q == t.drop) continue;
    const float v = get(q);
    for (int j = 0; j < (q == t.twice ? 2 : 1); ++j) {
      if (ring) acc = r(__fadd_rn(f(acc), v));
      else facc = __fadd_rn(facc, v);
    }
  }
  return ring ? acc : r(facc);
}

// Every element's sum is read in full before any rank's copy of it is
// written, so in == out is safe when all ranks are in this process.
__global__ void allreduce_k(const bf* const* in, bf* const* out, int T, int lo, int hi, size_t n, int ring, Terms t) {
  for (size_t e = blockIdx.x * size_t(blockDim.x) + threadIdx.x; e < n; e += size_t(gridDim.x) * blockDim.x) {
    const bf y = sum_ordered([&](int q) { return f(in[q][e]); }, T, ring, ring ? chunk_of(e, n, T) : 0, t);
    for (int q = lo; q < hi; ++q) out[q][e] = y;
  }
}

// The same, 8 elements (16 bytes) a thread, n a multiple of 8: each rank's
// 8 terms in one load, each element's sum the same operations in the same
// order as sum_ordered's (the same bits). A vector that straddles two ring
// chunks, or whose addresses are not 16-byte aligned, goes an element at a
// time.
__global__ void allreduce_vec_k(const bf* const* in, bf* const* out, int T, int lo, int hi, size_t n, int ring, Terms t) {
  const size_t nv = n / 8;
  for (size_t x = blockIdx.x * size_t(blockDim.x) + threadIdx.x; x < nv; x += size_t(gridDim.x) * blockDim.x) {
    const size_t e = 8 * x;
    const int c = ring ? chunk_of(e, n, T) : 0;
    bool vec = !ring || chunk_of(e + 7, n, T) == c;
    for (int q = 0; q < T && vec; ++q) vec = reinterpret_cast<uintptr_t>(in[q] + e) % 16 == 0;
    for (int q = lo; q < hi && vec; ++q) vec = reinterpret_cast<uintptr_t>(out[q] + e) % 16 == 0;
    if (!vec) {
      for (size_t k = e; k < e + 8; ++k) {
        const bf y = sum_ordered([&](int q) { return f(in[q][k]); }, T, ring, ring ? chunk_of(k, n, T) : 0, t);
        for (int q = lo; q < hi; ++q) out[q][k] = y;
      }
      continue;
    }
    float facc[8];
    bf acc[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) facc[k] = -0.0f, acc[k] = __float2bfloat16_rn(-0.0f);
    for (int i = 0; i < T; ++i) {
      const int q = ring ? (c + 1 + i) % T : i;
      if (q == t.drop) continue;
      const uint4 v = *reinterpret_cast<const uint4*>(in[q] + e);
      const bf* vb = reinterpret_cast<const bf*>(&v);
      for (int j = 0; j < (q == t.twice ? 2 : 1); ++j)
#pragma unroll
        for (int k = 0; k < 8; ++k) {
          if (ring) acc[k] = r(__fadd_rn(f(acc[k]), f(vb[k])));
          else facc[k] = __fadd_rn(facc[k], f(vb[k]));
        }
    }
    uint4 y;
    bf* yb = reinterpret_cast<bf*>(&y);
#pragma unroll
    for (int k = 0; k < 8; ++k) yb[k] = ring ? acc[k] : r(facc[k]);
    for (int q = lo; q < hi; ++q) *reinterpret_cast<uint4*>(out[q] + e) = y;
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
  allow_dependents();
  const bf* z = Z + static_cast<size_t>(blockIdx.x) * ldz;
  bf* out = N + static_cast<size_t>(blockIdx.x) * L;
  float ss = 0.0f;
  for (int k = threadIdx.x; k < L; k += blockDim.x) ss = __fadd_rn(ss, __fmul_rn(f(z[k]), f(z[k])));
  const float t = block_sum(ss);
  const float rstd = rstd_of(t, L, eps);
  for (int k = threadIdx.x; k < L; k += blockDim.x) {
    out[k] = normalised(f(z[k]), rstd, f(g[k]), fused);
  }
}

// The same with 16-byte loads and stores (8 bf16 at a time) where L, the
// row stride and the pointers allow: one block per row, the row read twice
// (the second time from cache), N written once.
__global__ void rmsnorm_rows_vec(const bf* Z, int ldz, const bf* g, bf* N, int L, float eps, int fused) {
  allow_dependents();
  const uint4* z = reinterpret_cast<const uint4*>(Z + static_cast<size_t>(blockIdx.x) * ldz);
  const uint4* gv = reinterpret_cast<const uint4*>(g);
  uint4* out = reinterpret_cast<uint4*>(N + static_cast<size_t>(blockIdx.x) * L);
  const int nv = L / 8;
  float ss = 0.0f;
  for (int v = threadIdx.x; v < nv; v += blockDim.x) ss = add_squares(ss, z[v]);
  const float t = block_sum(ss);
  const float rstd = rstd_of(t, L, eps);
  for (int v = threadIdx.x; v < nv; v += blockDim.x) out[v] = normalised8(z[v], gv[v], rstd, fused);
}

// A row held in registers, shared by the RMSNorm kernels below: thread t of
// the row's kStride threads holds its vectors t, t + kStride, ... (16 bytes
// each, V at most, nv in the row). kStream: Z read and N written with the
// streaming cache hints (evict first).
template <int V, int kStride, bool kStream = false>
__device__ __forceinline__ void load_row(const uint4* z, int t, int nv, uint4 (&q)[V]) {
#pragma unroll
  for (int i = 0; i < V; ++i) {
    const int v = t + kStride * i;
    if (v < nv) q[i] = kStream ? __ldcs(z + v) : z[v];
  }
}
// The thread's squares, its vectors in order.
template <int V, int kStride>
__device__ __forceinline__ float row_squares(const uint4 (&q)[V], int t, int nv) {
  float ss = 0.0f;
#pragma unroll
  for (int i = 0; i < V; ++i) {
    if (t + kStride * i >= nv) break;
    ss = add_squares(ss, q[i]);
  }
  return ss;
}
// The sum over the warp (a butterfly: every lane the same bits).
__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o > 0; o /= 2) v = __fadd_rn(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
// The thread's vectors of N.
template <int V, int kStride, bool kStream = false>
__device__ __forceinline__ void store_row(const uint4 (&q)[V], const uint4* gv, uint4* out, int t, int nv, float rstd, int fused) {
#pragma unroll
  for (int i = 0; i < V; ++i) {
    const int v = t + kStride * i;
    if (v >= nv) break;
    const uint4 o = normalised8(q[i], gv[v], rstd, fused);
    if (kStream) __stcs(out + v, o);
    else out[v] = o;
  }
}

// One warp per row with the row held in registers (V 16-byte vectors per
// lane, L <= 256 V): read once, each lane's squares summed in order, then a
// butterfly over the warp; rows_per_block rows (warps) per block (small
// blocks spread evenly over the SMs). The fast path for L up to 4096.
template <int V>
__global__ void rmsnorm_warp(const bf* Z, int ldz, const bf* g, bf* N, int M, int L, float eps, int fused) {
  allow_dependents();
  const int lane = threadIdx.x % 32, nv = L / 8;
  const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (row >= M) return;
  uint4 q[V];
  load_row<V, 32>(reinterpret_cast<const uint4*>(Z + static_cast<size_t>(row) * ldz), lane, nv, q);
  const float rstd = rstd_of(warp_sum(row_squares<V, 32>(q, lane, nv)), L, eps);
  store_row<V, 32>(q, reinterpret_cast<const uint4*>(g), reinterpret_cast<uint4*>(N + static_cast<size_t>(row) * L), lane, nv,
                   rstd, fused);
}

// The same with each warp taking rows row, row + W, row + 2 W, ... (W the
// grid's warps) and the next row's loads in flight while it reduces and
// writes the one at hand, so that reading and writing overlap in every
// warp; the same order of operations per row, so the same bits. kStream:
// the streaming hints, so that neither Z nor N displaces g or the other
// rows' lines in L2.
template <int V, bool kStream>
__global__ void __launch_bounds__(128) rmsnorm_warp_pipe(const bf* Z, int ldz, const bf* g, bf* N, int M, int L, float eps,
                                                          int fused) {
  allow_dependents();
  const int lane = threadIdx.x % 32, nv = L / 8, warps = static_cast<int>(gridDim.x * (blockDim.x / 32));
  const uint4* gv = reinterpret_cast<const uint4*>(g);
  int row = static_cast<int>(blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32);
  uint4 q[V];
  if (row < M) load_row<V, 32, kStream>(reinterpret_cast<const uint4*>(Z + static_cast<size_t>(row) * ldz), lane, nv, q);
  while (row < M) {
    const int next = row + warps;
    uint4 qn[V];
    if (next < M) load_row<V, 32, kStream>(reinterpret_cast<const uint4*>(Z + static_cast<size_t>(next) * ldz), lane, nv, qn);
    const float rstd = rstd_of(warp_sum(row_squares<V, 32>(q, lane, nv)), L, eps);
    store_row<V, 32, kStream>(q, gv, reinterpret_cast<uint4*>(N + static_cast<size_t>(row) * L), lane, nv, rstd, fused);
#pragma unroll
    for (int i = 0; i < V; ++i) q[i] = qn[i];
    row = next;
  }
}

// A block of kT threads (256 or 512) a row, the row held in registers (VPT
// 16-byte vectors a thread, L up to 8 kT VPT): each thread's squares in
// order, a butterfly over each warp, then the warps' sums in warp order
// (every thread the same). More threads a row than the warp kernels: more
// rows' loads in flight at large M with few registers a thread. Launched as
// a programmatic dependent (NormKernel::pdl), it waits for the kernel before
// it before it reads Z; the next kernel's weight (pf, pf_bytes) is brought
// into L2 before that wait.
// Blocks past the M rows (a launch given more, for the prefetch) only
// prefetch.
template <int VPT, int kT>
__global__ void __launch_bounds__(kT) rmsnorm_block_row(const bf* Z, int ldz, const bf* g, bf* N, int M, int L, float eps,
                                                        int fused, const void* pf, size_t pf_bytes) {
  allow_dependents();
  prefetch_l2(pf, pf_bytes);
  if (static_cast<int>(blockIdx.x) >= M) return;
  wait_dependencies();
  constexpr int kW = kT / 32;
  const int tid = static_cast<int>(threadIdx.x), lane = tid % 32, warp = tid / 32, nv = L / 8;
  uint4 q[VPT];
  load_row<VPT, kT>(reinterpret_cast<const uint4*>(Z + static_cast<size_t>(blockIdx.x) * ldz), tid, nv, q);
  const float ss = warp_sum(row_squares<VPT, kT>(q, tid, nv));
  __shared__ float part[kW];
  if (lane == 0) part[warp] = ss;
  __syncthreads();
  float t = part[0];
#pragma unroll
  for (int w = 1; w < kW; ++w) t = __fadd_rn(t, part[w]);
  store_row<VPT, kT>(q, reinterpret_cast<const uint4*>(g), reinterpret_cast<uint4*>(N + static_cast<size_t>(blockIdx.x) * L), tid,
                     nv, rstd_of(t, L, eps), fused);
}

// Tier 0's fused collective: block (m, r - lo) makes row m of rank r's N and
// of its S shard. The reduced row of Z is kept in shared memory (bf16, as
// the all-reduce rounds it) between the sum and the normalisation.
__device__ bf lamport_take(bf v, bool sanitise, long long idx, long long* stuck) {
  if (__bfloat16_as_ushort(v) != kNegZero) return v;
  if (sanitise) return __ushort_as_bfloat16(0);  // the writer turned its -0 into +0 before publishing
  atomicMin(reinterpret_cast<unsigned long long*>(stuck), static_cast<unsigned long long>(idx));
  return v;
}

__global__ void tier0_collective_k(const bf* const* R, const bf* const* S, const bf* g, bf* const* N, bf* const* Ssh,
                                   int T, int lo, int M, int L, int H, int ring, int fused, float eps, Terms t,
                                   int sanitise, long long* stuck) {
  allow_dependents();
  extern __shared__ bf zrow[];
  const int m = blockIdx.x, rk = lo + static_cast<int>(blockIdx.y), Hs = H / T;
  const size_t nR = static_cast<size_t>(M) * L, nS = static_cast<size_t>(M) * H;
  const long long per_rank = static_cast<long long>(nR + nS);
  float ss = 0.0f;
  for (int k = threadIdx.x; k < L; k += blockDim.x) {
    const size_t e = static_cast<size_t>(m) * L + k;
    const bf z = sum_ordered([&](int q) { return f(lamport_take(R[q][e], sanitise, q * per_rank + static_cast<long long>(e), stuck)); },
                             T, ring, ring ? chunk_of(e, nR, T) : 0, t);
    zrow[k] = z;
    ss = __fadd_rn(ss, __fmul_rn(f(z), f(z)));
  }
  const float tot = block_sum(ss);  // its __syncthreads also publishes zrow
  const float rstd = rstd_of(tot, L, eps);
  bf* out = N[rk] + static_cast<size_t>(m) * L;
  for (int k = threadIdx.x; k < L; k += blockDim.x) {
    out[k] = g ? normalised(f(zrow[k]), rstd, f(g[k]), fused) : zrow[k];  // no g: Z itself, normalised by its reader
  }
  bf* sh = Ssh[rk] + static_cast<size_t>(m) * Hs;
  for (int j = threadIdx.x; j < Hs; j += blockDim.x) {
    const size_t e = static_cast<size_t>(m) * H + static_cast<size_t>(rk) * Hs + j;
    sh[j] = sum_ordered([&](int q) { return f(lamport_take(S[q][e], sanitise, q * per_rank + static_cast<long long>(nR + e), stuck)); },
                        T, ring, rk, t);  // ring: shard r's chunk starts at rank r + 1
  }
}

// The same with 16-byte loads, for T <= 16 and L, H / T multiples of 8: a
// thread loads one 8-element vector from every rank at once (all in flight),
// then adds them element by element in the contract's order.
template <int MAXT>
__device__ void load_ranks(const bf* const* B, int T, size_t e0, uint4 (&x)[MAXT]) {
#pragma unroll
  for (int q = 0; q < MAXT; ++q)
    if (q < T) x[q] = *reinterpret_cast<const uint4*>(B[q] + e0);
}

// Element k of every rank's vector, summed in the contract's order.
template <int MAXT>
__device__ bf sum_vec(const uint4 (&x)[MAXT], int k, int T, int ring, int c, Terms t, int sanitise, long long base,
                      long long per_rank, long long* stuck) {
  return sum_ordered(
      [&](int q) {
        uint4 xq;
#pragma unroll
        for (int j = 0; j < MAXT; ++j)
          if (j == q) xq = x[j];  // registers, not local memory: a static index
        return f(lamport_take(reinterpret_cast<const bf*>(&xq)[k], sanitise, q * per_rank + base, stuck));
      },
      T, ring, c, t);
}

template <int MAXT>
__global__ void __launch_bounds__(512) tier0_collective_vec(const bf* const* R, const bf* const* S, const bf* g, bf* const* N, bf* const* Ssh, int T,
                                     int lo, int M, int L, int H, int ring, int fused, float eps, Terms t, int sanitise,
                                     long long* stuck) {
  allow_dependents();
  extern __shared__ __align__(16) bf zrow_v[];
  const int m = blockIdx.x, rk = lo + static_cast<int>(blockIdx.y), Hs = H / T;
  const size_t nR = static_cast<size_t>(M) * L, nS = static_cast<size_t>(M) * H;
  const long long per_rank = static_cast<long long>(nR + nS);
  float ss = 0.0f;
  for (int v = threadIdx.x; v < L / 8; v += blockDim.x) {
    const size_t e0 = static_cast<size_t>(m) * L + static_cast<size_t>(v) * 8;
    uint4 x[MAXT];
    load_ranks<MAXT>(R, T, e0, x);
    uint4 o;
    bf* z = reinterpret_cast<bf*>(&o);
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const size_t e = e0 + k;
      z[k] = sum_vec<MAXT>(x, k, T, ring, ring ? chunk_of(e, nR, T) : 0, t, sanitise, static_cast<long long>(e), per_rank, stuck);
      ss = __fadd_rn(ss, __fmul_rn(f(z[k]), f(z[k])));
    }
    reinterpret_cast<uint4*>(zrow_v)[v] = o;
  }
  const float tot = block_sum(ss);  // its __syncthreads also publishes zrow_v
  const float rstd = rstd_of(tot, L, eps);
  uint4* out = reinterpret_cast<uint4*>(N[rk] + static_cast<size_t>(m) * L);
  const uint4* gv = reinterpret_cast<const uint4*>(g);
  for (int v = threadIdx.x; v < L / 8; v += blockDim.x) {
    const uint4 zq = reinterpret_cast<const uint4*>(zrow_v)[v];
    if (!g) {  // Z itself, normalised by its reader
      out[v] = zq;
      continue;
    }
    out[v] = normalised8(zq, gv[v], rstd, fused);
  }
  uint4* sh = reinterpret_cast<uint4*>(Ssh[rk] + static_cast<size_t>(m) * Hs);
  for (int v = threadIdx.x; v < Hs / 8; v += blockDim.x) {
    const size_t e0 = static_cast<size_t>(m) * H + static_cast<size_t>(rk) * Hs + static_cast<size_t>(v) * 8;
    uint4 x[MAXT];
    load_ranks<MAXT>(S, T, e0, x);
    uint4 o;
    bf* y = reinterpret_cast<bf*>(&o);
#pragma unroll
    for (int k = 0; k < 8; ++k)  // ring: shard r's chunk starts at rank r + 1
      y[k] = sum_vec<MAXT>(x, k, T, ring, rk, t, sanitise, static_cast<long long>(nR + e0 + k), per_rank, stuck);
    sh[v] = o;
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
    dst[i * ldd + j] = out_round(src[i * lds + j], nnz);
  }
}

__global__ void clear_neg_zero_k(bf* y, int ld, int rows, int cols) {
  const size_t n = static_cast<size_t>(rows) * cols;
  for (size_t e = blockIdx.x * size_t(blockDim.x) + threadIdx.x; e < n; e += size_t(gridDim.x) * blockDim.x) {
    bf& v = y[e / cols * ld + e % cols];
    if (__bfloat16_as_ushort(v) == 0x8000u) v = __ushort_as_bfloat16(0);
  }
}

__global__ void add_round_k(bf* y, const bf* b, size_t n) {
  for (size_t e = blockIdx.x * size_t(blockDim.x) + threadIdx.x; e < n; e += size_t(gridDim.x) * blockDim.x)
    y[e] = r(__fadd_rn(f(y[e]), f(b[e])));
}

// The mutant gemm-round-then-add: y = bf16(float(bf16(prod)) + float(add)),
// two roundings; add may be y itself (each element read before it is written).
__global__ void round_then_add_k(const float* prod, int ldp, const bf* add, int lda, bf* y, int ldy, int rows, int cols,
                                 int nnz) {
  const size_t n = static_cast<size_t>(rows) * cols;
  for (size_t e = blockIdx.x * size_t(blockDim.x) + threadIdx.x; e < n; e += size_t(gridDim.x) * blockDim.x) {
    const size_t i = e / cols, j = e % cols;
    const float a = add ? f(add[i * lda + j]) : -0.0f;  // no addend: x + -0 = x, -0 kept
    y[i * ldy + j] = out_round(__fadd_rn(f(r(prod[i * ldp + j])), a), nnz);
  }
}

__global__ void fill_k(bf* p, size_t n, unsigned short bits) {
  for (size_t e = blockIdx.x * size_t(blockDim.x) + threadIdx.x; e < n; e += size_t(gridDim.x) * blockDim.x)
    p[e] = __ushort_as_bfloat16(bits);
}

__global__ void concat_k(const bf* R, const bf* S, bf* X, int M, int L, int H) {
  const size_t w = static_cast<size_t>(L) + H, n = static_cast<size_t>(M) * w;
  for (size_t e = blockIdx.x * size_t(blockDim.x) + threadIdx.x; e < n; e += size_t(gridDim.x) * blockDim.x) {
    const size_t i = e / w, j = e % w;
    X[e] = j < static_cast<size_t>(L) ? R[i * L + j] : S[i * H + (j - L)];
  }
}

__device__ __forceinline__ bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }
// Rank q's shard row i, columns j.. j+V-1, into every receive buffer d
// (row i, columns q w + j..), for the ranks q in [q_lo, q_hi) but skip: V
// elements a thread, w a multiple of V (V 8: 16 bytes, one at a time where
// an address is not 16-byte aligned).
template <int V>
__global__ void lamport_publish_k(const bf* const* in, bf* const* dst, int n_dst, int T, int q_lo, int q_hi, int rows, int w,
                                  int skip) {
  const int nq = q_hi - q_lo, wv = w / V;
  const size_t ld = static_cast<size_t>(T) * w, n = static_cast<size_t>(n_dst) * rows * nq * wv;
  for (size_t e = blockIdx.x * size_t(blockDim.x) + threadIdx.x; e < n; e += size_t(gridDim.x) * blockDim.x) {
    size_t x = e;
    const size_t j = V * (x % wv);
    x /= wv;
    const int q = q_lo + static_cast<int>(x % nq);
    x /= nq;
    const size_t i = x % rows;
    const int d = static_cast<int>(x / rows);
    if (q == skip) continue;
    const bf* src = in[q] + i * w + j;
    bf* to = dst[d] + i * ld + static_cast<size_t>(q) * w + j;
    if (V == 8 && aligned16(src) && aligned16(to)) *reinterpret_cast<uint4*>(to) = *reinterpret_cast<const uint4*>(src);
    else
      for (int k = 0; k < V; ++k) to[k] = src[k];
  }
}

// One receive slot of a Lamport reader: it waits for the slot to leave -0 (a
// bounded number of polls when every publisher is known to be done, else
// until spin_ns pass or another slot is already reported: one wait, not one
// a slot), then copies it to dst, or reports index idx as stuck.
__device__ void read_slot(const bf* src, bf* dst, size_t idx, long long* stuck, unsigned long long spin_ns) {
  const volatile unsigned short* slot = reinterpret_cast<const volatile unsigned short*>(src);
  unsigned short v = *slot;
  if (spin_ns == 0)
    for (int spin = 0; v == kNegZero && spin < 1000; ++spin) v = *slot;
  else
    for (const unsigned long long t0 = now_ns();
         v == kNegZero && now_ns() - t0 < spin_ns && *reinterpret_cast<volatile long long*>(stuck) < 0;)
      v = *slot;
  if (v == kNegZero) atomicMin(reinterpret_cast<unsigned long long*>(stuck), static_cast<unsigned long long>(idx));
  else *dst = __ushort_as_bfloat16(v);
}

__global__ void lamport_read_k(const bf* const* recv, bf* const* out, int lo, int hi, size_t n, long long* stuck,
                               unsigned long long spin_ns) {
  const size_t total = n * static_cast<size_t>(hi - lo);
  for (size_t x = blockIdx.x * size_t(blockDim.x) + threadIdx.x; x < total; x += size_t(gridDim.x) * blockDim.x) {
    const int q = lo + static_cast<int>(x / n);
    const size_t e = x % n;
    read_slot(recv[q] + e, out[q] + e, e, stuck, spin_ns);
  }
}

__device__ __forceinline__ uint4 load_volatile(const uint4* p) {
  uint4 v;
  asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(__cvta_generic_to_global(p))
               : "memory");
  return v;
}
__device__ __forceinline__ bool any_neg_zero(const uint4& v) {
  const unsigned u[4] = {v.x, v.y, v.z, v.w};
  bool any = false;
#pragma unroll
  for (int k = 0; k < 4; ++k) any |= (u[k] & 0xffffu) == kNegZero || (u[k] >> 16) == kNegZero;
  return any;
}

// The same, 8 slots (16 bytes) a thread: n a multiple of 8. A vector waits
// while any of its slots is -0, under the same bounds; then the slots still
// -0 are reported (the least index over all, as one a thread) and the rest
// copied. Slots whose addresses are not 16-byte aligned go one at a time.
__global__ void lamport_read_vec_k(const bf* const* recv, bf* const* out, int lo, int hi, size_t nv, long long* stuck,
                                   unsigned long long spin_ns) {
  const size_t total = nv * static_cast<size_t>(hi - lo);
  for (size_t x = blockIdx.x * size_t(blockDim.x) + threadIdx.x; x < total; x += size_t(gridDim.x) * blockDim.x) {
    const int q = lo + static_cast<int>(x / nv);
    const size_t e = 8 * (x % nv);
    const bf* src = recv[q] + e;
    bf* dst = out[q] + e;
    if (!aligned16(src) || !aligned16(dst)) {
      for (int k = 0; k < 8; ++k) read_slot(src + k, dst + k, e + k, stuck, spin_ns);
      continue;
    }
    const uint4* slot = reinterpret_cast<const uint4*>(src);
    uint4 v = load_volatile(slot);
    if (spin_ns == 0)
      for (int spin = 0; any_neg_zero(v) && spin < 1000; ++spin) v = load_volatile(slot);
    else
      for (const unsigned long long t0 = now_ns();
           any_neg_zero(v) && now_ns() - t0 < spin_ns && *reinterpret_cast<volatile long long*>(stuck) < 0;)
        v = load_volatile(slot);
    if (!any_neg_zero(v)) {
      *reinterpret_cast<uint4*>(dst) = v;
      continue;
    }
    const unsigned short* h = reinterpret_cast<const unsigned short*>(&v);
    for (int k = 0; k < 8; ++k) {
      if (h[k] == kNegZero) atomicMin(reinterpret_cast<unsigned long long*>(stuck), static_cast<unsigned long long>(e + k));
      else dst[k] = __ushort_as_bfloat16(h[k]);
    }
  }
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

__global__ void device_fence_k(unsigned long long* const* flags, int procs, int pid, unsigned long long epoch,
                               unsigned long long limit_ns, int* failed) {
  __threadfence_system();  // this stream's earlier writes, to peers' memory too, visible before the flag
  for (int q = 0; q < procs; ++q)
    if (q != pid) *reinterpret_cast<volatile unsigned long long*>(&flags[q][pid]) = epoch;
  const volatile unsigned long long* mine = flags[pid];
  const unsigned long long t0 = now_ns();
  for (int q = 0; q < procs; ++q) {
    if (q == pid) continue;
    while (mine[q] < epoch)
      if (now_ns() - t0 > limit_ns) {
        atomicExch(failed, q + 1);
        return;
      }
  }
  __threadfence_system();
}

}  // namespace

Status device_fence(unsigned long long* const* flags, int procs, int pid, unsigned long long epoch, double limit_s,
                    int* failed, cudaStream_t s) {
  device_fence_k<<<1, 1, 0, s>>>(flags, procs, pid, epoch, static_cast<unsigned long long>(limit_s * 1e9), failed);
  LTT_LAUNCHED();
  return {};
}

Status lamport_race(const bf* const* in, bf* recv, bf* const* out, int T, int rows, int w, cudaStream_t s) {
  lamport_race_k<<<blocks_for(static_cast<size_t>(rows) * T * w), kThreads, 0, s>>>(in, recv, out, T, rows, w);
  LTT_LAUNCHED();
  return {};
}

Status allreduce(const bf* const* in, bf* const* out, int T, int lo, int hi, size_t n, Algo algo, cudaStream_t s,
                 Terms terms) {
  if (n % 8 == 0)
    allreduce_vec_k<<<blocks_for(n / 8), kThreads, 0, s>>>(in, out, T, lo, hi, n, algo == Algo::ring, terms);
  else
    allreduce_k<<<blocks_for(n), kThreads, 0, s>>>(in, out, T, lo, hi, n, algo == Algo::ring, terms);
  LTT_LAUNCHED();
  return {};
}

bool kernels_wait_for_programmatic_launch() {
  cudaFuncAttributes a{};
  if (cudaFuncGetAttributes(&a, rmsnorm_block_row<2, 256>) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return a.ptxVersion >= 90;  // the architecture the device's code was compiled for (allow_dependents(), wait_dependencies())
}

namespace {
// A prefetch the bulk copy unit takes: 16-byte aligned, a multiple of 16 bytes.
Status check_prefetch(const L2Prefetch& pf, const char* who) {
  if (pf.p && (reinterpret_cast<uintptr_t>(pf.p) % 16 != 0 || pf.bytes % 16 != 0))
    return LTT_ERR(Errc::internal, who, ": an L2 prefetch needs a 16-byte aligned address and a multiple of 16 bytes (",
                   pf.bytes, " bytes at ", pf.p, ")");
  return {};
}
}  // namespace

Status tier0_collective(const bf* const* R, const bf* const* S, const bf* g, bf* const* N, bf* const* Ssh, int T, int lo,
                        int hi, int M, int L, int H, Algo algo, NormOrder order, float eps, Terms terms, bool sanitise,
                        long long* stuck, cudaStream_t s) {
  const dim3 grid(static_cast<unsigned>(M), static_cast<unsigned>(hi - lo));
  const size_t smem = sizeof(bf) * static_cast<size_t>(L);
  if (smem > 48 * 1024) return LTT_ERR(Errc::internal, "tier0_collective: L = ", L, " needs more than 48 KB of shared memory");
  const int Hs = H / T;
  if (T <= 16 && L % 8 == 0 && Hs % 8 == 0 && H % 8 == 0)  // 16-byte loads (cudaMalloc'd rank buffers are aligned)
    tier0_collective_vec<16><<<grid, 512, smem, s>>>(R, S, g, N, Ssh, T, lo, M, L, H, algo == Algo::ring,
                                                    order == NormOrder::fused, eps, terms, sanitise, stuck);
  else
    tier0_collective_k<<<grid, kThreads, smem, s>>>(R, S, g, N, Ssh, T, lo, M, L, H, algo == Algo::ring,
                                                     order == NormOrder::fused, eps, terms, sanitise, stuck);
  LTT_LAUNCHED();
  return {};
}

Status rmsnorm(const bf* Z, int ldz, const bf* g, bf* N, int M, int L, float eps, NormOrder order, cudaStream_t s,
               NormKernel k) {
  const auto aligned = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
  const int fused = order == NormOrder::fused;
  const bool vec = L % 8 == 0 && ldz % 8 == 0 && aligned(Z) && aligned(g) && aligned(N);
  const unsigned rows = static_cast<unsigned>(M);
  if (vec && k.block_row < 0 && k.warp_rows_per_block <= 0 && L <= 4096)
    k.block_row = 1;  // the default (bench/results/h200.md: 30.4 against 35.0 us at M 8192, 2.0 against 4.8 at M 1)
  if (vec && k.block_row > 0 && L <= 4096) {
    const bool pdl = k.pdl;
    LTT_TRY(check_prefetch(k.prefetch, "rmsnorm"));
    const void* pf = k.prefetch.p;
    const size_t pfb = k.prefetch.bytes;
    // Few rows: more blocks, which only prefetch, so that many SMs share the pieces.
    const unsigned grid = pf ? std::max(rows, prefetch_blocks(pfb, std::max(1, device_caps().sms))) : rows;
    if (k.block_threads == 512 && L <= 4096)
      return launch(rmsnorm_block_row<1, 512>, grid, 512, pdl, s, Z, ldz, g, N, M, L, eps, fused, pf, pfb);
    if (L <= 2048)
      return launch(rmsnorm_block_row<1, 256>, grid, 256, pdl, s, Z, ldz, g, N, M, L, eps, fused, pf, pfb);
    return launch(rmsnorm_block_row<2, 256>, grid, 256, pdl, s, Z, ldz, g, N, M, L, eps, fused, pf, pfb);
  }
  if (k.prefetch.p)
    return LTT_ERR(Errc::internal, "rmsnorm: a prefetch is the block-a-row kernel's option (L a multiple of 8, up to 4096, "
                                   "16-byte aligned rows)");
  if (vec && k.warp_rows_per_block <= 0 && L <= 256 * 14) {
    // A warp a row (rows_per_warp: about that many), 4 warps a block; faster
    // than the one-pass warp kernel's block shapes below (bench/results/h200.md).
    const int rpw = k.rows_per_warp > 0 ? k.rows_per_warp : 1;
    const unsigned blocks = static_cast<unsigned>(std::max(1, (M + 4 * rpw - 1) / (4 * rpw)));
    if (L <= 256 * 4)
      rmsnorm_warp_pipe<4, false><<<blocks, 128, 0, s>>>(Z, ldz, g, N, M, L, eps, fused);
    else if (L <= 256 * 8)
      rmsnorm_warp_pipe<8, false><<<blocks, 128, 0, s>>>(Z, ldz, g, N, M, L, eps, fused);
    else if (k.streaming)
      rmsnorm_warp_pipe<14, true><<<blocks, 128, 0, s>>>(Z, ldz, g, N, M, L, eps, fused);
    else
      rmsnorm_warp_pipe<14, false><<<blocks, 128, 0, s>>>(Z, ldz, g, N, M, L, eps, fused);
  } else if (vec && L <= 256 * 16) {
    // <= 256 threads a block: the 16-vector variant's registers
    const int rpb = k.warp_rows_per_block > 0 && k.warp_rows_per_block <= 8 ? k.warp_rows_per_block : 2;
    const unsigned blocks = static_cast<unsigned>((M + rpb - 1) / rpb), threads = static_cast<unsigned>(32 * rpb);
    if (L <= 256 * 4)
      rmsnorm_warp<4><<<blocks, threads, 0, s>>>(Z, ldz, g, N, M, L, eps, fused);
    else if (L <= 256 * 8)
      rmsnorm_warp<8><<<blocks, threads, 0, s>>>(Z, ldz, g, N, M, L, eps, fused);
    else
      rmsnorm_warp<16><<<blocks, threads, 0, s>>>(Z, ldz, g, N, M, L, eps, fused);
  } else if (vec)
    rmsnorm_rows_vec<<<rows, kThreads, 0, s>>>(Z, ldz, g, N, L, eps, fused);
  else
    rmsnorm_rows<<<rows, kThreads, 0, s>>>(Z, ldz, g, N, L, eps, fused);
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

Status clear_neg_zero(bf* y, int ld, int rows, int cols, cudaStream_t s) {
  clear_neg_zero_k<<<blocks_for(static_cast<size_t>(rows) * cols), kThreads, 0, s>>>(y, ld, rows, cols);
  LTT_LAUNCHED();
  return {};
}

Status add_round(bf* y, const bf* b, size_t n, cudaStream_t s) {
  add_round_k<<<blocks_for(n), kThreads, 0, s>>>(y, b, n);
  LTT_LAUNCHED();
  return {};
}

Status round_then_add(const float* prod, int ldp, const bf* add, int ld_add, bf* y, int ldy, int rows, int cols,
                      bool no_neg_zero, cudaStream_t s) {
  round_then_add_k<<<blocks_for(static_cast<size_t>(rows) * cols), kThreads, 0, s>>>(prod, ldp, add, ld_add, y, ldy, rows,
                                                                                      cols, no_neg_zero);
  LTT_LAUNCHED();
  return {};
}

Status fill(bf* p, size_t n, uint16_t bits, cudaStream_t s) {
  fill_k<<<blocks_for(n), kThreads, 0, s>>>(p, n, bits);
  LTT_LAUNCHED();
  return {};
}

Status concat(const bf* R, const bf* S, bf* X, int M, int L, int H, cudaStream_t s) {
  concat_k<<<blocks_for(static_cast<size_t>(M) * (L + H)), kThreads, 0, s>>>(R, S, X, M, L, H);
  LTT_LAUNCHED();
  return {};
}

Status lamport_publish(const bf* const* in, bf* const* dst, int n_dst, int T, int q_lo, int q_hi, int rows, int w,
                       cudaStream_t s, int skip) {
  const size_t n = static_cast<size_t>(n_dst) * rows * (q_hi - q_lo) * w;
  if (w % 8 == 0)
    lamport_publish_k<8><<<blocks_for(n / 8), kThreads, 0, s>>>(in, dst, n_dst, T, q_lo, q_hi, rows, w, skip);
  else
    lamport_publish_k<1><<<blocks_for(n), kThreads, 0, s>>>(in, dst, n_dst, T, q_lo, q_hi, rows, w, skip);
  LTT_LAUNCHED();
  return {};
}

Status lamport_read(const bf* const* recv, bf* const* out, int lo, int hi, size_t n, long long* stuck, cudaStream_t s,
                    double spin_s) {
  const unsigned long long spin_ns = static_cast<unsigned long long>(spin_s * 1e9);
  if (n % 8 == 0)
    lamport_read_vec_k<<<blocks_for(n / 8 * static_cast<size_t>(hi - lo)), kThreads, 0, s>>>(recv, out, lo, hi, n / 8, stuck,
                                                                                           spin_ns);
  else
    lamport_read_k<<<blocks_for(n * static_cast<size_t>(hi - lo)), kThreads, 0, s>>>(recv, out, lo, hi, n, stuck, spin_ns);
  LTT_LAUNCHED();
  return {};
}

}  // namespace ltt::gpu
