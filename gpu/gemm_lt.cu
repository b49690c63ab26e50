// The up-projections through cuBLASLt, one chosen algorithm at a time, for
// `ltt check --gemm-algos`: Y = bf16(A B^T + addend) in one cuBLASLt call
// with bf16 operands, addend (C, beta 1) and output (D), fp32 accumulation
// and scale, as torch.addmm and F.linear call it. The algorithms are those
// cuBLASLt's heuristic lists for the case's GEMM (what cuBLAS would pick,
// here or with another device, version or workspace), and the split-K forms
// of those that take one, with every reduction scheme they allow (fp32
// partials, or partials rounded to bf16: more rounding points than the
// contract's one). Which algorithm runs is the process's setting
// (use_gemm_algo); the pipelines ask GpuCtx::addmm, which takes ltt's own
// path (cublasGemmEx into fp32, then ltt's rounding kernel) when none is set.
// Tier 2's addend is its output (rank r's own columns of P_r): the call
// writes a compact output, copied into place after, as torch.addmm does;
// LTT_GEMM_LT_INPLACE=1 runs it in place (C == D, one descriptor), where on
// the H200 with CUDA 13.0 some of the listed algorithms give other outputs
// than they give out of place (bench/results/h200.md, fifteenth session).
#include <cublasLt.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <utility>

#include "ctx.cuh"

