// ltt bench's timings on the GPU (cuda_bench.hpp).
#include <algorithm>
#include <cstdlib>
#include <ios>
#include <vector>

#include <cooperative_groups.h>

#include "ctx.cuh"
#include "elem.cuh"
#include "cuda_bench.hpp"
#include "step_check.hpp"


namespace ltt::gpu {

namespace {

// Two timing events, destroyed on every path; the time between them.
struct Events {
  cudaEvent_t a = nullptr, b = nullptr;
  Events() = default;
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;
  ~Events() {
    if (a) LTT_CUDA_NOTE(cudaEventDestroy(a));
    if (b) LTT_CUDA_NOTE(cudaEventDestroy(b));
  }
  Status create() {
    LTT_CUDA(cudaEventCreate(&a));
    LTT_CUDA(cudaEventCreate(&b));
    return {};
  }
  // Microseconds from a to b, once b is reached.
  Result<double> us() const {
    LTT_CUDA(cudaEventSynchronize(b));
    float ms = 0;
    LTT_CUDA(cudaEventElapsedTime(&ms, a, b));
    return 1e3 * static_cast<double>(ms);
  }
};

// The median and minimum of the timed samples.
Timing summary(std::vector<double> us) {
  std::sort(us.begin(), us.end());
  Timing t;
  t.reps = static_cast<int>(us.size());
  t.median_us = us[us.size() / 2];
  t.min_us = us.front();
  return t;
}

// Times `body` between two events on stream s, `reps` times after 3 warm-ups;
// `between` runs untimed before each (restoring inputs).
template <class Body, class Between>
Result<Timing> timed(cudaStream_t s, int reps, Body body, Between between) {
  Events ev;
  LTT_TRY(ev.create());
  std::vector<double> us;
  for (int i = -3; i < reps; ++i) {
    LTT_TRY(between());
    LTT_CUDA(cudaEventRecord(ev.a, s));
    LTT_TRY(body());
    LTT_CUDA(cudaEventRecord(ev.b, s));
    auto t = ev.us();
    if (!t.ok()) return t.error();
    LTT_CUDA(cudaDeviceSynchronize());  // the aux stream too
    if (i >= 0) us.push_back(*t);
  }
  return summary(us);
}

// Times `body` by CUDA-graph replay: `calls` calls in a row captured once
// (body(i) for call i, so that calls can rotate over copies of their
// operands), the graph replayed 3 times untimed, then `reps` times between
// two events; the median per call. What a captured decode step pays per kernel.
template <class Body>
Result<Timing> timed_graph(cudaStream_t s, int reps, int calls, Body body) {
  struct Graph {
    cudaGraph_t g = nullptr;
    cudaGraphExec_t x = nullptr;
    ~Graph() {
      if (x) LTT_CUDA_NOTE(cudaGraphExecDestroy(x));
      if (g) LTT_CUDA_NOTE(cudaGraphDestroy(g));
    }
  } graph;
  LTT_TRY(body(0));  // once outside the capture: attributes set, lazy loading done
  LTT_CUDA(cudaStreamSynchronize(s));
  LTT_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  const Status st = [&]() -> Status {
    for (int i = 0; i < calls; ++i) LTT_TRY(body(i));
    return {};
  }();
  const cudaError_t end = cudaStreamEndCapture(s, &graph.g);
  LTT_TRY(st);
  LTT_CUDA(end);
  LTT_CUDA(cudaGraphInstantiate(&graph.x, graph.g, 0));
  Events ev;
  LTT_TRY(ev.create());
  std::vector<double> us;
  for (int i = -3; i < reps; ++i) {
    LTT_CUDA(cudaEventRecord(ev.a, s));
    LTT_CUDA(cudaGraphLaunch(graph.x, s));
    LTT_CUDA(cudaEventRecord(ev.b, s));
    auto t = ev.us();
    if (!t.ok()) return t.error();
    if (i >= 0) us.push_back(*t / calls);
  }
  return summary(us);
}

constexpr int kGraphCalls = 20;

// Copies of the operands for timed calls to rotate over, so that a figure is
// the memory's and not the L2 cache's (the next call would otherwise find
// its inputs there): enough sets of `bytes` to cover twice the L2, 1 to 32.
int rotation_sets(size_t bytes) {
  const size_t l2 = l2_cache_bytes();
  if (l2 == 0) return 32;
  const size_t want = 2 * l2, k = (want + bytes - 1) / std::max<size_t>(bytes, 1);
  return static_cast<int>(std::clamp<size_t>(k, 1, 32));
}
// The graph's calls: a multiple of the sets, at least kGraphCalls.
int graph_calls(int sets) { return sets * ((kGraphCalls + sets - 1) / sets); }

// b = k device buffers of n elements, each a copy of src (null: left as
// allocated), made on stream s after what s already holds (the case's
// inputs being restored), and complete on return.
Status copies(const bf* src, size_t n, int k, std::vector<DevBuf<bf>>& b, cudaStream_t s) {
  b = std::vector<DevBuf<bf>>(static_cast<size_t>(k));
  for (auto& x : b) {
    LTT_TRY(x.alloc(n));
    if (src) LTT_CUDA(cudaMemcpyAsync(x.get(), src, n * sizeof(bf), cudaMemcpyDeviceToDevice, s));
  }
  LTT_CUDA(cudaStreamSynchronize(s));
  return {};
}

Status nothing() { return {}; }

// A timing of `count` calls in a row, as the time of one.
Result<Timing> per_call(Result<Timing> t, int count) {
  if (!t.ok()) return t.error();
  t->median_us /= count;
  t->min_us /= count;
  return t;
}

// Over several processes: `reps` runs of `body` (after 3 untimed), each
// started together and timed by events on s; `after` runs untimed after
// each (fences, restoring inputs). The median over runs of the slowest
// process's time.
template <class Body, class After>
Result<Timing> timed_ranks(const Peers& peers, cudaStream_t s, int reps, Body body, After after) {
  Events ev;
  LTT_TRY(ev.create());
  std::vector<double> us;
  for (int i = -3; i < reps; ++i) {
    LTT_CUDA(cudaDeviceSynchronize());
    LTT_TRY(peers.barrier());
    LTT_CUDA(cudaEventRecord(ev.a, s));
    LTT_TRY(body());
    LTT_CUDA(cudaEventRecord(ev.b, s));
    auto t = ev.us();
    if (!t.ok()) return t.error();
    LTT_TRY(after());
    const double mine = *t;
    std::vector<double> all(static_cast<size_t>(peers.procs));
    LTT_TRY(peers.allgather(&mine, sizeof mine, all.data()));
    if (i >= 0) us.push_back(*std::max_element(all.begin(), all.end()));
  }
  return summary(us);
}

}  // namespace

Result<RanksInfo> ranks_info(const Peers& peers) {
  auto rt = runtime_init(&peers);
  if (!rt.ok()) return rt.error();
  RanksInfo i;
  i.own_gpus = rt->own_gpus;
  i.device_fences = rt->device_fences;
  return i;
}

Result<Timing> time_tier_ranks(const Problem& p, int tier, const Contract& c, const Inputs& in, int reps, const Peers& peers,
                               Transport transport) {
  GpuCase g(p);
  LTT_TRY(g.load(tier, c, in, -1, Mutant::none, &peers, transport));
  LTT_TRY(g.reset());
  LTT_TRY(g.run());  // correct first: a run that fails is not timed (ltt check holds the verdict)
  return timed_ranks(peers, g.c.s, reps, [&] { return run_pipeline(g); }, [&]() -> Status {
    LTT_TRY(g.c.fence());  // the siblings done with this run's buffers
    LTT_CUDA(cudaDeviceSynchronize());
    LTT_TRY(check_fences());
    return g.reset();
  });
}

Result<Timing> time_tier0_unfused(const Problem& p, const Inputs& in, int reps, const Peers& peers) {
#if LTT_HAVE_NCCL
  if (p.T != peers.procs) return LTT_USAGE("the unfused tier 0 runs one rank per process: T = ", p.T, ", ", peers.procs, " processes");
  GpuCase g(p);
  LTT_TRY(g.load(1, Contract{}, in, -1, Mutant::none, &peers, Transport::nccl));  // R, S, Z, P (S reduced), N, C, Y
  LTT_TRY(g.reset());
  GpuCtx& c = g.c;
  const int M = p.M, L = p.L, H = p.H, Hs = p.Hs(), r = c.lo();
  const size_t MHs = static_cast<size_t>(M) * Hs;
  DevBuf<bf> ysh, gathered;
  LTT_TRY(ysh.alloc(MHs));
  LTT_TRY(gathered.alloc(MHs * static_cast<size_t>(p.T)));
  std::vector<bf*> slices;
  for (int q = 0; q < p.T; ++q) slices.push_back(gathered.get() + static_cast<size_t>(q) * MHs);
  DevBuf<bf*> slices_dev, y_dev;
  LTT_TRY(slices_dev.alloc(slices.size()));
  LTT_TRY(y_dev.alloc(1));
  bf* y = c.Y[r];
  LTT_CUDA(cudaMemcpy(slices_dev.get(), slices.data(), slices.size() * sizeof(bf*), cudaMemcpyHostToDevice));
  LTT_CUDA(cudaMemcpy(y_dev.get(), &y, sizeof(bf*), cudaMemcpyHostToDevice));
  auto comm = static_cast<ncclComm_t>(c.nccl);
  const bf* w = c.W.get() + static_cast<size_t>(r) * Hs * L;
  auto step = [&]() -> Status {
    LTT_NCCL(ncclAllReduce(c.R[r], c.Z[r], static_cast<size_t>(M) * L, ncclBfloat16, ncclSum, comm, c.s));
    LTT_NCCL(ncclAllReduce(c.S[r], c.P[r], static_cast<size_t>(M) * H, ncclBfloat16, ncclSum, comm, c.s));
    LTT_TRY(rmsnorm(c.Z[r], L, c.g.get(), c.N.get(), M, L, c.eps(), NormOrder::fused, c.s));
    LTT_TRY(widen(c.P[r] + static_cast<size_t>(r) * Hs, H, c.C.get(), Hs, M, Hs, c.s));
    LTT_TRY(c.gemm(c.N.get(), L, w, L, c.C.get(), Hs, M, Hs, L, 1.0f));
    LTT_TRY(round_to(c.C.get(), Hs, ysh.get(), Hs, M, Hs, true, c.s));
    LTT_NCCL(ncclAllGather(ysh.get(), gathered.get(), MHs, ncclBfloat16, comm, c.s));
    return lamport_publish(slices_dev.get(), y_dev.get(), 1, p.T, 0, p.T, M, Hs, c.s);  // shard q into Y's columns q Hs..
  };
  return timed_ranks(peers, c.s, reps, step, nothing);
#else
  (void)p, (void)in, (void)reps, (void)peers;
  return LTT_USAGE("the unfused tier 0 needs NCCL, which this build lacks");
#endif
}

Result<Timing> time_allreduce(size_t bytes, int reps, const Peers& peers, Transport transport) {
  auto rt = runtime_init(&peers);
  if (!rt.ok()) return rt.error();
  const cudaStream_t s = rt->s;
  const size_t n = std::max<size_t>(bytes / sizeof(bf), 1);
  Layout lay;
  lay.T = peers.procs;
  lay.lo = peers.pid;
  lay.hi = peers.pid + 1;
  lay.peers = &peers;
  if (transport == Transport::ipc) LTT_TRY(attach_peer_memory(lay));
  RankBufs in, out;
  LTT_TRY(in.alloc(lay, n, transport == Transport::ipc));
  LTT_TRY(out.alloc(lay, n));
  LTT_TRY(fill(in[lay.lo], n, 0x3f80, s));  // 1.0
  LTT_CUDA(cudaStreamSynchronize(s));
  LTT_TRY(fence(lay, s, rt->aux));
  constexpr int kCalls = 20;
  void* comm = nullptr;
  if (transport == Transport::nccl) {
    auto cm = nccl_comm(peers);
    if (!cm.ok()) return cm.error();
    comm = *cm;
  }
  auto call = [&]() -> Status {
    if (transport == Transport::nccl) {
#if LTT_HAVE_NCCL
      LTT_NCCL(ncclAllReduce(in[lay.lo], out[lay.lo], n, ncclBfloat16, ncclSum, static_cast<ncclComm_t>(comm), s));
      return {};
#endif
    }
    LTT_TRY(fence(lay, s, rt->aux));  // the peers' inputs ready
    return allreduce(in.cdev(), out.dev(), lay.T, lay.lo, lay.hi, n, Algo::one_shot, s);
  };
  auto t = timed_ranks(peers, s, reps, [&]() -> Status {
    for (int i = 0; i < kCalls; ++i) LTT_TRY(call());
    return {};
  }, [&]() -> Status {
    LTT_TRY(fence(lay, s, rt->aux));  // nobody frees or refills while a peer reads
    LTT_CUDA(cudaDeviceSynchronize());
    return check_fences();
  });
  LTT_TRY(in.close());       // every mapping of a sibling's buffer closed
  LTT_TRY(peers.barrier());  // by every process, before any frees its own
  return per_call(t, kCalls);
}

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
  Events ev;
  LTT_TRY(ev.create());
  LTT_CUDA(cudaEventRecord(ev.a, nullptr));
  for (double spent_us = 0; spent_us < 1e3 * ms;) {
    for (int i = 0; i < 20; ++i) LTT_TRY(fill(a.get(), a.size(), static_cast<uint16_t>(0x3c00 + i), nullptr));
    LTT_CUDA(cudaEventRecord(ev.b, nullptr));
    auto t = ev.us();
    if (!t.ok()) return t.error();
    spent_us = *t;
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

Result<Timing> time_launch_graph(int reps) {
  auto rt = runtime_init(nullptr);
  if (!rt.ok()) return rt.error();
  DevBuf<bf> a;
  LTT_TRY(a.alloc(1));
  return timed_graph(rt->s, reps, kGraphCalls, [&](int) { return fill(a.get(), 1, 0, rt->s); });
}

namespace {
// Nothing but (when sync) two barriers of its cluster.
__global__ void idle_k(int sync) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (sync) {
    cooperative_groups::this_cluster().sync();
    cooperative_groups::this_cluster().sync();
  }
#else
  (void)sync;
#endif
}
}  // namespace

Result<Timing> time_launch_clusters(int ck, bool sync, int reps) {
  auto rt = runtime_init(nullptr);
  if (!rt.ok()) return rt.error();
  if (ck > 0 && cluster_sms(device_caps()) <= 0)
    return LTT_USAGE("clusters of blocks need compute capability 9.0 (not this device)");
  constexpr size_t smem = 78848;
  LTT_CUDA(cudaFuncSetAttribute(idle_k, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  return timed_graph(rt->s, reps, kGraphCalls, [&](int) -> Status {
    cudaLaunchAttribute attr[2];
    cudaLaunchConfig_t cfg = cluster_config(14, 8, 256, smem, false, rt->s, attr);
    if (ck == 0) {
      cfg.numAttrs = 0;
    } else {
      attr[0].val.clusterDim.y = static_cast<unsigned>(ck);
    }
    LTT_CUDA(cudaLaunchKernelEx(&cfg, idle_k, sync && ck > 0 ? 1 : 0));
    return {};
  });
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

namespace {

// Reads n 16-byte vectors once (each thread kUnroll of them at a time, all
// in flight, then the next grid-wide stride) and writes nothing unless their
// XOR is a value no input here makes: a kernel that only moves bytes in.
template <int kUnroll>
__global__ void read_only_k(const uint4* p, size_t n, unsigned* sink) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x * kUnroll;
  unsigned acc = 0;
  for (size_t base = static_cast<size_t>(blockIdx.x) * blockDim.x * kUnroll + threadIdx.x; base < n; base += stride) {
    uint4 v[kUnroll];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) {
      const size_t i = base + static_cast<size_t>(k) * blockDim.x;
      v[k] = i < n ? __ldcs(p + i) : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) acc ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
  }
  if (acc == 0x9e3779b9u) sink[0] = acc;
}

}  // namespace

Result<Timing> time_read(size_t bytes, int reps, ReadShape* shape) {
  auto rt = runtime_init(nullptr);
  if (!rt.ok()) return rt.error();
  const cudaStream_t s = rt->s;
  const size_t n = (bytes + 15) / 16, elems = n * 8;
  const int sets = rotation_sets(n * 16);
  std::vector<DevBuf<bf>> a;
  LTT_TRY(copies(nullptr, elems, sets, a, s));
  for (auto& x : a) LTT_CUDA(cudaMemsetAsync(x.get(), 0x3c, elems * sizeof(bf), s));
  DevBuf<unsigned> sink;
  LTT_TRY(sink.alloc(1));
  int dev = 0, sms = 0;
  LTT_CUDA(cudaGetDevice(&dev));
  LTT_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  // The fastest over block sizes, loads in flight a thread and blocks an SM
  // (as many blocks as the bytes fill, at most that many an SM).
  Timing best;
  bool any = false;
  std::vector<ReadShape> tried;
  for (int threads : {256, 512, 1024})
    for (int unroll : {1, 2, 4, 8})
      for (int per_sm : {1, 2, 4, 8}) {
        if (threads * per_sm > 2048) continue;  // more threads than an SM holds
        const size_t per_block = static_cast<size_t>(threads) * static_cast<size_t>(unroll);
        const size_t need = (n + per_block - 1) / per_block;
        const ReadShape sh{static_cast<int>(std::max<size_t>(1, std::min<size_t>(need, static_cast<size_t>(sms) * per_sm))),
                           threads, unroll};
        if (std::find_if(tried.begin(), tried.end(), [&](const ReadShape& o) {
              return o.blocks == sh.blocks && o.threads == sh.threads && o.unroll == sh.unroll;
            }) != tried.end())
          continue;
        tried.push_back(sh);
        auto* k = unroll == 1 ? read_only_k<1> : unroll == 2 ? read_only_k<2> : unroll == 4 ? read_only_k<4> : read_only_k<8>;
        auto t = timed_graph(s, reps, graph_calls(sets), [&](int i) -> Status {
          k<<<static_cast<unsigned>(sh.blocks), static_cast<unsigned>(sh.threads), 0, s>>>(
              reinterpret_cast<const uint4*>(a[i % sets].get()), n, sink.get());
          LTT_LAUNCHED();
          return {};
        });
        if (!t.ok()) return t.error();
        if (!any || t->median_us < best.median_us) {
          best = *t;
          if (shape) *shape = sh;
        }
        any = true;
      }
  return best;
}

namespace {

// The warm step's chain with nothing else in it. The head stands in for the
// warm RMSNorm kernel: a programmatic dependent of the call before, its
// blocks bring the call's W shard into L2 (prefetch_l2(), the same pieces
// on the same grid) and return, block 0 waits for the call before. The
// step stands in for the few-token kernel: a programmatic dependent of the
// head, n / 8 blocks of 512 threads, each block loading its 8 rows' share
// of W (when read; up to 8 16-byte pieces a thread, all in flight) before
// its wait, as that kernel loads its registers, then nothing but the wait.
__global__ void chain_head_k(const void* w, size_t bytes) {
  allow_dependents();
  prefetch_l2(w, bytes);
  if (blockIdx.x > 0) return;
  wait_dependencies();
}

__global__ void __launch_bounds__(512, 1) chain_step_k(const uint4* w, int per_block, int read, unsigned* sink) {
  uint4 v[8];
  const uint4* p = w + static_cast<size_t>(blockIdx.x) * per_block;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int e = static_cast<int>(threadIdx.x) + 512 * i;
    v[i] = read && e < per_block ? __ldg(p + e) : make_uint4(0, 0, 0, 0);
  }
  allow_dependents();
  wait_dependencies();
  unsigned acc = 0;
#pragma unroll
  for (int i = 0; i < 8; ++i) acc ^= v[i].x ^ v[i].y ^ v[i].z ^ v[i].w;
  if (acc == 0x9e3779b9u) sink[0] = acc;  // a value no input here makes: the loads stay
}

}  // namespace

Result<Timing> time_chain(const Problem& p, int reps, bool read) {
  auto rt = runtime_init(nullptr);
  if (!rt.ok()) return rt.error();
  if (!rt->pdl) return LTT_USAGE("the warm step's chain needs programmatic launch (compute capability 9.0, kernels built for it)");
  const int Hs = p.Hs(), L = p.L;
  if (Hs % 8 != 0 || L % 8 != 0 || L > 4096)
    return LTT_USAGE("the warm step's chain takes H/T a multiple of 8 and L a multiple of 8 up to 4096 (the few-token "
                     "kernel's shapes): H/T ", Hs, ", L ", L);
  const cudaStream_t s = rt->s;
  const size_t wn = static_cast<size_t>(Hs) * L, bytes = wn * sizeof(bf);
  const int sets = rotation_sets(bytes), blocks = Hs / 8, per_block = L;  // 8 rows of L bf16: L 16-byte pieces
  std::vector<DevBuf<bf>> w;
  LTT_TRY(copies(nullptr, wn, sets, w, s));
  for (auto& x : w) LTT_CUDA(cudaMemsetAsync(x.get(), 0x3c, bytes, s));
  DevBuf<unsigned> sink;
  LTT_TRY(sink.alloc(1));
  LTT_CUDA(cudaStreamSynchronize(s));
  const unsigned head = prefetch_blocks(bytes, std::max(1, device_caps().sms));
  return timed_graph(s, reps, graph_calls(sets), [&](int i) -> Status {
    const bf* wi = w[i % sets].get();
    LTT_TRY(launch(chain_head_k, head, 256, true, s, static_cast<const void*>(wi), bytes));
    return launch(chain_step_k, static_cast<unsigned>(blocks), 512, true, s, reinterpret_cast<const uint4*>(wi), per_block,
                  read ? 1 : 0, sink.get());
  });
}

Result<Timing> time_copy(size_t elems, int reps) {
  auto rt = runtime_init(nullptr);
  if (!rt.ok()) return rt.error();
  const cudaStream_t s = rt->s;
  const int sets = rotation_sets(2 * elems * sizeof(bf));
  std::vector<DevBuf<bf>> a, b;
  LTT_TRY(copies(nullptr, elems, sets, a, s));
  LTT_TRY(copies(nullptr, elems, sets, b, s));
  for (auto& x : a) LTT_CUDA(cudaMemsetAsync(x.get(), 0x3c, elems * sizeof(bf), s));
  return timed_graph(s, reps, graph_calls(sets), [&](int i) -> Status {
    LTT_CUDA(cudaMemcpyAsync(b[i % sets].get(), a[i % sets].get(), elems * sizeof(bf), cudaMemcpyDeviceToDevice, s));
    return {};
  });
}

bool norm_choice_applies(const NormChoice& k, int L) {
  // A chained call is the block-a-row kernel's option: its fast path only.
  if (k.chained) return L % 8 == 0 && L <= 4096 && k.block_row != 0 && k.warp_rows_per_block <= 0 && k.block_threads == 256;
  if (L % 8 != 0) return k.block_row < 0 && k.warp_rows_per_block <= 0 && !k.streaming;  // the scalar kernel either way
  if (k.block_row > 0) return L <= 4096;
  if (k.warp_rows_per_block > 0) return L <= 256 * 16;
  if (k.block_row == 0) return L <= 256 * 14 && (!k.streaming || L > 256 * 8);
  return true;  // ltt's own choice
}

Result<Timing> time_rmsnorm(const Problem& p, const Inputs& in, int reps, NormChoice kc) {
  GpuCase g(p);
  LTT_TRY(g.load(1, Contract{}, in, -1));
  LTT_TRY(g.reset());
  GpuCtx& c = g.c;
  if (kc.chained && !c.pdl) return LTT_USAGE("chained RMSNorm calls need programmatic launch (compute capability 9.0)");
  const size_t ML = static_cast<size_t>(p.M) * p.L;
  const int sets = rotation_sets(2 * ML * sizeof(bf));
  std::vector<DevBuf<bf>> z, n;
  LTT_TRY(copies(c.R[0], ML, sets, z, c.s));
  LTT_TRY(copies(nullptr, ML, sets, n, c.s));
  const NormKernel k{kc.block_row, kc.rows_per_warp, kc.streaming, kc.warp_rows_per_block, kc.block_threads, kc.chained};
  // Correct first: the kernel's N against ltt's default kernel's, bit for
  // bit where it is that kernel, else every element within two bf16 steps.
  // Another order of the fp32 sum of squares moves rstd by a few fp32 ulps,
  // so bf16(z rstd) by at most one step u; times g that is |g| u < 2 steps of
  // the product's own spacing, and the two roundings of a monotone rounding
  // of values less than 2 steps apart land at most 2 steps apart. (One step
  // allowed failed at M 8192 for the 512-thread kernel: 0xbf30 against 0xbf2e.)
  std::vector<uint16_t> want(ML), got(ML);
  LTT_TRY(rmsnorm(z[0].get(), p.L, c.g.get(), n[0].get(), p.M, p.L, c.eps(), NormOrder::round_then_weight, c.s));
  LTT_CUDA(cudaMemcpyAsync(want.data(), n[0].get(), ML * sizeof(bf), cudaMemcpyDeviceToHost, c.s));
  LTT_TRY(fill(n[0].get(), ML, 0x7fc1, c.s));  // poison
  LTT_TRY(rmsnorm(z[0].get(), p.L, c.g.get(), n[0].get(), p.M, p.L, c.eps(), NormOrder::round_then_weight, c.s, k));
  LTT_CUDA(cudaMemcpyAsync(got.data(), n[0].get(), ML * sizeof(bf), cudaMemcpyDeviceToHost, c.s));
  LTT_CUDA(cudaStreamSynchronize(c.s));
  const bool same_kernel = kc.block_row != 0 && kc.warp_rows_per_block <= 0 && kc.block_threads == 256 && p.L <= 4096;
  for (size_t e = 0; e < ML; ++e) {
    const int a = want[e], b = got[e];
    const bool near = (a & 0x8000) == (b & 0x8000) && std::abs((a & 0x7fff) - (b & 0x7fff)) <= 2;
    if (a != b && (same_kernel || !near))
      return LTT_ERR(Errc::internal, "rmsnorm variant: N[", e / p.L, ", ", e % p.L, "] = 0x", std::hex, b,
                     " where ltt's kernel gives 0x", a);
  }
  return timed_graph(c.s, reps, graph_calls(sets), [&](int i) {
    return rmsnorm(z[i % sets].get(), p.L, c.g.get(), n[i % sets].get(), p.M, p.L, c.eps(), NormOrder::round_then_weight,
                   c.s, k);
  });
}

// Rank 0's tier 0 step as the timed calls left it in Y (its first H/T
// columns, rows H apart), judged by step_outside_bound() from the operands
// the calls read: A (N, or Z normalised with g when norm), W's first shard,
// S's first H/T columns. A figure is reported only for a correct step.
namespace {
Status check_tier0_output(GpuCtx& c, const Problem& p, const bf* A, bool norm, const char* what) {
  const int M = p.M, L = p.L, Hs = p.Hs();
  StepOperands op;
  op.M = M;
  op.n = Hs;
  op.K = L;
  op.eps = c.eps();
  op.a.resize(static_cast<size_t>(M) * L);
  op.w.resize(static_cast<size_t>(Hs) * L);
  op.s.resize(static_cast<size_t>(M) * Hs);
  op.y.resize(static_cast<size_t>(M) * Hs);
  LTT_CUDA(cudaStreamSynchronize(c.s));
  LTT_CUDA(cudaMemcpy(op.a.data(), A, op.a.size() * sizeof(bf), cudaMemcpyDeviceToHost));
  if (norm) {
    op.g.resize(static_cast<size_t>(L));
    LTT_CUDA(cudaMemcpy(op.g.data(), c.g.get(), op.g.size() * sizeof(bf), cudaMemcpyDeviceToHost));
  }
  LTT_CUDA(cudaMemcpy(op.w.data(), c.W.get(), op.w.size() * sizeof(bf), cudaMemcpyDeviceToHost));
  const size_t row = static_cast<size_t>(Hs) * sizeof(bf), ld = static_cast<size_t>(p.H) * sizeof(bf);
  LTT_CUDA(cudaMemcpy2D(op.s.data(), row, c.S[0], ld, row, static_cast<size_t>(M), cudaMemcpyDeviceToHost));
  LTT_CUDA(cudaMemcpy2D(op.y.data(), row, c.Y[0], ld, row, static_cast<size_t>(M), cudaMemcpyDeviceToHost));
  const std::string bad = step_outside_bound(op);
  if (!bad.empty())
    return LTT_ERR(Errc::internal, what, " at M ", M, ", H/T ", Hs, ", L ", L, ": rank 0's step is not a correct one: ", bad);
  return {};
}
}  // namespace

Result<Timing> time_tier0_kernel(const Problem& p, const Inputs& in, int reps, bool fused, Tier0Variant v) {
  GpuCase g(p);
  LTT_TRY(g.load(0, Contract{Algo::one_shot, NormOrder::fused}, in, -1));
  LTT_TRY(g.reset());
  GpuCtx& c = g.c;
  const int M = p.M, L = p.L, Hs = p.Hs();
  if (v.chained && !c.pdl) return LTT_USAGE("chained calls of tier 0's kernel need programmatic launch (compute capability 9.0)");
  auto forced = tier0_columns();  // LTT_TIER0_COLUMNS, as the pipeline takes it, where the row names no tiling
  if (!forced.ok()) return forced.error();
  const int ct = v.ct ? v.ct : *forced;
  const ShardGemmPlan pl = v.gemv ? ShardGemmPlan{} : shard_gemm_plan(M, Hs, L, ct);
  if (v.bare && (fused || !(v.gemv || v.mma)))
    return LTT_ERR(Errc::internal, "a bare call is the split form of the few-token or the MMA kernel only");
  if (v.mma && v.gemv) return LTT_ERR(Errc::internal, "a row times the MMA kernel or the few-token kernel, not both");
  if (v.warm && (fused || v.bare)) return LTT_ERR(Errc::internal, "a warm call is the split form's");
  if (v.warm && !c.pdl) return LTT_USAGE("warm calls of tier 0's step need programmatic launch (compute capability 9.0)");
  if (v.warm && (L % 8 != 0 || L > 4096))
    return LTT_USAGE("warm calls of tier 0's step need the block-a-row RMSNorm kernel (L a multiple of 8, up to 4096), L ", L);
  if (v.mma && (!shard_mma_device() || !mma_takes(v.mma_ck ? v.mma_ck : shard_mma_plan(M, Hs, L, fused), M, Hs, L, fused)))
    return LTT_USAGE("tier 0's MMA kernel does not take M ", M, " n ", Hs, " K ", L,
                     v.mma_ck ? cat(" with ", v.mma_ck, " blocks a cluster") : "", " on this device");
  if (v.bare) LTT_TRY(rmsnorm(c.R[0], L, c.g.get(), c.N.get(), M, L, c.eps(), NormOrder::fused, c.s));
  if (v.gemv && v.plan.cn == 0 && !shard_gemv_available(M, Hs, L, fused))
    return LTT_USAGE("tier 0's few-token kernel does not take M ", M, " n ", Hs, " K ", L, " on this device");
  if (!v.gemv && !v.mma && !pl.ks)
    return LTT_USAGE("tier 0's kernel does not take M ", M, " n ", Hs, " K ", L, ct ? cat(" with ", ct, " column tiles") : "",
                     " on this device");
  const size_t wn = static_cast<size_t>(Hs) * L;  // W's shard: what comes from memory (a decode step's weights are not in L2)
  const int sets = rotation_sets(wn * sizeof(bf));
  std::vector<DevBuf<bf>> w;
  LTT_TRY(copies(c.W.get(), wn, sets, w, c.s));
  // One call of the kernel the row names on A (N, or Z normalised with gw).
  const auto step = [&](const bf* A, const bf* gw, const bf* wi, bool pdl) -> Status {
    if (v.mma)
      return shard_mma_add(A, L, gw, c.eps(), NormOrder::fused, wi, L, c.S[0], p.H, c.Y[0], p.H, M, Hs, L, true, pdl, c.s,
                           v.mma_ck);
    if (v.gemv)
      return shard_gemv_add(A, L, gw, c.eps(), NormOrder::fused, wi, L, c.S[0], p.H, c.Y[0], p.H, M, Hs, L, true, pdl, c.s,
                            v.plan);
    return shard_gemm_add(pl, A, L, gw, c.eps(), NormOrder::fused, wi, L, c.S[0], p.H, c.Y[0], p.H, M, Hs, L, true, pdl, c.s);
  };
  auto t = timed_graph(c.s, reps, graph_calls(sets), [&](int i) -> Status {
    const bf* wi = w[i % sets].get();
    if (fused) return step(c.R[0], c.g.get(), wi, v.chained && c.pdl);  // R[0] stands for the reduced Z
    if (v.bare) return step(c.N.get(), nullptr, wi, false);              // N as made before the timing
    NormKernel nk;
    if (v.warm) {  // the stand-in for the collective brings this call's W into L2, behind the call before
      nk.pdl = true;
      nk.prefetch = L2Prefetch{wi, wn * sizeof(bf)};
    }
    LTT_TRY(rmsnorm(c.R[0], L, c.g.get(), c.N.get(), M, L, c.eps(), NormOrder::fused, c.s, nk));
    return step(c.N.get(), nullptr, wi, c.pdl);
  });
  if (!t.ok()) return t;
  LTT_TRY(check_tier0_output(c, p, fused ? c.R[0] : c.N.get(), fused,
                             v.mma ? "tier 0's MMA kernel" : v.gemv ? "tier 0's few-token kernel" : "tier 0's kernel"));
  return t;
}

Result<Timing> time_tier0_rank_cublas(const Problem& p, const Inputs& in, int reps) {
  GpuCase g(p);
  LTT_TRY(g.load(0, Contract{Algo::one_shot, NormOrder::fused}, in, -1));
  LTT_TRY(g.reset());
  GpuCtx& c = g.c;
  const int M = p.M, L = p.L, Hs = p.Hs();
  const size_t wn = static_cast<size_t>(Hs) * L;
  const int sets = rotation_sets(wn * sizeof(bf));
  std::vector<DevBuf<bf>> w;
  LTT_TRY(copies(c.W.get(), wn, sets, w, c.s));
  auto t = timed_graph(c.s, reps, graph_calls(sets), [&](int i) -> Status {
    LTT_TRY(rmsnorm(c.R[0], L, c.g.get(), c.N.get(), M, L, c.eps(), NormOrder::fused, c.s));
    LTT_TRY(widen(c.S[0], p.H, c.C.get(), Hs, M, Hs, c.s));
    LTT_TRY(c.gemm(c.N.get(), L, w[i % sets].get(), L, c.C.get(), Hs, M, Hs, L, 1.0f));
    return round_to(c.C.get(), Hs, c.Y[0], p.H, M, Hs, true, c.s);
  });
  if (!t.ok()) return t;
  LTT_TRY(check_tier0_output(c, p, c.N.get(), false, "the cuBLAS composition"));
  return t;
}

size_t l2_cache_bytes() {
  int dev = 0, l2 = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev) != cudaSuccess) {
    (void)cudaGetLastError();  // not left for the next launch's check to report
    return 0;
  }
  return static_cast<size_t>(l2);
}

