// What a tier's GPU pipeline works on: every fake rank's device buffers, the
// replicated weights, the streams and the cuBLAS handle, and the up-projection
// GEMM (bf16 operands, fp32 accumulation and output, an fp32 addend).
#pragma once

#include <cublas_v2.h>

#include <vector>

#include "cuda_check.cuh"
#include "inputs.hpp"
#include "member.hpp"
#include "kernels.cuh"

namespace ltt::gpu {

// A device allocation, freed on every path out.
template <class T>
class DevBuf {
 public:
  DevBuf() = default;
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  DevBuf(DevBuf&& o) noexcept : p_(o.p_), n_(o.n_) { o.p_ = nullptr; o.n_ = 0; }
  ~DevBuf() { if (p_) cudaFree(p_); }
  Status alloc(size_t n) {
    if (p_) cudaFree(p_);
    p_ = nullptr;
    n_ = n;
    LTT_CUDA(cudaMalloc(&p_, (n ? n : 1) * sizeof(T)));
    return {};
  }
  T* get() const { return p_; }
  size_t size() const { return n_; }

 private:
  T* p_ = nullptr;
  size_t n_ = 0;
};

// The T ranks' buffers of one kind, and the device array of their pointers
// that the collectives take.
struct RankBufs {
  std::vector<DevBuf<bf>> b;
  DevBuf<bf*> ptrs;
  Status alloc(int T, size_t n) {
    b.clear();
    b.resize(static_cast<size_t>(T));
    std::vector<bf*> host;
    for (auto& x : b) {
      LTT_TRY(x.alloc(n));
      host.push_back(x.get());
    }
    LTT_TRY(ptrs.alloc(host.size()));
    LTT_CUDA(cudaMemcpy(ptrs.get(), host.data(), host.size() * sizeof(bf*), cudaMemcpyHostToDevice));
    return {};
  }
  bf* operator[](size_t r) const { return b[r].get(); }
  bf* const* dev() const { return ptrs.get(); }
  const bf* const* cdev() const { return ptrs.get(); }
};

struct GpuCtx {
  explicit GpuCtx(const Problem& problem) : p(problem) {}
  const Problem& p;
  Contract contract;
  int fault_rank = -1;  // this rank up-projects with the next rank's shard of W (tiers 0, 2)
  Mutant mut = Mutant::none;  // a planted bug (supported(): the ones that make sense on the GPU)
  cudaStream_t s = nullptr, aux = nullptr;
  cublasHandle_t blas = nullptr;
  RankBufs R, S, Y;     // per rank: [M, L], [M, H], [M, H] (Y poisoned before the run)
  DevBuf<bf> g, W;      // [L], [H, L]
  DevBuf<float> C;      // fp32 scratch of the GEMMs, [M, H]
  DevBuf<bf> N;         // RMSNorm output of the rank at hand, [M, L]
  // Workspaces, allocated once per case (GpuCase::load) so that a timed rerun
  // allocates nothing: tier 0's reduce-scattered S and output shards, its
  // Lamport receive buffer and stuck-slot word; tier 3's concatenations.
  RankBufs shard_s, shard_y, X;
  DevBuf<long long> stuck_dev, stuck_in;  // the first -0 in the all-gather's slots, in R or S (tier 0)
  // Tier 0's receive buffers: three, rotating, kept by the process across
  // cases (cuda_backend.cu); each filled with -0 when made.
  bf* lamport_buffer();
  long long stuck = -1; // tier 0: the first slot a Lamport reader would wait for forever

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
  // C [M, n] (row-major, ldc) = A [M, K] (lda) B [n, K]^T (ldb) + beta C.
  Status gemm(const bf* A, int lda, const bf* B, int ldb, float* Cm, int ldc, int M, int n, int K, float beta);
};

// A case on the device: the context plus pristine copies of the partials, so
// that every run (the check's two, a benchmark's many) starts from the same
// inputs with poisoned outputs.
struct GpuCase {
  explicit GpuCase(const Problem& p) : c(p) {}
  GpuCtx c;
  RankBufs R0, S0;
  int tier = -1;
  Status load(int tier, const Contract& contract, const Inputs& in, int fault_rank, Mutant mut = Mutant::none);
  Status reset();  // partials from the pristine copies, outputs poisoned (stream-ordered)
  Status run();    // the tier's pipeline, then a check that the device finished cleanly
};

// The mutants of reference/member.hpp that the GPU pipelines can plant.
bool supported(Mutant m);

// The case's tier's pipeline alone: no synchronisation, no check (timed runs).
Status run_pipeline(GpuCase& g);

// The pipelines, one per tier (gpu/tierK.cu), and their table.
namespace tier0 { Status run(GpuCtx&); }
namespace tier1 { Status run(GpuCtx&); }
namespace tier2 { Status run(GpuCtx&); }
namespace tier3 { Status run(GpuCtx&); }
namespace tier4 { Status run(GpuCtx&); }

}  // namespace ltt::gpu
