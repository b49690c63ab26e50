// ltt bench's timings on the GPU (cuda_bench.hpp).
#include <algorithm>
#include <vector>

#include "ctx.cuh"
#include "cuda_bench.hpp"

namespace ltt::gpu {

namespace {

// Times `body` between two events on stream s, `reps` times after 3 warm-ups;
// `between` runs untimed before each (restoring inputs).
template <class Body, class Between>
Result<Timing> timed(cudaStream_t s, int reps, Body body, Between between) {
  cudaEvent_t a = nullptr, b = nullptr;
  LTT_CUDA(cudaEventCreate(&a));
  LTT_CUDA(cudaEventCreate(&b));
  struct Free {
    cudaEvent_t x, y;
    ~Free() { cudaEventDestroy(x); cudaEventDestroy(y); }
  } free_events{a, b};
  std::vector<double> us;
  for (int i = -3; i < reps; ++i) {
    LTT_TRY(between());
    LTT_CUDA(cudaEventRecord(a, s));
    LTT_TRY(body());
    LTT_CUDA(cudaEventRecord(b, s));
    LTT_CUDA(cudaEventSynchronize(b));
    LTT_CUDA(cudaDeviceSynchronize());  // the aux stream too
    float ms = 0;
    LTT_CUDA(cudaEventElapsedTime(&ms, a, b));
    if (i >= 0) us.push_back(1e3 * ms);
  }
  std::sort(us.begin(), us.end());
  Timing t;
  t.reps = reps;
  t.median_us = us[us.size() / 2];
  t.min_us = us.front();
  return t;
}

Status nothing() { return {}; }

}  // namespace

Result<double> copy_bandwidth(size_t bytes, int reps) {
  DevBuf<char> x, y;
  LTT_TRY(x.alloc(bytes / 2));
  LTT_TRY(y.alloc(bytes / 2));
  LTT_CUDA(cudaMemset(x.get(), 1, bytes / 2));
  auto t = timed(nullptr, reps, [&]() -> Status {
    LTT_CUDA(cudaMemcpyAsync(y.get(), x.get(), bytes / 2, cudaMemcpyDeviceToDevice, nullptr));
    return {};
  }, nothing);
  if (!t.ok()) return t.error();
  return static_cast<double>(bytes) / (t->median_us * 1e3);  // bytes per ns = GB/s
}

Result<Timing> time_tier(const Problem& p, int tier, const Contract& c, const Inputs& in, int reps) {
  GpuCase g(p);
  LTT_TRY(g.load(tier, c, in, -1));
  LTT_TRY(g.reset());
  LTT_TRY(g.run());  // correct first: a run that fails is not timed
  return timed(g.c.s, reps, [&] { return run_pipeline(g); }, [&] { return g.reset(); });
}

Result<Timing> time_rmsnorm(const Problem& p, const Inputs& in, int reps) {
  GpuCase g(p);
  LTT_TRY(g.load(1, Contract{}, in, -1));
  LTT_TRY(g.reset());
  GpuCtx& c = g.c;
  return timed(c.s, reps, [&] { return rmsnorm(c.R[0], p.L, c.g.get(), c.N.get(), p.M, p.L, c.eps(), NormOrder::round_then_weight, c.s); },
               nothing);
}

Result<Timing> time_tier0_rank(const Problem& p, const Inputs& in, int reps) {
  GpuCase g(p);
  LTT_TRY(g.load(0, Contract{Algo::one_shot, NormOrder::fused}, in, -1));
  LTT_TRY(g.reset());
  GpuCtx& c = g.c;
  const int M = p.M, L = p.L, Hs = p.Hs();
  return timed(c.s, reps, [&]() -> Status {
    LTT_TRY(rmsnorm(c.R[0], L, c.g.get(), c.N.get(), M, L, c.eps(), NormOrder::fused, c.s));
    LTT_TRY(widen(c.S[0], p.H, c.C.get(), Hs, M, Hs, c.s));
    LTT_TRY(c.gemm(c.N.get(), L, c.W.get(), L, c.C.get(), Hs, M, Hs, L, 1.0f));
    return round_to(c.C.get(), Hs, c.Y[0], p.H, M, Hs, true, c.s);
  }, nothing);
}

Result<Timing> time_gemm_full(const Problem& p, const Inputs& in, int reps) {
  GpuCase g(p);
  LTT_TRY(g.load(1, Contract{}, in, -1));
  LTT_TRY(g.reset());
  GpuCtx& c = g.c;
  return timed(c.s, reps, [&] { return c.gemm(c.R[0], p.L, c.W.get(), p.L, c.C.get(), p.H, p.M, p.H, p.L, 1.0f); }, nothing);
}

}  // namespace ltt::gpu
