// Does cublasLtMatmul give the same bits in place (C == D, one descriptor)
// as out of place, algorithm by algorithm? And where it does not, are the
// in-place outputs bf16(bf16(A B^T) + C), the product rounded before the
// addend is added (two roundings where the call promises one)?
//
// D = A B^T + C with bf16 A [M, K], B [n, K], C and D [M, n] in rows `ld`
// apart, fp32 accumulation and scale, alpha = beta = 1: the call torch.addmm
// makes, and tier 2's (rank r's own columns of P_r: n = H / T, ld = H).
// Standalone on purpose: cuBLASLt and the CUDA runtime only, no ltt code,
// so that what it prints can be checked by anyone (bench/results/h200.md,
// sixteenth session). For every algorithm the heuristic lists for the
// in-place descriptors it runs
//   out of place: C in one buffer, D in another (both rows ld apart);
//   in place:     D preset to C, then C == D (twice: is it deterministic?);
//   the product:  beta 0, the same algorithm: P = bf16(A B^T) as it sums;
// and prints how many outputs differ between the two calls, and how many of
// the in-place outputs equal bf16(P + C) (rounded to nearest even here).
// Then the same with compact rows (ld = n).
//
// Usage: ltt_lt_inplace [M n K ld [seed]]; default 33 896 3584 7168 0.
// Exit 0 when every algorithm gives the same bits both ways (and the same
// bits twice in place, nothing written between rows), 1 when one does not,
// 2 on bad arguments or a CUDA / cuBLAS error.
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

#define CK_CUDA(x)                                                                                   \
  do {                                                                                               \
    const cudaError_t e_ = (x);                                                                      \
    if (e_ != cudaSuccess) {                                                                         \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));       \
      std::exit(2);                                                                                  \
    }                                                                                                \
  } while (0)
#define CK_LT(x)                                                                                      \
  do {                                                                                                \
    const cublasStatus_t e_ = (x);                                                                    \
    if (e_ != CUBLAS_STATUS_SUCCESS) {                                                                \
      std::fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #x, static_cast<int>(e_)); \
      std::exit(2);                                                                                   \
    }                                                                                                 \
  } while (0)

using bf = __nv_bfloat16;
constexpr size_t kWorkspace = size_t{32} << 20;

uint16_t bits(bf x) {
  uint16_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}
// Round to nearest even, as a single rounding of an fp32 sum would.
bf to_bf(float f) { return __float2bfloat16_rn(f); }
float to_f(bf x) { return __bfloat162float(x); }
// Distance in bf16 steps (monotone integer order of the bit patterns).
long steps(bf x, bf y) {
  auto key = [](uint16_t u) { return (u & 0x8000) ? -static_cast<long>(u & 0x7fff) : static_cast<long>(u); };
  return std::labs(key(bits(x)) - key(bits(y)));
}

struct Rng {  // splitmix64: the data depends on the seed alone
  uint64_t s;
  double uniform() {  // [-1, 1)
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return static_cast<double>(z >> 11) * 0x1.0p-52 - 1.0;
  }
};

