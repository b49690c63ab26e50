// run_cuda(): uploads a case's inputs to the buffers of this process's ranks
// (all T on fake ranks), poisons the outputs, runs the tier's pipeline from
// the table, downloads every local rank's Y. Also what every pipeline uses:
// the GEMM, the all-reduce (ltt's kernels over peer memory, or NCCL) and the
// fence between processes.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <set>
#include <string>
#include <utility>

#include "cuda_backend.hpp"
#include "ctx.cuh"

namespace ltt::gpu {

namespace {

// The GPU pipelines, indexed by tier: the one place that names them all.
using Pipeline = Status (*)(GpuCtx&);
constexpr Pipeline kPipelines[kNumTiers] = {&tier0::run, &tier1::run, &tier2::run, &tier3::run, &tier4::run};

constexpr uint16_t kPoisonBits = 0x7fa5;  // harness/backend.hpp's kPoison: a NaN no arithmetic produces

Status upload(const MatrixB& m, bf* dst, cudaStream_t s) {
  LTT_CUDA(cudaMemcpyAsync(dst, m.v.data(), m.size() * sizeof(bf), cudaMemcpyHostToDevice, s));
  return {};
}

// The process's CUDA state, made once: its device, streams, the cuBLAS
// handle, and NCCL's communicator when a run asks for it.
struct Runtime {
  int device = -1;
  bool pdl = false;  // programmatic dependent launch: compute capability 9.0 or later, and kernels built for it
  cudaStream_t s = nullptr, aux = nullptr;
  cublasHandle_t blas = nullptr;
  // Tier 0's three rotating Lamport receive buffers on fake ranks and how
  // often they were used.
  DevBuf<bf> lamport[3];
  size_t lamport_elems = 0;
  uint64_t lamport_uses = 0;
  void* nccl = nullptr;  // ncclComm_t
  Status init(int dev) {
    if (blas) {
      if (dev != device) return LTT_ERR(Errc::internal, "the cuda backend started on device ", device, ", asked for ", dev);
      return {};
    }
    int n = 0;
    LTT_CUDA(cudaGetDeviceCount(&n));
    if (dev < 0 || dev >= n) return LTT_USAGE("--backend cuda: device ", dev, " asked for, ", n, " visible");
    LTT_CUDA(cudaSetDevice(dev));
    device = dev;
    int major = 0;
    LTT_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    pdl = major >= 9 && kernels_wait_for_programmatic_launch();
    LTT_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    LTT_CUDA(cudaStreamCreateWithFlags(&aux, cudaStreamNonBlocking));
    LTT_CUBLAS(cublasCreate(&blas));
    LTT_CUBLAS(cublasSetStream(blas, s));
    // bf16 products accumulated in fp32 (CUBLAS_COMPUTE_32F below), as the
    // contract declares; the default math mode allows no TF32 down-conversion.
    LTT_CUBLAS(cublasSetMathMode(blas, CUBLAS_DEFAULT_MATH));
    return {};
  }
  // How many distinct GPUs the processes run on.
  Result<int> distinct_gpus(const Peers& peers) {
    cudaDeviceProp prop{};
    LTT_CUDA(cudaGetDeviceProperties(&prop, device));
    std::vector<char> uuids(static_cast<size_t>(peers.procs) * 16);
    LTT_TRY(peers.allgather(prop.uuid.bytes, 16, uuids.data()));
    std::set<std::string> distinct;
    for (int i = 0; i < peers.procs; ++i) distinct.insert(std::string(&uuids[static_cast<size_t>(i) * 16], 16));
    return static_cast<int>(distinct.size());
  }