namespace ltt::gpu {

namespace {

constexpr int kHeuristicAsk = 32;                 // the heuristic's list, at most this long
constexpr size_t kWorkspace = size_t{32} << 20;   // bytes: the workspace cuBLAS recommends on Hopper
constexpr int kSplits[] = {2, 4, 8, 16};          // the split-K forms tried

// One algorithm of a GEMM's list, and what it is.
struct LtAlgo {
  cublasLtMatmulAlgo_t algo;
  std::string what;  // describe(): a split-K form ltt made begins with kGemmSplitForm
};

struct LtState {
  cublasLtHandle_t h = nullptr;
  DevBuf<unsigned char> ws;
  int algo = -1;  // use_gemm_algo()
  std::vector<std::pair<LtShape, std::vector<LtAlgo>>> lists;  // by GEMM
};
LtState& lt_state() {
  static LtState st;
  return st;
}

// The descriptors of a GEMM (column-major view: D^T [n, M] = B^T [n, K] A^T [K, M]).
struct LtDesc {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr, d = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  LtDesc() = default;
  LtDesc(const LtDesc&) = delete;
  LtDesc& operator=(const LtDesc&) = delete;
  ~LtDesc() {
    if (pref) LTT_CUBLAS_NOTE(cublasLtMatmulPreferenceDestroy(pref));
    for (cublasLtMatrixLayout_t l : {a, b, c, d})
      if (l) LTT_CUBLAS_NOTE(cublasLtMatrixLayoutDestroy(l));
    if (op) LTT_CUBLAS_NOTE(cublasLtMatmulDescDestroy(op));
  }
  Status make(const LtShape& sh) {
    LTT_CUBLAS(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    LTT_CUBLAS(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    LTT_CUBLAS(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    LTT_CUBLAS(cublasLtMatrixLayoutCreate(&a, CUDA_R_16BF, static_cast<uint64_t>(sh.K), static_cast<uint64_t>(sh.n), sh.ldb));
    LTT_CUBLAS(cublasLtMatrixLayoutCreate(&b, CUDA_R_16BF, static_cast<uint64_t>(sh.K), static_cast<uint64_t>(sh.M), sh.lda));
    LTT_CUBLAS(cublasLtMatrixLayoutCreate(&c, CUDA_R_16BF, static_cast<uint64_t>(sh.n), static_cast<uint64_t>(sh.M),
                                          sh.addend ? sh.ld_add : sh.ldy));
    LTT_CUBLAS(cublasLtMatrixLayoutCreate(&d, CUDA_R_16BF, static_cast<uint64_t>(sh.n), static_cast<uint64_t>(sh.M), sh.ldy));
    LTT_CUBLAS(cublasLtMatmulPreferenceCreate(&pref));
    const uint64_t ws = kWorkspace;
    LTT_CUBLAS(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
    const uint32_t align = static_cast<uint32_t>(sh.align);
    for (auto attr : {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES})
      LTT_CUBLAS(cublasLtMatmulPreferenceSetAttribute(pref, attr, &align, sizeof align));
    return {};
  }
};

Status lt_init() {
  LtState& st = lt_state();
  if (st.h) return {};
  LTT_TRY(runtime_init(nullptr).status());  // the process's device, first
  LTT_CUBLAS(cublasLtCreate(&st.h));
  LTT_TRY(st.ws.alloc(kWorkspace));
  return {};
}

// An algorithm's attribute; empty where cuBLASLt does not give it (shown as
// "?", and never taken as equal to another's).
template <class V>
std::optional<V> config(const cublasLtMatmulAlgo_t& a, cublasLtMatmulAlgoConfigAttributes_t attr) {
  V v{};
  size_t got = 0;
  if (cublasLtMatmulAlgoConfigGetAttribute(&a, attr, &v, sizeof v, &got) != CUBLAS_STATUS_SUCCESS) return std::nullopt;
  return v;
}

template <class V>
std::string shown(const std::optional<V>& v) {
  return v ? cat(+*v) : std::string("?");
}

const char* scheme_name(uint32_t s) {
  switch (s) {
    case CUBLASLT_REDUCTION_SCHEME_NONE: return "none";
    case CUBLASLT_REDUCTION_SCHEME_INPLACE: return "in place, in the output type (bf16)";
    case CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE: return "fp32 partials";
    case CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE: return "partials in the output type (bf16)";
  }
  return "?";
}

std::string describe(const cublasLtMatmulAlgo_t& a, size_t workspace, bool split_form) {
  const int splits = config<int32_t>(a, CUBLASLT_ALGO_CONFIG_SPLITK_NUM).value_or(0);
  const auto scheme = config<uint32_t>(a, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME);
  return cat(split_form ? kGemmSplitForm : "", "id ", shown(config<int32_t>(a, CUBLASLT_ALGO_CONFIG_ID)), ", tile ",
             shown(config<uint32_t>(a, CUBLASLT_ALGO_CONFIG_TILE_ID)), ", stages ",
             shown(config<uint32_t>(a, CUBLASLT_ALGO_CONFIG_STAGES_ID)), ", cluster ",
             shown(config<uint16_t>(a, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID)), ", swizzle ",
             shown(config<uint32_t>(a, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING)), ", custom ",
             shown(config<uint32_t>(a, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION)), ", split-K ", splits < 1 ? 1 : splits,
             splits > 1 ? cat(" (reduction: ", scheme ? scheme_name(*scheme) : "?", ")") : std::string(), ", workspace ",
             workspace, " B");
}

// The same configuration, by the attributes describe() prints (repeats are left out of a list).
bool same_config(const cublasLtMatmulAlgo_t& x, const cublasLtMatmulAlgo_t& y) {
  auto same = [&](auto attr, auto type) {
    using V = decltype(type);
    const auto a = config<V>(x, attr), b = config<V>(y, attr);
    return a && b && *a == *b;
  };
  return same(CUBLASLT_ALGO_CONFIG_ID, int32_t{}) && same(CUBLASLT_ALGO_CONFIG_TILE_ID, uint32_t{}) &&
         same(CUBLASLT_ALGO_CONFIG_STAGES_ID, uint32_t{}) && same(CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, uint16_t{}) &&
         same(CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, uint32_t{}) && same(CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, uint32_t{}) &&
         same(CUBLASLT_ALGO_CONFIG_SPLITK_NUM, int32_t{}) && same(CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, uint32_t{});
}

// The GEMM's list, made once: the heuristic's algorithms in its order, then
// the split-K forms of those that take one (each checked by cuBLASLt for
// this GEMM and workspace), without repeats.
Result<const std::vector<LtAlgo>*> lt_list(const LtShape& sh) {
  LTT_TRY(lt_init());
  LtState& st = lt_state();
  for (const auto& [k, v] : st.lists)
    if (k == sh) return &v;
  LtDesc d;
  LTT_TRY(d.make(sh));
  std::vector<cublasLtMatmulHeuristicResult_t> res(kHeuristicAsk);
  int got = 0;
  const cublasStatus_t hs = cublasLtMatmulAlgoGetHeuristic(st.h, d.op, d.a, d.b, d.c, d.d, d.pref, kHeuristicAsk, res.data(), &got);
  if (hs != CUBLAS_STATUS_SUCCESS && hs != CUBLAS_STATUS_NOT_SUPPORTED)
    return LTT_ERR(Errc::internal, "cublasLtMatmulAlgoGetHeuristic: ", cublas_words(hs));
  std::vector<LtAlgo> list;
  auto seen = [&](const cublasLtMatmulAlgo_t& a) {
    for (const LtAlgo& x : list)
      if (same_config(x.algo, a)) return true;
    return false;
  };
  for (int i = 0; i < got; ++i)
    if (res[static_cast<size_t>(i)].state == CUBLAS_STATUS_SUCCESS && !seen(res[static_cast<size_t>(i)].algo))
      list.push_back({res[static_cast<size_t>(i)].algo, describe(res[static_cast<size_t>(i)].algo,
                                                                 res[static_cast<size_t>(i)].workspaceSize, false)});
  const size_t listed = list.size();
  for (size_t i = 0; i < listed; ++i) {
    const cublasLtMatmulAlgo_t base = list[i].algo;
    int32_t splitk = 0;
    uint32_t mask = 0;
    size_t w = 0;
    if (cublasLtMatmulAlgoCapGetAttribute(&base, CUBLASLT_ALGO_CAP_SPLITK_SUPPORT, &splitk, sizeof splitk, &w) !=
            CUBLAS_STATUS_SUCCESS ||
        !splitk)
      continue;
    if (cublasLtMatmulAlgoCapGetAttribute(&base, CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK, &mask, sizeof mask, &w) !=
        CUBLAS_STATUS_SUCCESS)
      continue;
    for (int k : kSplits)
      for (uint32_t scheme : {uint32_t{CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE}, uint32_t{CUBLASLT_REDUCTION_SCHEME_INPLACE},
                              uint32_t{CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE}}) {
        if (!(mask & scheme) || sh.K / k < 16) continue;
        cublasLtMatmulAlgo_t a = base;
        const int32_t splits = k;
        if (cublasLtMatmulAlgoConfigSetAttribute(&a, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splits, sizeof splits) !=
                CUBLAS_STATUS_SUCCESS ||
            cublasLtMatmulAlgoConfigSetAttribute(&a, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &scheme, sizeof scheme) !=
                CUBLAS_STATUS_SUCCESS)
          continue;
        cublasLtMatmulHeuristicResult_t r{};
        if (cublasLtMatmulAlgoCheck(st.h, d.op, d.a, d.b, d.c, d.d, &a, &r) != CUBLAS_STATUS_SUCCESS ||
            r.workspaceSize > kWorkspace || seen(a))
          continue;
        list.push_back({a, describe(a, r.workspaceSize, true)});
      }
  }
  st.lists.emplace_back(sh, std::move(list));
  return &st.lists.back().second;
}

// LTT_GEMM_LT_INPLACE=1: tier 2's call in place (C == D), as ltt's own path
// writes it; unset or 0: its output compact in scratch, then copied.
Result<bool> lt_in_place() {
  const char* env = std::getenv("LTT_GEMM_LT_INPLACE");
  const std::string v = env ? env : "";
  if (v.empty() || v == "0") return false;
  if (v == "1") return true;
  return LTT_USAGE("LTT_GEMM_LT_INPLACE=", v, ": expected 1 (tier 2's cuBLASLt call in place) or 0");
}

int lowbit_align(size_t bytes) {
  int a = 256;
  while (a > 1 && bytes % static_cast<size_t>(a) != 0) a /= 2;
  return a;
}

}  // namespace

bool LtShape::operator==(const LtShape& o) const {
  return M == o.M && n == o.n && K == o.K && lda == o.lda && ldb == o.ldb && ld_add == o.ld_add && ldy == o.ldy &&
         addend == o.addend && align == o.align;
}

Result<std::optional<LtShape>> lt_shape(const Problem& p, int tier) {
  const int M = p.M, L = p.L, H = p.H, bf2 = static_cast<int>(sizeof(bf));
  switch (tier) {
    case 0: {  // tier0.cu's cuBLAS path: [M, Hs] = N W_shard^T + S^(r)
      auto path = tier0_path(p);
      if (!path.ok()) return path.error();
      if (*path != Tier0Path::cublas) return std::optional<LtShape>{};
      return std::optional<LtShape>{LtShape{M, p.Hs(), L, L, L, p.Hs(), p.Hs(), true, 256}};
    }
    case 1: return std::optional<LtShape>{LtShape{M, H, L, L, L, 0, H, false, 256}};
    // Rank r's own columns of P_r, at r Hs elements into rows H apart: the
    // addend there, the output compact in scratch (or there too, in place).
    case 2: {
      auto in_place = lt_in_place();
      if (!in_place.ok()) return in_place.error();
      return std::optional<LtShape>{LtShape{M, p.Hs(), L, L, L, H, *in_place ? H : p.Hs(), true,
                                            lowbit_align(static_cast<size_t>(p.Hs()) * bf2)}};
    }
    // The addend is the S half of the reduced [R | S], L elements into rows L + H apart.
    case 3: return std::optional<LtShape>{LtShape{M, H, L, L, L, L + H, H, true, lowbit_align(static_cast<size_t>(L) * bf2)}};
    // N's and W's columns of latent shard r, r Ls elements in.
    case 4: return std::optional<LtShape>{LtShape{M, H, p.Ls(), L, L, H, H, true, lowbit_align(static_cast<size_t>(p.Ls()) * bf2)}};
  }
  return LTT_ERR(Errc::internal, "lt_shape: tier ", tier);
}

Result<std::vector<std::string>> gemm_algos(const Problem& p, int tier) {
  LTT_TRY(cuda_available());
  auto sh = lt_shape(p, tier);
  if (!sh.ok()) return sh.error();
  std::vector<std::string> out;
  if (!*sh) return out;
  auto list = lt_list(**sh);
  if (!list.ok()) return list.error();
  for (const LtAlgo& a : **list) out.push_back(a.what);
  return out;
}

void use_gemm_algo(int i) { lt_state().algo = i; }

Status GpuCtx::addmm(const bf* A, int lda, const bf* B, int ldb, const bf* add, int ld_add, bf* Yo, int ldy, int M, int n, int K,
                     bool no_neg_zero) {
  if (is(Mutant::gemm_round_then_add)) {  // planted: the product rounded to bf16, then the addend added, rounded again
    LTT_TRY(gemm(A, lda, B, ldb, C.get(), n, M, n, K, 0.0f));
    return round_then_add(C.get(), n, add, ld_add, Yo, ldy, M, n, no_neg_zero, s);
  }
  const int i = lt_state().algo;
  if (i < 0) {  // ltt's own: the addend widened into C, cuBLAS into fp32, one rounding
    if (add) LTT_TRY(widen(add, ld_add, C.get(), n, M, n, s));
    LTT_TRY(gemm(A, lda, B, ldb, C.get(), n, M, n, K, add ? 1.0f : 0.0f));
    return round_to(C.get(), n, Yo, ldy, M, n, no_neg_zero, s);
  }
  // Where the addend is the output (tier 2's own columns of P_r): cuBLASLt
  // writes a compact [M, n] into scratch, as torch.addmm does with a strided
  // addend, and that is copied into place; in place with LTT_GEMM_LT_INPLACE=1.
  auto in_place = lt_in_place();
  if (!in_place.ok()) return in_place.error();
  const bool aliased = add == Yo, scratch = aliased && !*in_place, same = aliased && *in_place;
  const LtShape sh{M, n, K, lda, ldb, add ? ld_add : 0, scratch ? n : ldy, add != nullptr, lt.align};
  if (!(sh == lt))
    return LTT_ERR(Errc::internal, "GpuCtx::addmm: the GEMM asked for (M ", M, ", n ", n, ", K ", K, ", ldy ", sh.ldy,
                   ") is not the one lt_shape() lists algorithms for (M ", lt.M, ", n ", lt.n, ", K ", lt.K, ", ldy ", lt.ldy, ")");
  for (const void* q : {static_cast<const void*>(A), static_cast<const void*>(B), static_cast<const void*>(add),
                        static_cast<const void*>(Yo)})
    if (q && reinterpret_cast<uintptr_t>(q) % static_cast<uintptr_t>(lt.align) != 0)
      return LTT_ERR(Errc::internal, "GpuCtx::addmm: an operand is not ", lt.align, "-byte aligned, as lt_shape() promised");
  auto list = lt_list(sh);
  if (!list.ok()) return list.error();
  if (static_cast<size_t>(i) >= (*list)->size())
    return LTT_USAGE("cuBLASLt algorithm ", i, " asked for: ", (*list)->size(), " are listed for the GEMM M ", M, ", n ",
                     n, ", K ", K, " (ltt check --gemm-algos all runs each)");
  LtDesc d;
  LTT_TRY(d.make(sh));
  const float alpha = 1.0f, beta = add ? 1.0f : 0.0f;
  LtState& st = lt_state();
  const cublasLtMatmulAlgo_t& algo = (**list)[static_cast<size_t>(i)].algo;
  bf* D = Yo;
  if (scratch) {
    if (C.size() * sizeof(float) < static_cast<size_t>(M) * n * sizeof(bf))
      return LTT_ERR(Errc::internal, "GpuCtx::addmm: the scratch is too small for [", M, ", ", n, "]");
    D = reinterpret_cast<bf*>(C.get());  // cudaMalloc'd: aligned past lt.align
  }
  // In place, C's layout is D's (one descriptor: Cdesc == Ddesc, as cuBLASLt asks).
  LTT_CUBLAS(cublasLtMatmul(st.h, d.op, &alpha, B, d.a, A, d.b, &beta, add ? add : D, same ? d.d : d.c, D, d.d, &algo,
                            st.ws.get(), kWorkspace, s));
  if (scratch)
    LTT_CUDA(cudaMemcpy2DAsync(Yo, sizeof(bf) * static_cast<size_t>(ldy), D, sizeof(bf) * static_cast<size_t>(n),
                               sizeof(bf) * static_cast<size_t>(n), static_cast<size_t>(M), cudaMemcpyDeviceToDevice, s));
  if (no_neg_zero) LTT_TRY(clear_neg_zero(Yo, ldy, M, n, s));
  return {};
}

}  // namespace ltt::gpu
