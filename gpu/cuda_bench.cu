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

// Times `body` by CUDA-graph replay: `calls` calls in a row captured once,
// the graph replayed 3 times untimed, then `reps` times between two events;
// the median per call. What a captured decode step pays per kernel.
template <class Body>
Result<Timing> timed_graph(cudaStream_t s, int reps, int calls, Body body) {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  cudaEvent_t a = nullptr, b = nullptr;
  struct Free {
    cudaGraph_t* g;
    cudaGraphExec_t* x;
    cudaEvent_t *a, *b;
    ~Free() {
      if (*x) cudaGraphExecDestroy(*x);
      if (*g) cudaGraphDestroy(*g);
      if (*a) cudaEventDestroy(*a);
      if (*b) cudaEventDestroy(*b);
    }
  } free_all{&graph, &exec, &a, &b};
  LTT_TRY(body());  // once outside the capture: attributes set, lazy loading done
  LTT_CUDA(cudaStreamSynchronize(s));
  LTT_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  const Status st = [&]() -> Status {
    for (int i = 0; i < calls; ++i) LTT_TRY(body());
    return {};
  }();
  const cudaError_t end = cudaStreamEndCapture(s, &graph);
  LTT_TRY(st);
  LTT_CUDA(end);
  LTT_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  LTT_CUDA(cudaEventCreate(&a));
  LTT_CUDA(cudaEventCreate(&b));
  std::vector<double> us;
  for (int i = -3; i < reps; ++i) {
    LTT_CUDA(cudaEventRecord(a, s));
    LTT_CUDA(cudaGraphLaunch(exec, s));
    LTT_CUDA(cudaEventRecord(b, s));
    LTT_CUDA(cudaEventSynchronize(b));
    float ms = 0;
    LTT_CUDA(cudaEventElapsedTime(&ms, a, b));
    if (i >= 0) us.push_back(1e3 * ms / calls);
  }
  std::sort(us.begin(), us.end());
  Timing t;
  t.reps = reps;
  t.median_us = us[us.size() / 2];
  t.min_us = us.front();
  return t;
}

constexpr int kGraphCalls = 20;

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
  return timed_graph(c.s, reps, kGraphCalls, [&] {
    return rmsnorm(c.R[0], p.L, c.g.get(), c.N.get(), p.M, p.L, c.eps(), NormOrder::round_then_weight, c.s);
  });
}

Result<Timing> time_tier0_rank(const Problem& p, const Inputs& in, int reps) {
  GpuCase g(p);
  LTT_TRY(g.load(0, Contract{Algo::one_shot, NormOrder::fused}, in, -1));
  LTT_TRY(g.reset());
  GpuCtx& c = g.c;
  const int M = p.M, L = p.L, Hs = p.Hs();
  if (!c.slices) return time_tier0_rank_cublas(p, in, reps);
  return timed_graph(c.s, reps, kGraphCalls, [&]() -> Status {
    LTT_TRY(rmsnorm(c.R[0], L, c.g.get(), c.N.get(), M, L, c.eps(), NormOrder::fused, c.s));
    return shard_gemm_add(c.N.get(), L, c.W.get(), L, c.S[0], p.H, c.Y[0], p.H, M, Hs, L, c.slices, c.work.get(),
                          c.counters.get(), true, c.pdl, c.s);
  });
}

Result<Timing> time_tier0_rank_cublas(const Problem& p, const Inputs& in, int reps) {
  GpuCase g(p);
  LTT_TRY(g.load(0, Contract{Algo::one_shot, NormOrder::fused}, in, -1));
  LTT_TRY(g.reset());
  GpuCtx& c = g.c;
  const int M = p.M, L = p.L, Hs = p.Hs();
  return timed_graph(c.s, reps, kGraphCalls, [&]() -> Status {
    LTT_TRY(rmsnorm(c.R[0], L, c.g.get(), c.N.get(), M, L, c.eps(), NormOrder::fused, c.s));
    LTT_TRY(widen(c.S[0], p.H, c.C.get(), Hs, M, Hs, c.s));
    LTT_TRY(c.gemm(c.N.get(), L, c.W.get(), L, c.C.get(), Hs, M, Hs, L, 1.0f));
    return round_to(c.C.get(), Hs, c.Y[0], p.H, M, Hs, true, c.s);
  });
}

Result<Timing> time_gemm_full(const Problem& p, const Inputs& in, int reps) {
  GpuCase g(p);
  LTT_TRY(g.load(1, Contract{}, in, -1));
  LTT_TRY(g.reset());
  GpuCtx& c = g.c;
  return timed_graph(c.s, reps, kGraphCalls,
                     [&] { return c.gemm(c.R[0], p.L, c.W.get(), p.L, c.C.get(), p.H, p.M, p.H, p.L, 1.0f); });
}

}  // namespace ltt::gpu
