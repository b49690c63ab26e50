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

// A timing of `count` calls in a row, as the time of one.
Result<Timing> per_call(Result<Timing> t, int count) {
  if (!t.ok()) return t.error();
  t->median_us /= count;
  t->min_us /= count;
  return t;
}

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

Status warm_up(double ms) {
  DevBuf<bf> a;
  LTT_TRY(a.alloc(size_t(1) << 29));  // 1 GiB of bf16
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  LTT_CUDA(cudaEventCreate(&e0));
  LTT_CUDA(cudaEventCreate(&e1));
  struct Free {
    cudaEvent_t x, y;
    ~Free() { cudaEventDestroy(x); cudaEventDestroy(y); }
  } free_events{e0, e1};
  LTT_CUDA(cudaEventRecord(e0, nullptr));
  for (float spent = 0; spent < ms;) {
    for (int i = 0; i < 20; ++i) LTT_TRY(fill(a.get(), a.size(), static_cast<uint16_t>(0x3c00 + i), nullptr));
    LTT_CUDA(cudaEventRecord(e1, nullptr));
    LTT_CUDA(cudaEventSynchronize(e1));
    LTT_CUDA(cudaEventElapsedTime(&spent, e0, e1));
  }
  return {};
}

Result<Timing> time_launch(int count, int reps) {
  DevBuf<bf> a;
  LTT_TRY(a.alloc(1));
  auto t = timed(nullptr, reps, [&]() -> Status {
    for (int i = 0; i < count; ++i) LTT_TRY(fill(a.get(), 1, 0, nullptr));
    return {};
  }, nothing);
  return per_call(t, count);
}

Result<Timing> time_gemm_shard_seq(const Problem& p, const Inputs& in, int count, int reps) {
  GpuCase g(p);
  LTT_TRY(g.load(0, Contract{Algo::one_shot, NormOrder::fused}, in, -1));
  LTT_TRY(g.reset());
  GpuCtx& c = g.c;
  const int Hs = p.Hs();
  auto t = timed(c.s, reps, [&]() -> Status {
    for (int i = 0; i < count; ++i) LTT_TRY(c.gemm(c.R[0], p.L, c.W.get(), p.L, c.C.get(), Hs, p.M, Hs, p.L, 1.0f));
    return {};
  }, nothing);
  return per_call(t, count);
}

Result<Timing> time_widen(const Problem& p, const Inputs& in, int reps) {
  GpuCase g(p);
  LTT_TRY(g.load(1, Contract{}, in, -1));
  LTT_TRY(g.reset());
  GpuCtx& c = g.c;
  return timed(c.s, reps, [&] { return widen(c.S[0], p.H, c.C.get(), p.H, p.M, p.H, c.s); }, nothing);
}

Result<Timing> time_round(const Problem& p, const Inputs& in, int reps) {
  GpuCase g(p);
  LTT_TRY(g.load(1, Contract{}, in, -1));
  LTT_TRY(g.reset());
  GpuCtx& c = g.c;
  LTT_TRY(widen(c.S[0], p.H, c.C.get(), p.H, p.M, p.H, c.s));
  return timed(c.s, reps, [&] { return round_to(c.C.get(), p.H, c.Y[0], p.H, p.M, p.H, false, c.s); }, nothing);
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