struct Layouts {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, cd = nullptr;
  Layouts(int M, int n, int K, int ld) {
    // cuBLASLt is column-major: the row-major D [M, n] (rows ld apart) is
    // D^T [n, M] with leading dimension ld, and D^T = B A^T: cuBLASLt's first
    // operand is B (stored [K, n] column-major, transposed), its second A.
    CK_LT(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    CK_LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    CK_LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    CK_LT(cublasLtMatrixLayoutCreate(&a, CUDA_R_16BF, static_cast<uint64_t>(K), static_cast<uint64_t>(n), K));
    CK_LT(cublasLtMatrixLayoutCreate(&b, CUDA_R_16BF, static_cast<uint64_t>(K), static_cast<uint64_t>(M), K));
    CK_LT(cublasLtMatrixLayoutCreate(&cd, CUDA_R_16BF, static_cast<uint64_t>(n), static_cast<uint64_t>(M), ld));
  }
  ~Layouts() {
    cublasLtMatrixLayoutDestroy(cd);
    cublasLtMatrixLayoutDestroy(b);
    cublasLtMatrixLayoutDestroy(a);
    cublasLtMatmulDescDestroy(op);
  }
};

template <class V>
V cfg(const cublasLtMatmulAlgo_t& a, cublasLtMatmulAlgoConfigAttributes_t attr) {
  V v{};
  size_t got = 0;
  cublasLtMatmulAlgoConfigGetAttribute(&a, attr, &v, sizeof v, &got);
  return v;
}

std::string describe(const cublasLtMatmulAlgo_t& a) {
  char s[256];
  std::snprintf(s, sizeof s, "id %d, tile %u, stages %u, cluster %u, swizzle %u, custom %u, split-K %d",
                cfg<int32_t>(a, CUBLASLT_ALGO_CONFIG_ID), cfg<uint32_t>(a, CUBLASLT_ALGO_CONFIG_TILE_ID),
                cfg<uint32_t>(a, CUBLASLT_ALGO_CONFIG_STAGES_ID), static_cast<unsigned>(cfg<uint16_t>(a, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID)),
                cfg<uint32_t>(a, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING), cfg<uint32_t>(a, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION),
                std::max(1, cfg<int32_t>(a, CUBLASLT_ALGO_CONFIG_SPLITK_NUM)));
  return s;
}

// One layout (rows ld apart), every listed algorithm; returns how many differ.
int run_layout(cublasLtHandle_t h, int M, int n, int K, int ld, const std::vector<bf>& hA, const std::vector<bf>& hB,
               const std::vector<bf>& hC) {
  const size_t out_elems = static_cast<size_t>(M - 1) * static_cast<size_t>(ld) + static_cast<size_t>(n);
  bf *A, *B, *C, *D;
  void* ws;
  CK_CUDA(cudaMalloc(&A, hA.size() * sizeof(bf)));
  CK_CUDA(cudaMalloc(&B, hB.size() * sizeof(bf)));
  CK_CUDA(cudaMalloc(&C, out_elems * sizeof(bf)));
  CK_CUDA(cudaMalloc(&D, out_elems * sizeof(bf)));
  CK_CUDA(cudaMalloc(&ws, kWorkspace));
  CK_CUDA(cudaMemcpy(A, hA.data(), hA.size() * sizeof(bf), cudaMemcpyHostToDevice));
  CK_CUDA(cudaMemcpy(B, hB.data(), hB.size() * sizeof(bf), cudaMemcpyHostToDevice));
  // C in its rows ld apart; the gaps between rows hold a marker that no output may take.
  std::vector<bf> hCl(out_elems, to_bf(12345.0f));
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < n; ++j) hCl[static_cast<size_t>(i) * ld + j] = hC[static_cast<size_t>(i) * n + j];
  CK_CUDA(cudaMemcpy(C, hCl.data(), out_elems * sizeof(bf), cudaMemcpyHostToDevice));

  Layouts L(M, n, K, ld);
  cublasLtMatmulPreference_t pref;
  CK_LT(cublasLtMatmulPreferenceCreate(&pref));
  const uint64_t wsb = kWorkspace;
  CK_LT(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsb, sizeof wsb));
  std::vector<cublasLtMatmulHeuristicResult_t> res(32);
  int got = 0;
  CK_LT(cublasLtMatmulAlgoGetHeuristic(h, L.op, L.a, L.b, L.cd, L.cd, pref, 32, res.data(), &got));
  cublasLtMatmulPreferenceDestroy(pref);
  std::printf("M %d, n %d, K %d, rows %d apart: the heuristic lists %d algorithms\n", M, n, K, ld, got);

  const float one = 1.0f, zero = 0.0f;
  std::vector<bf> oop(out_elems), ip(out_elems), ip2(out_elems), prod(out_elems);
  auto call = [&](const cublasLtMatmulAlgo_t& algo, const float* beta, const bf* c, bf* d) {
    CK_LT(cublasLtMatmul(h, L.op, &one, B, L.a, A, L.b, beta, c, L.cd, d, L.cd, &algo, ws, kWorkspace, nullptr));
    CK_CUDA(cudaDeviceSynchronize());
  };
  auto fetch = [&](std::vector<bf>& v) {
    CK_CUDA(cudaMemcpy(v.data(), D, out_elems * sizeof(bf), cudaMemcpyDeviceToHost));
  };
  int differing = 0;
  for (int k = 0; k < got; ++k) {
    if (res[static_cast<size_t>(k)].state != CUBLAS_STATUS_SUCCESS) {
      std::printf("  [%d] skipped: the heuristic's state for it is cuBLAS status %d\n", k,
                  static_cast<int>(res[static_cast<size_t>(k)].state));
      continue;
    }
    const cublasLtMatmulAlgo_t& algo = res[static_cast<size_t>(k)].algo;
    CK_CUDA(cudaMemset(D, 0xff, out_elems * sizeof(bf)));  // NaN: an unwritten output shows
    call(algo, &one, C, D);
    fetch(oop);
    CK_CUDA(cudaMemcpy(D, C, out_elems * sizeof(bf), cudaMemcpyDeviceToDevice));
    call(algo, &one, D, D);
    fetch(ip);
    CK_CUDA(cudaMemcpy(D, C, out_elems * sizeof(bf), cudaMemcpyDeviceToDevice));
    call(algo, &one, D, D);
    fetch(ip2);
    CK_CUDA(cudaMemset(D, 0xff, out_elems * sizeof(bf)));
    call(algo, &zero, C, D);
    fetch(prod);
    long differ = 0, ip_is_dr = 0, oop_is_dr = 0, differ_ip_is_dr = 0, nondet = 0, gaps = 0, maxsteps = 0;
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < n; ++j) {
        const size_t e = static_cast<size_t>(i) * ld + j;
        const bf dr = to_bf(to_f(prod[e]) + to_f(hCl[e]));
        const bool d = bits(ip[e]) != bits(oop[e]), idr = bits(ip[e]) == bits(dr);
        differ += d;
        ip_is_dr += idr;
        oop_is_dr += bits(oop[e]) == bits(dr);
        differ_ip_is_dr += d && idr;
        nondet += bits(ip[e]) != bits(ip2[e]);
        if (d) maxsteps = std::max(maxsteps, steps(ip[e], oop[e]));
      }
    for (size_t e = 0; e < out_elems; ++e)
      if (static_cast<int>(e % static_cast<size_t>(ld)) >= n)
        gaps += bits(ip[e]) != bits(hCl[e]) || bits(oop[e]) != 0xffff;
    const long total = static_cast<long>(M) * n;
    differing += differ > 0 || nondet > 0 || gaps > 0;  // any of them: not the same bits both ways
    std::printf("  [%d] %s\n      in place vs out of place: %ld of %ld outputs differ (farthest %ld bf16 steps)%s\n"
                "      bf16(bf16(AB) + C), two roundings: in place %ld of %ld, out of place %ld of %ld; of the differing, in place %ld of %ld\n"
                "      in place twice: %ld differ; between rows: %ld written\n",
                k, describe(algo).c_str(), differ, total, maxsteps, differ ? "  <- other bits in place" : "",
                ip_is_dr, total, oop_is_dr, total, differ_ip_is_dr, differ, nondet, gaps);
  }
  CK_CUDA(cudaFree(ws));
  CK_CUDA(cudaFree(D));
  CK_CUDA(cudaFree(C));
  CK_CUDA(cudaFree(B));
  CK_CUDA(cudaFree(A));
  return differing;
}

