// What a tier's GPU pipeline works on: every fake rank's device buffers, the
// replicated weights, the streams and the cuBLAS handle, and the up-projection
// GEMM (bf16 operands, fp32 accumulation and output, an fp32 addend).
#pragma once

#include <cublas_v2.h>

#include <optional>
#include <vector>

#include "cuda_backend.hpp"
#include "cuda_check.cuh"
#include "peers.hpp"
#include "inputs.hpp"
#include "member.hpp"
#include "kernels.cuh"
#include "nccl_window.hpp"

namespace ltt::gpu {

// A device allocation, freed on every path out.
template <class T>
class DevBuf {
 public:
  DevBuf() = default;
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  DevBuf(DevBuf&& o) noexcept : p_(o.p_), n_(o.n_) { o.p_ = nullptr; o.n_ = 0; }
  ~DevBuf() { if (p_) LTT_CUDA_NOTE(cudaFree(p_)); }
  Status alloc(size_t n) {
    T* old = p_;
    p_ = nullptr;
    if (old) LTT_CUDA(cudaFree(old));
    n_ = n;
    const size_t bytes = (n ? n : 1) * sizeof(T);
    const cudaError_t e = cudaMalloc(&p_, bytes);
    if (e == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      return LTT_ERR(Errc::internal, "cudaMalloc of ", bytes, " bytes: out of GPU memory (fake ranks hold every rank's "
                     "buffers on one GPU): use fewer tokens (--tokens), smaller dims or a smaller --tp, or one process "
                     "per rank (mpirun)");
    }
    LTT_CUDA(e);
    return {};
  }
  T* get() const { return p_; }
  size_t size() const { return n_; }