Result<Timing> time_fake_allreduce(const Problem& p, const Inputs& in, int reps, Algo algo) {
  GpuCase g(p);
  LTT_TRY(g.load(1, Contract{algo, NormOrder::round_then_weight}, in, -1));
  LTT_TRY(g.reset());
  GpuCtx& c = g.c;
  const size_t n = static_cast<size_t>(p.M) * p.L;
  LTT_CUDA(cudaStreamSynchronize(c.s));
  return timed_graph(c.s, reps, kGraphCalls, [&](int) { return allreduce(c.R.cdev(), c.Z.dev(), p.T, 0, p.T, n, algo, c.s); });
}

Result<Timing> time_fake_lamport(const Problem& p, int reps) {
  auto rt = runtime_init(nullptr);
  if (!rt.ok()) return rt.error();
  const cudaStream_t s = rt->s;
  const int T = p.T, M = p.M, H = p.H, Hs = p.Hs();
  const size_t MH = static_cast<size_t>(M) * H, MHs = static_cast<size_t>(M) * Hs;
  std::vector<DevBuf<bf>> shard(static_cast<size_t>(T)), y(static_cast<size_t>(T));
  DevBuf<bf> recv;
  DevBuf<long long> stuck;
  LTT_TRY(recv.alloc(MH));
  LTT_TRY(stuck.alloc(1));
  std::vector<bf*> shard_p, y_p, recv_p(static_cast<size_t>(T), recv.get());
  for (int q = 0; q < T; ++q) {
    LTT_TRY(shard[q].alloc(MHs));
    LTT_TRY(y[q].alloc(MH));
    LTT_TRY(fill(shard[q].get(), MHs, static_cast<uint16_t>(0x3f80 + q), s));  // rank q's shard: 1 + q ulp, everywhere
    LTT_TRY(fill(y[q].get(), MH, 0x7fc1, s));                                  // poison (a NaN)
    shard_p.push_back(shard[q].get());
    y_p.push_back(y[q].get());
  }
  bf* recv1 = recv.get();
  DevBuf<bf*> shard_d, y_d, recv_d, dst_d;
  LTT_TRY(shard_d.alloc(T));
  LTT_TRY(y_d.alloc(T));
  LTT_TRY(recv_d.alloc(T));
  LTT_TRY(dst_d.alloc(1));
  LTT_CUDA(cudaMemcpy(shard_d.get(), shard_p.data(), T * sizeof(bf*), cudaMemcpyHostToDevice));
  LTT_CUDA(cudaMemcpy(y_d.get(), y_p.data(), T * sizeof(bf*), cudaMemcpyHostToDevice));
  LTT_CUDA(cudaMemcpy(recv_d.get(), recv_p.data(), T * sizeof(bf*), cudaMemcpyHostToDevice));
  LTT_CUDA(cudaMemcpy(dst_d.get(), &recv1, sizeof(bf*), cudaMemcpyHostToDevice));
  LTT_CUDA(cudaMemsetAsync(stuck.get(), 0xff, sizeof(long long), s));
  auto call = [&]() -> Status {
    LTT_TRY(fill(recv.get(), MH, kNegZero, s));
    LTT_TRY(lamport_publish(shard_d.get(), dst_d.get(), 1, T, 0, T, M, Hs, s));
    return lamport_read(recv_d.get(), y_d.get(), 0, T, MH, stuck.get(), s);
  };
  // Correct first: every rank's last row holds shard q in columns q Hs.., and no slot waited out.
  LTT_TRY(call());
  long long st = 0;
  std::vector<uint16_t> row(static_cast<size_t>(H));
  LTT_CUDA(cudaMemcpyAsync(&st, stuck.get(), sizeof st, cudaMemcpyDeviceToHost, s));
  for (int q = 0; q < T; ++q) {
    LTT_CUDA(cudaMemcpyAsync(row.data(), y[q].get() + (MH - H), H * sizeof(bf), cudaMemcpyDeviceToHost, s));
    LTT_CUDA(cudaStreamSynchronize(s));
    for (int c = 0; c < H; ++c)
      if (row[c] != static_cast<uint16_t>(0x3f80 + c / Hs))
        return LTT_ERR(Errc::internal, "lamport all-gather: rank ", q, " row ", M - 1, " column ", c, " holds 0x", std::hex,
                       row[c], ", not shard ", std::dec, c / Hs, "'s 0x", std::hex, 0x3f80 + c / Hs);
  }
  if (st >= 0) return LTT_ERR(Errc::internal, "lamport all-gather: slot ", st, " never left -0");
  return timed_graph(s, reps, kGraphCalls, [&](int) { return call(); });
}

Result<Timing> time_gemm_full(const Problem& p, const Inputs& in, int reps) {
  GpuCase g(p);
  LTT_TRY(g.load(1, Contract{}, in, -1));
  LTT_TRY(g.reset());
  GpuCtx& c = g.c;
  const size_t wn = static_cast<size_t>(p.H) * p.L;
  const int sets = rotation_sets(wn * sizeof(bf));
  std::vector<DevBuf<bf>> w;
  LTT_TRY(copies(c.W.get(), wn, sets, w, c.s));
  return timed_graph(c.s, reps, graph_calls(sets),
                     [&](int i) { return c.gemm(c.R[0], p.L, w[i % sets].get(), p.L, c.C.get(), p.H, p.M, p.H, p.L, 1.0f); });
}

}  // namespace ltt::gpu