bool number(const char* s, int& v, long lo) {
  char* end = nullptr;
  const long x = std::strtol(s, &end, 10);
  if (!end || *end || x < lo || x > (1 << 20)) return false;
  v = static_cast<int>(x);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  int M = 33, n = 896, K = 3584, ld = 7168, seed = 0;
  if (argc != 1 && argc != 5 && argc != 6) {
    std::fprintf(stderr, "usage: %s [M n K ld [seed]]  (default 33 896 3584 7168 0: tier 2 at k3, T 8, M 33)\n", argv[0]);
    return 2;
  }
  if (argc >= 5 && (!number(argv[1], M, 1) || !number(argv[2], n, 1) || !number(argv[3], K, 1) || !number(argv[4], ld, 1) || ld < n ||
                    (argc == 6 && !number(argv[5], seed, 0)))) {
    std::fprintf(stderr, "%s: M, n, K, ld must be integers from 1 to 2^20 with ld >= n, the seed from 0 to 2^20\n", argv[0]);
    return 2;
  }
  int dev = 0;
  if (cudaGetDeviceCount(&dev) != cudaSuccess || dev == 0) {
    std::fprintf(stderr, "%s: no CUDA device\n", argv[0]);
    return 2;
  }
  cudaDeviceProp prop{};
  CK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, cuBLASLt %zu, CUDA runtime %d\n", prop.name, cublasLtGetVersion(), CUDART_VERSION);
  // A ~ U[-1, 1), B ~ U[-1, 1) / sqrt(K), C ~ U[-1, 1): product and addend of one size.
  Rng r{static_cast<uint64_t>(seed)};
  std::vector<bf> hA(static_cast<size_t>(M) * K), hB(static_cast<size_t>(n) * K), hC(static_cast<size_t>(M) * n);
  for (auto& x : hA) x = to_bf(static_cast<float>(r.uniform()));
  for (auto& x : hB) x = to_bf(static_cast<float>(r.uniform() / std::sqrt(static_cast<double>(K))));
  for (auto& x : hC) x = to_bf(static_cast<float>(r.uniform()));
  cublasLtHandle_t h;
  CK_LT(cublasLtCreate(&h));
  int differing = run_layout(h, M, n, K, ld, hA, hB, hC);
  if (ld != n) differing += run_layout(h, M, n, K, n, hA, hB, hC);
  cublasLtDestroy(h);
  std::printf("%s\n", differing ? "some algorithms give other bits in place than out of place"
                                : "every algorithm gives the same bits in place as out of place");
  return differing ? 1 : 0;
}