 private:
  T* p_ = nullptr;
  size_t n_ = 0;
};

// Which of the T ranks this process holds ([lo, hi): all of them on fake
// ranks), and its siblings when there are other processes.
struct Layout {
  int T = 1, lo = 0, hi = 1;
  const Peers* peers = nullptr;  // null: every rank is in this process
  void* comm = nullptr;          // ncclComm_t of the processes, where peers->memory is nccl_window
  bool multi() const { return peers && peers->procs > 1; }
};

// The T ranks' buffers of one kind: this process's own ranks' allocations,
// and, for a kind that sibling ranks read (`shared`), the others' buffers
// as this process reaches them: mapped through CUDA IPC, or, where
// peers->memory is nccl_window, one NCCL symmetric window a process holding
// all its ranks' buffers (each rank's at a multiple of 4 KiB) whose peers'
// addresses NCCL gives. The device array of all T pointers is what the
// collectives take. A rank's pointer is valid here only where this process
// may touch it: its own ranks always, the others' only when shared.
struct RankBufs {
  std::vector<DevBuf<bf>> own;
  std::vector<bf*> ptr;
  std::vector<void*> opened;  // IPC mappings, closed on the way out
  NcclWindow win;             // the window, when the buffers are one
  DevBuf<bf*> ptrs;
  RankBufs() = default;
  RankBufs(const RankBufs&) = delete;
  RankBufs& operator=(const RankBufs&) = delete;
  ~RankBufs() {
    note(close());
    note(window_free(win));
  }
  // The siblings' IPC mappings closed (a window stays until freed); every
  // one is tried, the first failure returned.
  Status close() {
    std::optional<Error> first;
    for (void* q : opened) {
      const cudaError_t e = cudaIpcCloseMemHandle(q);
      if (e != cudaSuccess && !first)
        first = LTT_ERR(Errc::internal, "cudaIpcCloseMemHandle (a sibling rank's buffer): ", cudaGetErrorString(e));
    }
    opened.clear();
    if (first) return *first;
    return {};
  }
  // After a failure, when the processes may not free their windows together:
  // the window left to the process's end.
  void abandon_window() { win = NcclWindow{}; }
  Status alloc(const Layout& l, size_t n, bool shared = false) {
    LTT_TRY(close());
    LTT_TRY(window_free(win));
    own.clear();
    ptr.assign(static_cast<size_t>(l.T), nullptr);
    const size_t mine = static_cast<size_t>(l.hi - l.lo);
    if (shared && l.multi() && l.peers->memory == PeerMemory::nccl_window) {
      if (!l.comm) return LTT_ERR(Errc::internal, "RankBufs: NCCL windows asked for without a communicator");
      const size_t stride = (n * sizeof(bf) + 4095) / 4096 * 4096;
      LTT_TRY(window_alloc(l.comm, mine * stride, win));
      for (int r = 0; r < l.T; ++r) {
        const size_t q = static_cast<size_t>(r) / mine, i = static_cast<size_t>(r) % mine;
        ptr[static_cast<size_t>(r)] = reinterpret_cast<bf*>(win.peer[q] + i * stride);
      }
    } else {
      own.resize(mine);
      for (int r = l.lo; r < l.hi; ++r) {
        LTT_TRY(own[static_cast<size_t>(r - l.lo)].alloc(n));
        ptr[static_cast<size_t>(r)] = own[static_cast<size_t>(r - l.lo)].get();
      }
    }
    if (shared && l.multi() && l.peers->memory == PeerMemory::cuda_ipc) {
      std::vector<cudaIpcMemHandle_t> h(mine), all(static_cast<size_t>(l.T));
      for (size_t i = 0; i < mine; ++i) LTT_CUDA(cudaIpcGetMemHandle(&h[i], own[i].get()));
      LTT_TRY(l.peers->allgather(h.data(), mine * sizeof(cudaIpcMemHandle_t), all.data()));
      for (int r = 0; r < l.T; ++r) {
        if (r >= l.lo && r < l.hi) continue;
        void* q = nullptr;
        LTT_CUDA(cudaIpcOpenMemHandle(&q, all[static_cast<size_t>(r)], cudaIpcMemLazyEnablePeerAccess));
        opened.push_back(q);
        ptr[static_cast<size_t>(r)] = static_cast<bf*>(q);
      }
    }
    LTT_TRY(ptrs.alloc(ptr.size()));
    LTT_CUDA(cudaMemcpy(ptrs.get(), ptr.data(), ptr.size() * sizeof(bf*), cudaMemcpyHostToDevice));
    return {};
  }
  bf* operator[](size_t r) const { return ptr[r]; }
  bf* operator[](int r) const { return ptr[static_cast<size_t>(r)]; }
  bf* const* dev() const { return ptrs.get(); }
  const bf* const* cdev() const { return ptrs.get(); }
};

// The up-projection GEMM of a tier's pipeline at a case's sizes, as
// cuBLASLt is asked for it (gemm_lt.cu): row-major Y [M, n] (ldy) = A [M, K]
// (lda) B [n, K]^T (ldb) + the addend (ld_add; none: 0), and the alignment in
// bytes that every rank's operands keep (the heuristic's list depends on it:
// one list for all ranks).
struct LtShape {
  int M = 0, n = 0, K = 0, lda = 0, ldb = 0, ld_add = 0, ldy = 0;
  bool addend = false;
  int align = 256;
  bool operator==(const LtShape& o) const;
};
// That GEMM for `tier` at p; none for tier 0 off its cuBLAS path.
Result<std::optional<LtShape>> lt_shape(const Problem& p, int tier);

struct GpuCtx {
  explicit GpuCtx(const Problem& problem) : p(problem) {}
  const Problem& p;
  Contract contract;
  Layout lay;  // the ranks this process holds, and its siblings
  Transport transport = Transport::ipc;
  void* nccl = nullptr;  // ncclComm_t of the processes (Transport::nccl)
  int fault_rank = -1;  // this rank up-projects with the next rank's shard of W (tiers 0, 2)
  Mutant mut = Mutant::none;  // a planted bug (supported(): the ones that make sense on the GPU)
  cudaStream_t s = nullptr, aux = nullptr;
  cublasHandle_t blas = nullptr;
  // Per rank. R, S: the partials ([M, L], [M, H]), read by sibling ranks;
  // Y: the output [M, H], poisoned before every run.
  RankBufs R, S, Y;
  DevBuf<bf> g, W;      // [L], [H, L]
  DevBuf<float> C;      // fp32 scratch of the GEMMs, [M, H]
  DevBuf<bf> N;         // RMSNorm output of the rank at hand, [M, L] (rows padded to 16, zero)
  // Workspaces, allocated once per case (GpuCase::load) so that a timed rerun
  // allocates nothing. Z: the all-reduced R ([M, L], or [M, L + H] in tier
  // 3); P: the partials a second collective reduces (tier 1's reduced S,
  // tiers 2 and 4's up-projected partials, tier 3's concatenation [R | S]);
  // tier 0: each rank's RMSNorm output, its reduce-scattered S shard and
  // output shard, its Lamport receive buffers (three, rotating) and the
  // stuck-slot words.
  RankBufs Z, P, Nr, shard_s, shard_y, lam[3];
  Tier0Path t0path = Tier0Path::cublas;  // tier 0's per-rank step (cuda_backend.hpp)
  ShardGemmPlan gemm_plan;               // and its kernel's shape (fused, split)
  bool pdl = false;             // programmatic dependent launch (Hopper and later)
  bool device_fences = false;   // processes each on its own GPU: fences (and Lamport waits) on the device
  DevBuf<bf> zero_s;  // tier 0 with gemm-round-then-add planted: a zero addend [M, H/T] for its own kernels
  DevBuf<long long> stuck_dev, stuck_in;  // the first -0 in the all-gather's slots, in R or S (tier 0)
  uint64_t runs = 0;  // runs of this case: which of the three receive buffers is in use
  // Fake ranks: tier 0's receive buffers, three, rotating, kept by the
  // process across cases (cuda_backend.cu); each filled with -0 when made.
  // lamport_next() is the next one's index; fake_recv[k] the buffer, and
  // as device arrays, fake_dst[k] = {it} and fake_src[k] = T times it.
  int lamport_next();
  bf* fake_recv[3] = {};
  DevBuf<bf*> fake_dst[3], fake_src[3];
  long long stuck = -1; // tier 0: the first slot a Lamport reader would wait for forever