  // The fences between processes: on the device (a kernel spinning on flags
  // in peer memory) when every process has its own GPU, so a pipeline stays
  // stream-ordered; else (processes sharing a GPU, which time-slices them
  // without MPS) on the host: streams drained, then MPI's barrier.
  // LTT_HOST_FENCES=1 forces the host's.
  bool fences_ready = false, device_fences = false, own_gpus = false;
  DevBuf<unsigned long long> flags_own;
  std::vector<void*> flags_opened;
  DevBuf<unsigned long long*> flags_ptrs;
  DevBuf<int> fence_failed;
  unsigned long long epoch = 0;
  cudaEvent_t ev_aux = nullptr, ev_main = nullptr;
  Status init_fences(const Peers& peers) {
    if (fences_ready) return {};
    auto d = distinct_gpus(peers);
    if (!d.ok()) return d.error();
    // LTT_HOST_FENCES=1 in any process puts every process on host fences
    // (they must all fence alike).
    const char* env = std::getenv("LTT_HOST_FENCES");
    const int mine = env && std::string(env) == "1";
    std::vector<int> host(static_cast<size_t>(peers.procs));
    LTT_TRY(peers.allgather(&mine, sizeof mine, host.data()));
    bool forced = false;
    for (int h : host) forced = forced || h != 0;
    own_gpus = *d == peers.procs;
    device_fences = own_gpus && peers.one_node && !forced;
    if (device_fences) {
      LTT_TRY(flags_own.alloc(static_cast<size_t>(peers.procs)));
      LTT_CUDA(cudaMemset(flags_own.get(), 0, sizeof(unsigned long long) * static_cast<size_t>(peers.procs)));
      LTT_TRY(fence_failed.alloc(1));
      LTT_CUDA(cudaMemset(fence_failed.get(), 0, sizeof(int)));
      cudaIpcMemHandle_t h{};
      std::vector<cudaIpcMemHandle_t> all(static_cast<size_t>(peers.procs));
      LTT_CUDA(cudaIpcGetMemHandle(&h, flags_own.get()));
      LTT_TRY(peers.allgather(&h, sizeof h, all.data()));
      std::vector<unsigned long long*> ptr(static_cast<size_t>(peers.procs));
      for (int q = 0; q < peers.procs; ++q) {
        if (q == peers.pid) {
          ptr[static_cast<size_t>(q)] = flags_own.get();
          continue;
        }
        void* m = nullptr;
        LTT_CUDA(cudaIpcOpenMemHandle(&m, all[static_cast<size_t>(q)], cudaIpcMemLazyEnablePeerAccess));
        flags_opened.push_back(m);
        ptr[static_cast<size_t>(q)] = static_cast<unsigned long long*>(m);
      }
      LTT_TRY(flags_ptrs.alloc(ptr.size()));
      LTT_CUDA(cudaMemcpy(flags_ptrs.get(), ptr.data(), ptr.size() * sizeof(ptr[0]), cudaMemcpyHostToDevice));
      LTT_CUDA(cudaEventCreateWithFlags(&ev_aux, cudaEventDisableTiming));
      LTT_CUDA(cudaEventCreateWithFlags(&ev_main, cudaEventDisableTiming));
      LTT_TRY(peers.barrier());  // every process's flags zero before anyone writes them
    }
    fences_ready = true;
    return {};
  }