  int T() const { return p.T; }
  int lo() const { return lay.lo; }
  int hi() const { return lay.hi; }
  bool is(Mutant m) const { return mut == m; }
  int w_shard(int r) const {
    return (r == fault_rank || (is(Mutant::shard_last_rank) && r == p.T - 1)) ? (r + 1) % p.T : r;
  }
  float eps() const {
    return is(Mutant::eps_missing) ? 0.0f : static_cast<float>(is(Mutant::eps_x10) ? 10 * p.eps : p.eps);
  }
  // The terms every reduction adds (drop-rank, double-rank).
  Terms terms() const {
    Terms t;
    if (is(Mutant::drop_rank)) t.drop = p.T - 1;
    if (is(Mutant::double_rank)) t.twice = p.T - 1;
    return t;
  }
  // Before a step that reads what sibling processes wrote (or writes what
  // they read): this process's streams drained, then every process here.
  // Nothing on fake ranks: one stream orders everything.
  Status fence();
  // out_q = the sum over the T ranks of in_q, for this process's ranks q
  // (n elements): ltt's own kernels over IPC in the contract's order, or
  // NCCL's all-reduce. in and out may be the same buffers on fake ranks only.
  Status allreduce(const RankBufs& in, const RankBufs& out, size_t n, cudaStream_t st);
  // C [M, n] (row-major, ldc) = A [M, K] (lda) B [n, K]^T (ldb) + beta C.
  Status gemm(const bf* A, int lda, const bf* B, int ldb, float* Cm, int ldc, int M, int n, int K, float beta);
  // Y [M, n] (ldy) = bf16(A [M, K] B [n, K]^T + add) with fp32 accumulation
  // and one rounding (add: bf16 [M, n], ld_add; null: none), -0 made +0 when
  // no_neg_zero. With gemm-round-then-add planted: cuBLAS into fp32, the
  // product rounded, the addend added, rounded again. By default the addend widened into C, gemm(), round_to();
  // with a cuBLASLt algorithm chosen (use_gemm_algo()), one cuBLASLt call
  // with bf16 output by that algorithm of the list for `lt` (gemm_lt.cu).
  Status addmm(const bf* A, int lda, const bf* B, int ldb, const bf* add, int ld_add, bf* Yo, int ldy, int M, int n, int K,
               bool no_neg_zero);
  LtShape lt;  // this case's GEMM (lt_shape()), set by GpuCase::load
};


// A case on the device: the context plus pristine copies of the partials, so
// that every run (the check's two, a benchmark's many) starts from the same
// inputs with poisoned outputs.
struct GpuCase {
  explicit GpuCase(const Problem& p) : c(p) {}
  GpuCase(const GpuCase&) = delete;
  GpuCase& operator=(const GpuCase&) = delete;
  // The siblings' mappings closed (no kernel of this process still reading
  // them), and every process past that point, before any process frees a
  // buffer that others mapped (NCCL windows are freed after that point, by
  // the members' destructors). After a failure the processes may stand at
  // different points: no barrier then (it could pair with another
  // collective and hang), the windows are left to the process's end (a
  // sibling may still read them), and the caller ends the job.
  ~GpuCase() {
    LTT_CUDA_NOTE(cudaDeviceSynchronize());
    RankBufs* shared[] = {&c.R, &c.S, &c.P, &c.lam[0], &c.lam[1], &c.lam[2]};
    for (RankBufs* b : shared) note(b->close());
    if (c.lay.multi() && settled) note(c.lay.peers->barrier());
    if (!settled)
      for (RankBufs* b : shared) b->abandon_window();
  }
  bool settled = false;  // the last load or run succeeded
  GpuCtx c;
  RankBufs R0, S0;
  int tier = -1;
  // lay: this process's ranks (default: all T here); peers must outlive the case.
  Status load(int tier, const Contract& contract, const Inputs& in, int fault_rank, Mutant mut = Mutant::none,
              const Peers* peers = nullptr, Transport transport = Transport::ipc);
  Status reset();  // partials from the pristine copies, outputs poisoned (stream-ordered)
  Status run();    // the tier's pipeline, then a check that the device finished cleanly
};

// The mutants of reference/member.hpp that the GPU pipelines can plant.
bool supported(Mutant m);

// The case's tier's pipeline alone: no synchronisation, no check (timed runs).
Status run_pipeline(GpuCase& g);
// The process's CUDA state (cuda_backend.cu), made on first use: its
// device (peers->device, or 0), streams, cuBLAS handle, and, over several
// processes, the fences between them (on the device when every process has
// its own GPU) and NCCL's communicator (one rank per process).
struct RuntimeView {
  cudaStream_t s, aux;
  cublasHandle_t blas;
  bool pdl;            // programmatic dependent launch available
  bool device_fences;  // the fences run on the device
  bool own_gpus;       // every process has a GPU of its own
};
Result<RuntimeView> runtime_init(const Peers* peers);
Result<void*> nccl_comm(const Peers& peers);  // ncclComm_t
// Where peers->memory is nccl_window: NCCL's communicator made (every
// process on a GPU of its own, or a usage error) and lay.comm set, so that
// RankBufs::alloc registers windows; nothing otherwise.
Status attach_peer_memory(Layout& lay);
// Every process's work on s and aux so far complete before any process's
// later work on them (GpuCtx::fence()).
Status fence(const Layout& lay, cudaStream_t s, cudaStream_t aux);
// After the device is synchronised: whether every device fence between
// processes completed (a sibling that never arrived is named).
Status check_fences();

// The pipelines, one per tier (gpu/tierK.cu), and their table.
namespace tier0 { Status run(GpuCtx&); }
namespace tier1 { Status run(GpuCtx&); }
namespace tier2 { Status run(GpuCtx&); }
namespace tier3 { Status run(GpuCtx&); }
namespace tier4 { Status run(GpuCtx&); }

}  // namespace ltt::gpu