  // NCCL over the processes, one rank each on distinct GPUs; NVLink
  // multicast (NVLS) off, as on every machine this runs on.
  // `why`: the flag that asked for it and what to use instead, for the
  // message when processes share GPUs.
  Status init_nccl(const Peers& peers, const char* why = "--transport nccl", const char* instead = "--transport ipc") {
#if LTT_HAVE_NCCL
    if (nccl) return {};
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    auto d = distinct_gpus(peers);
    if (!d.ok()) return d.error();
    if (*d != peers.procs)
      return LTT_USAGE(why, ": NCCL refuses two ranks on one GPU and ", peers.procs, " processes share ",
                       *d, " GPU(s): run one process per GPU, or use ", instead);
    ncclUniqueId id{};
    std::vector<ncclUniqueId> ids(static_cast<size_t>(peers.procs));
    if (peers.pid == 0) LTT_NCCL(ncclGetUniqueId(&id));
    LTT_TRY(peers.allgather(&id, sizeof id, ids.data()));  // process 0's id, to all
    ncclComm_t comm = nullptr;
    LTT_NCCL(ncclCommInitRank(&comm, peers.procs, ids[0], peers.pid));
    nccl = comm;
    return {};
#else
    (void)peers, (void)instead;
    return LTT_USAGE(why, ": this build has no NCCL (no nccl.h at configure time)");
#endif
  }
};

Runtime& runtime() {
  static Runtime rt;
  return rt;
}

}  // namespace

Status GpuCtx::gemm(const bf* A, int lda, const bf* B, int ldb, float* Cm, int ldc, int M, int n, int K, float beta) {
  // Row-major C [M, n] is column-major C^T [n, M]: C^T = B A^T, with B
  // row-major [n, K] read as column-major [K, n] and transposed.
  const float alpha = 1.0f;
  // With no addend, C is poisoned (NaN) first: an element the GEMM does not
  // write shows. (compute-sanitizer's initcheck also does not see cuBLAS's
  // bulk-copy stores as initialising C.)
  if (beta == 0.0f)
    LTT_CUDA(cudaMemset2DAsync(Cm, sizeof(float) * static_cast<size_t>(ldc), 0xff, sizeof(float) * static_cast<size_t>(n),
                               static_cast<size_t>(M), s));
  LTT_CUBLAS(cublasGemmEx(blas, CUBLAS_OP_T, CUBLAS_OP_N, n, M, K, &alpha, B, CUDA_R_16BF, ldb, A, CUDA_R_16BF, lda, &beta,
                          Cm, CUDA_R_32F, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  return {};
}

Result<RuntimeView> runtime_init(const Peers* peers) {
  Runtime& rt = runtime();
  LTT_TRY(rt.init(peers ? peers->device : 0));
  if (peers && peers->procs > 1) LTT_TRY(rt.init_fences(*peers));
  return RuntimeView{rt.s, rt.aux, rt.blas, rt.pdl, rt.device_fences, rt.own_gpus};
}

Result<void*> nccl_comm(const Peers& peers) {
  Runtime& rt = runtime();
  LTT_TRY(rt.init(peers.device));
  LTT_TRY(rt.init_nccl(peers));
  return rt.nccl;
}

Status attach_peer_memory(Layout& lay) {
  if (!lay.multi() || lay.peers->memory != PeerMemory::nccl_window) return {};
  if (!lay.peers->one_node)
    return LTT_USAGE("--peer-memory nccl over several nodes: NCCL's symmetric windows give load/store addresses on one "
                     "node only; run ltt's collectives on one node, or tiers 1-4 with --transport nccl");
  if (!have_nccl_windows())
    return LTT_USAGE("--peer-memory nccl: this build has no NCCL 2.28 or later (symmetric windows and its device API); "
                     "use --peer-memory cuda-ipc");
  Runtime& rt = runtime();
  LTT_TRY(rt.init(lay.peers->device));
  LTT_TRY(rt.init_nccl(*lay.peers, "--peer-memory nccl", "--peer-memory cuda-ipc"));
  lay.comm = rt.nccl;
  return {};
}

Status fence(const Layout& lay, cudaStream_t s, cudaStream_t aux) {
  if (!lay.multi()) return {};
  Runtime& rt = runtime();
  if (rt.device_fences) {  // stream-ordered: the aux stream joins, the fence, the aux stream waits for it
    LTT_CUDA(cudaEventRecord(rt.ev_aux, aux));
    LTT_CUDA(cudaStreamWaitEvent(s, rt.ev_aux, 0));
    LTT_TRY(device_fence(rt.flags_ptrs.get(), lay.peers->procs, lay.peers->pid, ++rt.epoch, 10.0, rt.fence_failed.get(), s));
    LTT_CUDA(cudaEventRecord(rt.ev_main, s));
    LTT_CUDA(cudaStreamWaitEvent(aux, rt.ev_main, 0));
    return {};
  }
  LTT_CUDA(cudaStreamSynchronize(s));
  LTT_CUDA(cudaStreamSynchronize(aux));
  return lay.peers->barrier();
}

// With NCCL no buffer is read by a sibling (nothing is shared) and NCCL's
// own collectives line the processes up: no fence.
Status GpuCtx::fence() { return transport == Transport::nccl ? Status{} : gpu::fence(lay, s, aux); }

Status GpuCtx::allreduce(const RankBufs& in, const RankBufs& out, size_t n, cudaStream_t st) {
  if (transport == Transport::nccl) {
#if LTT_HAVE_NCCL
    LTT_NCCL(ncclAllReduce(in[lo()], out[lo()], n, ncclBfloat16, ncclSum, static_cast<ncclComm_t>(nccl), st));
    return {};
#endif
  }
  return gpu::allreduce(in.cdev(), out.dev(), p.T, lo(), hi(), n, contract.algo, st, terms());
}

#if LTT_HAVE_NCCL
bool have_nccl() { return true; }
#else
bool have_nccl() { return false; }
#endif

Status cuda_available() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    cudaGetLastError();
    return LTT_USAGE("--backend cuda: no CUDA device (", e != cudaSuccess ? cudaGetErrorString(e) : "0 devices visible",
                     "): run it on a machine with a GPU (ltt check and ltt mutants also take --backend cpu)");
  }
  return {};
}

bool supported(Mutant m) {
  switch (m) {
    case Mutant::none:
    case Mutant::shard_last_rank:
    case Mutant::drop_rank:
    case Mutant::double_rank:
    case Mutant::eps_missing:
    case Mutant::eps_x10:
    case Mutant::g_missing:
    case Mutant::swap_shard_edge:
    case Mutant::lamport_stale:
    case Mutant::lamport_neg_zero:
    case Mutant::last_row_unwritten:
    case Mutant::tier1_own_s:
    case Mutant::gemm_round_then_add:
      return true;
    default:
      return false;
  }
}

bool supported_mutant(Mutant m) { return supported(m); }

int GpuCtx::lamport_next() {
  Runtime& rt = runtime();
  return static_cast<int>(rt.lamport_uses++ % 3);
}

const char* tier0_path_name(Tier0Path t) {
  switch (t) {
    case Tier0Path::fused: return "fused";
    case Tier0Path::split: return "split";
    case Tier0Path::gemv: return "gemv";
    case Tier0Path::gemv_split: return "gemv-split";
    case Tier0Path::mma: return "mma";
    case Tier0Path::mma_fused: return "mma-fused";
    case Tier0Path::cublas: return "cublas";
  }
  return "?";
}

Result<int> tier0_columns() {
  const char* env = std::getenv("LTT_TIER0_COLUMNS");
  if (!env || !*env) return 0;
  const std::string v = env;
  if (v != "1" && v != "2" && v != "4")
    return LTT_USAGE("LTT_TIER0_COLUMNS=", v, ": expected 1, 2 or 4 (16-column tiles a cluster of tier 0's kernel)");
  return std::stoi(v);
}

Result<Tier0Path> tier0_path(const Problem& p) {
  auto ct = tier0_columns();
  if (!ct.ok()) return ct.error();
  // A forced plan of the few-token kernel: well formed and taking the shape (or why not).
  const char* plan_env = std::getenv("LTT_TIER0_GEMV_PLAN");
  const bool plan_forced = plan_env && *plan_env;
  if (plan_forced) {
    auto pl = gemv_plan(p.M, p.Hs(), p.L);
    if (!pl.ok()) return pl.error();
  }
  const bool taken = p.M <= kTier0KernelLimit && shard_gemm_plan(p.M, p.Hs(), p.L).ks > 0;
  // The few-token kernel's two forms: N given (gemv-split, M up to 64 in
  // its one-block form, 128 in its cluster form) and normalising (gemv, M up to 16).
  const bool gemv = shard_gemv_available(p.M, p.Hs(), p.L, false), gemv_norm = shard_gemv_available(p.M, p.Hs(), p.L, true);
  // The MMA kernel where it takes the shape, unless a plan of the few-token kernel is forced.
  const bool mma = !plan_forced && shard_mma_plan(p.M, p.Hs(), p.L) > 0;
  Tier0Path chosen = tier0_default_path(p.M, p.Hs(), gemv, taken, *ct != 0, mma);
  if (const char* env = std::getenv("LTT_TIER0_PATH"); env && *env) {
    const std::string v = env;
    const Tier0Path all[] = {Tier0Path::fused, Tier0Path::split,     Tier0Path::gemv,  Tier0Path::gemv_split,
                             Tier0Path::mma,   Tier0Path::mma_fused, Tier0Path::cublas};
    const Tier0Path* named = std::find_if(std::begin(all), std::end(all), [&](Tier0Path t) { return v == tier0_path_name(t); });
    if (named == std::end(all))
      return LTT_USAGE("LTT_TIER0_PATH=", v, ": expected fused, split, gemv, gemv-split, mma, mma-fused or cublas");
    chosen = *named;
    if ((chosen == Tier0Path::fused || chosen == Tier0Path::split) && !taken)
      return LTT_USAGE("LTT_TIER0_PATH=", v, ": tier 0's kernel does not take M ", p.M, ", H/T ", p.Hs(), ", L ", p.L,
                       " on this device (it needs compute capability 9.0, H/T and L multiples of 16, M <= ",
                       kTier0KernelLimit, ", and its operands in one block's shared memory with its cluster of blocks "
                       "fitting the device); unset it to let ltt choose");
    const bool few = chosen == Tier0Path::gemv || chosen == Tier0Path::gemv_split;
    if (few && !(chosen == Tier0Path::gemv ? gemv_norm : gemv))
      return LTT_USAGE("LTT_TIER0_PATH=", v, ": tier 0's few-token kernel does not take M ", p.M, ", H/T ", p.Hs(), ", L ",
                       p.L, " on this device (it needs compute capability 8.0 or later, M <= ",
                       chosen == Tier0Path::gemv ? cat(gemv::kMaxTokens) : cat(gemv::kMaxTokens * gemv::kMaxTiles),
                       ", H/T a multiple of ", gemv::kCols, ", L a multiple of ", gemv::kStep, " up to ",
                       gemv::kWarps * gemv::kMaxSteps * gemv::kStep,
                       chosen == Tier0Path::gemv ? std::string()
                                                 : cat("; past that, on compute capability 9.0, a cluster plan that takes "
                                                       "the shape in one wave of blocks, M <= ", gemv::kMaxRows,
                                                       ": LTT_TIER0_GEMV_PLAN=CNxCK forces one without the wave bound"),
                       "); unset it to let ltt choose");
    const bool mma_named = chosen == Tier0Path::mma || chosen == Tier0Path::mma_fused;
    if (mma_named && shard_mma_plan(p.M, p.Hs(), p.L, chosen == Tier0Path::mma_fused) == 0)
      return LTT_USAGE("LTT_TIER0_PATH=", v, ": tier 0's MMA kernel does not take M ", p.M, ", H/T ", p.Hs(), ", L ", p.L,
                       " on this device (it needs compute capability 9.0 exactly: wgmma; M <= ", mma::kMaxRows,
                       ", H/T a multiple of ", mma::kRows, ", L a multiple of ", mma::kChunk,
                       " times the blocks of a cluster along K (1, 2, 4 or 8), H/T / ", mma::kRows,
                       " times those blocks no more than the SMs, and a block's share of L in shared memory",
                       chosen == Tier0Path::mma_fused ? ", with its normalisation's sums, rstd and share of g" : "",
                       "); unset it to let ltt choose");
    if ((few || mma_named) && *ct)
      return LTT_USAGE("LTT_TIER0_COLUMNS=", *ct, " with LTT_TIER0_PATH=", v, ": the column tiles are the cluster "
                       "kernel's (fused, split); unset one of them");
  }
  // A forced plan of the few-token kernel (LTT_TIER0_GEMV_PLAN) applies to
  // its split form only.
  if (plan_forced && chosen != Tier0Path::gemv_split) {
    if (*ct)
      return LTT_USAGE("LTT_TIER0_GEMV_PLAN=", plan_env, " with LTT_TIER0_COLUMNS=", *ct, ": the column tiles force the "
                       "cluster kernel (split), the plan is the few-token kernel's (gemv-split); unset one of them");
    return LTT_USAGE("LTT_TIER0_GEMV_PLAN=", plan_env, " with tier 0's path ", tier0_path_name(chosen),
                     ": the plan is the few-token kernel's with N given (gemv-split); unset it, or set LTT_TIER0_PATH=gemv-split");
  }
  // A forced tiling applies where the kernel runs, or says why it cannot.
  if ((chosen == Tier0Path::fused || chosen == Tier0Path::split) && *ct && shard_gemm_plan(p.M, p.Hs(), p.L, *ct).ks == 0)
    return LTT_USAGE("LTT_TIER0_COLUMNS=", *ct, ": tier 0's kernel cannot hold M ", p.M, ", H/T ", p.Hs(), ", L ", p.L,
                     " with that many column tiles a cluster on this device; unset it to let ltt choose");
  return chosen;
}

Status GpuCase::load(int t, const Contract& contract, const Inputs& in, int fault_rank, Mutant mut, const Peers* peers,
                     Transport transport) {
  static_assert(sizeof(bf16) == sizeof(bf), "host and device bf16 differ in size");
  settled = false;
  const Problem& p = c.p;
  if (t < 0 || t >= kNumTiers) return LTT_ERR(Errc::internal, "GpuCase: tier ", t);
  tier = t;
  Layout& lay = c.lay;
  lay.T = p.T;
  lay.peers = peers;
  const int procs = peers ? peers->procs : 1, pid = peers ? peers->pid : 0;
  if (p.T % procs != 0) return LTT_USAGE("--backend cuda: T = ", p.T, " over ", procs, " processes: P must divide T");
  lay.lo = pid * (p.T / procs);
  lay.hi = lay.lo + p.T / procs;
  if (lay.multi() && mut != Mutant::none)
    return LTT_USAGE("the cuda backend plants mutants on fake ranks in one process: run without mpirun");
  if (lay.multi() && !peers->one_node && (transport == Transport::ipc || t == 0))
    return LTT_USAGE("--backend cuda over several nodes: peer memory (CUDA IPC, NCCL's symmetric windows) reaches only "
                     "processes on one node; run tiers 1-4 with --transport nccl (tier 0 needs its ranks on one node)");
  Runtime& rt = runtime();
  LTT_TRY(rt.init(peers ? peers->device : 0));
  if (lay.multi()) LTT_TRY(rt.init_fences(*peers));
  LTT_TRY(attach_peer_memory(lay));
  c.device_fences = lay.multi() && rt.device_fences;
  c.transport = transport;
  if (transport == Transport::nccl) {
    if (!lay.multi() || lay.hi - lay.lo != 1)
      return LTT_USAGE("--transport nccl runs one rank per process: mpirun -np T with T = --tp (here T = ", p.T,
                       " over ", procs, " process(es))");
    // Set up at the first case, tier 0's too (which runs over peer memory
    // whatever the transport): a placement NCCL refuses (processes sharing
    // a GPU) is refused before any case has run, not after tier 0's.
    LTT_TRY(rt.init_nccl(*peers));
  }
  if (transport == Transport::nccl && t != 0) {
    c.nccl = rt.nccl;
  } else {
    c.transport = Transport::ipc;  // tier 0's fused collective always works over peer memory
  }
  c.contract = contract;
  c.fault_rank = fault_rank;
  c.mut = mut;
  c.s = rt.s;
  c.aux = rt.aux;
  c.blas = rt.blas;
  const size_t ML = static_cast<size_t>(p.M) * p.L, MH = static_cast<size_t>(p.M) * p.H;
  LTT_TRY(R0.alloc(lay, ML));
  LTT_TRY(S0.alloc(lay, MH));
  // What sibling ranks read through peer memory (with NCCL they read nothing).
  const bool share = c.transport == Transport::ipc;
  LTT_TRY(c.R.alloc(lay, ML, share));
  LTT_TRY(c.S.alloc(lay, MH, share));
  LTT_TRY(c.Y.alloc(lay, MH));
  LTT_TRY(c.g.alloc(static_cast<size_t>(p.L)));
  LTT_TRY(c.W.alloc(static_cast<size_t>(p.H) * p.L));
  LTT_TRY(c.C.alloc(MH));
  // N's rows padded to a multiple of 16 and zero there (16-row tiles; tier 0's kernel also zero-fills its own).
  const size_t MLpad = static_cast<size_t>((p.M + 15) / 16 * 16) * p.L;
  LTT_TRY(c.N.alloc(MLpad));
  LTT_CUDA(cudaMemsetAsync(c.N.get(), 0, MLpad * sizeof(bf), c.s));
  c.pdl = rt.pdl;
  {
    auto lt = lt_shape(p, tier);  // the GEMM GpuCtx::addmm runs, where a cuBLASLt algorithm is chosen
    if (!lt.ok()) return lt.error();
    c.lt = lt->value_or(LtShape{});
  }
  if (tier == 0) {
    LTT_TRY(c.Nr.alloc(lay, MLpad));
    for (int r = lay.lo; r < lay.hi; ++r) LTT_CUDA(cudaMemsetAsync(c.Nr[r], 0, MLpad * sizeof(bf), c.s));
    auto path = tier0_path(p);
    if (!path.ok()) return path.error();
    c.t0path = *path;
    if (c.t0path == Tier0Path::fused || c.t0path == Tier0Path::split) {
      auto ct = tier0_columns();
      if (!ct.ok()) return ct.error();
      c.gemm_plan = shard_gemm_plan(p.M, p.Hs(), p.L, *ct);
    }
    LTT_TRY(c.shard_s.alloc(lay, static_cast<size_t>(p.M) * p.Hs()));
    LTT_TRY(c.shard_y.alloc(lay, static_cast<size_t>(p.M) * p.Hs()));
    if (c.is(Mutant::gemm_round_then_add) && c.t0path != Tier0Path::cublas) {  // cuBLAS's path plants it in addmm
      LTT_TRY(c.zero_s.alloc(static_cast<size_t>(p.M) * p.Hs()));
      LTT_CUDA(cudaMemsetAsync(c.zero_s.get(), 0, c.zero_s.size() * sizeof(bf), c.s));
    }
    LTT_TRY(c.stuck_dev.alloc(1));
    LTT_TRY(c.stuck_in.alloc(1));
    if (lay.multi()) {  // every rank's own three receive buffers, filled with -0 (the empty sentinel)
      for (RankBufs& b : c.lam) {
        LTT_TRY(b.alloc(lay, MH, true));
        for (int r = lay.lo; r < lay.hi; ++r) LTT_TRY(fill(b[r], MH, kNegZero, c.s));
      }
    } else if (MH > rt.lamport_elems) {  // fake ranks: the process's, larger, filled with -0
      for (auto& b : rt.lamport) {
        LTT_TRY(b.alloc(MH));
        LTT_TRY(fill(b.get(), MH, kNegZero, c.s));
      }
      rt.lamport_elems = MH;
    }
    if (!lay.multi())
      for (int k = 0; k < 3; ++k) {
        c.fake_recv[k] = rt.lamport[k].get();
        const std::vector<bf*> every(static_cast<size_t>(p.T), c.fake_recv[k]);
        LTT_TRY(c.fake_dst[k].alloc(1));
        LTT_TRY(c.fake_src[k].alloc(every.size()));
        LTT_CUDA(cudaMemcpy(c.fake_dst[k].get(), every.data(), sizeof(bf*), cudaMemcpyHostToDevice));
        LTT_CUDA(cudaMemcpy(c.fake_src[k].get(), every.data(), every.size() * sizeof(bf*), cudaMemcpyHostToDevice));
      }
  }
  if (tier == 3) {
    LTT_TRY(c.P.alloc(lay, ML + MH, share));
    LTT_TRY(c.Z.alloc(lay, ML + MH));
  } else {
    LTT_TRY(c.Z.alloc(lay, ML));
    if (tier != 0) LTT_TRY(c.P.alloc(lay, MH, share));
  }
  for (int r = lay.lo; r < lay.hi; ++r) {
    LTT_TRY(upload(in.R[static_cast<size_t>(r)], R0[r], c.s));
    LTT_TRY(upload(in.S[static_cast<size_t>(r)], S0[r], c.s));
  }
  if (c.is(Mutant::g_missing)) LTT_TRY(fill(c.g.get(), static_cast<size_t>(p.L), 0x3f80, c.s));  // bf16 1.0
  else LTT_TRY(upload(in.g, c.g.get(), c.s));
  if (c.is(Mutant::swap_shard_edge)) {  // W's rows Hs - 1 and Hs swapped: two output columns across a shard edge
    MatrixB w = in.W;
    for (int k = 0; k < p.L; ++k) std::swap(w.at(p.Hs() - 1, k), w.at(p.Hs(), k));
    LTT_TRY(upload(w, c.W.get(), c.s));
    LTT_CUDA(cudaStreamSynchronize(c.s));  // w is freed on return
  } else {
    LTT_TRY(upload(in.W, c.W.get(), c.s));
  }
  LTT_CUDA(cudaStreamSynchronize(c.s));  // the receive buffers cleared before any sibling publishes
  settled = true;
  return {};
}

Status GpuCase::reset() {
  const Problem& p = c.p;
  const size_t ML = static_cast<size_t>(p.M) * p.L, MH = static_cast<size_t>(p.M) * p.H;
  for (int r = c.lo(); r < c.hi(); ++r) {
    LTT_CUDA(cudaMemcpyAsync(c.R[r], R0[r], ML * sizeof(bf), cudaMemcpyDeviceToDevice, c.s));
    LTT_CUDA(cudaMemcpyAsync(c.S[r], S0[r], MH * sizeof(bf), cudaMemcpyDeviceToDevice, c.s));
    LTT_TRY(fill(c.Y[r], MH, kPoisonBits, c.s));
  }
  return {};
}

Status run_pipeline(GpuCase& g) { return kPipelines[g.tier](g.c); }

Status check_fences() {
  Runtime& rt = runtime();
  if (!rt.device_fences) return {};
  int failed = 0;
  LTT_CUDA(cudaMemcpy(&failed, rt.fence_failed.get(), sizeof failed, cudaMemcpyDeviceToHost));
  if (failed)
    return LTT_ERR(Errc::internal, "a fence between processes: process ", failed - 1,
                   " did not arrive within 10 s (it stopped, or is stuck before the fence)");
  return {};
}

Status GpuCase::run() {
  settled = false;
  Status s = [&]() -> Status {
    LTT_TRY(run_pipeline(*this));
    if (c.is(Mutant::last_row_unwritten))  // the last token row never written: still poisoned
      for (int r = c.lo(); r < c.hi(); ++r)
        LTT_TRY(fill(c.Y[r] + static_cast<size_t>(c.p.M - 1) * c.p.H, static_cast<size_t>(c.p.H), kPoisonBits, c.s));
    // A fence: the sibling processes done before a next run overwrites what they read.
    return c.fence();
  }();
  // Every path waits for the streams before anything is read or freed.
  const cudaError_t sync = cudaDeviceSynchronize();
  LTT_TRY(s);
  if (sync != cudaSuccess) return LTT_ERR(Errc::internal, "tier ", tier, " on the GPU: ", cudaGetErrorString(sync));
  LTT_TRY(check_fences());
  settled = true;  // every process past the run's last fence
  if (tier == 0) {
    long long in_stuck = -1;
    LTT_CUDA(cudaMemcpy(&in_stuck, c.stuck_in.get(), sizeof(long long), cudaMemcpyDeviceToHost));
    if (in_stuck >= 0) {
      const long long per_rank = static_cast<long long>(c.p.M) * (c.p.L + c.p.H), ML = static_cast<long long>(c.p.M) * c.p.L;
      const long long r = in_stuck / per_rank, e = in_stuck % per_rank;
      const bool in_R = e < ML;
      const long long w = in_R ? c.p.L : c.p.H, k = in_R ? e : e - ML;
      return LTT_ERR(Errc::numerical, "tier 0's fused ", in_R ? "all-reduce of R" : "reduce-scatter of S", ": rank ", r,
                     " published -0 (the Lamport empty sentinel) at element [", k / w, ", ", k % w,
                     "]: every reader would wait for it forever");
    }
    LTT_CUDA(cudaMemcpy(&c.stuck, c.stuck_dev.get(), sizeof(long long), cudaMemcpyDeviceToHost));
    if (c.stuck >= 0) {
      const long long H = c.p.H, Hs = c.p.Hs();
      return LTT_ERR(Errc::numerical, "tier 0's Lamport all-gather: rank ", (c.stuck % H) / Hs,
                     " published -0 (the empty sentinel) at element [", c.stuck / H, ", ", c.stuck % H,
                     "]: every reader would wait for it forever");
    }
  }
  return {};
}

Status run_cuda(const Problem& p, int tier, const Contract& contract, const Inputs& in, int fault_rank,
                std::vector<MatrixB>& out, Mutant mut, const Peers* peers, Transport transport) {
  if (!supported(mut)) return LTT_USAGE("the cuda backend cannot plant this mutant (ltt mutants --backend cuda lists those it can)");
  GpuCase g(p);
  LTT_TRY(g.load(tier, contract, in, fault_rank, mut, peers, transport));
  if (static_cast<int>(out.size()) != g.c.hi() - g.c.lo())
    return LTT_ERR(Errc::internal, "run_cuda: ", out.size(), " output buffers for ranks ", g.c.lo(), "..", g.c.hi() - 1);
  LTT_TRY(g.reset());
  LTT_TRY(g.run());
  const size_t MH = static_cast<size_t>(p.M) * p.H;
  for (int r = g.c.lo(); r < g.c.hi(); ++r)
    LTT_CUDA(cudaMemcpy(out[static_cast<size_t>(r - g.c.lo())].v.data(), g.c.Y[r], MH * sizeof(bf), cudaMemcpyDeviceToHost));
  return {};
}

}  // namespace ltt::gpu
