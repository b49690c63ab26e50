// How the processes of one multi-process cuda run reach each other (one
// process per rank on one GPU, or several ranks per process across GPUs):
// the harness lends MPI's allgather and barrier, so gpu/ needs no MPI. Each
// process holds the contiguous ranks [lo, hi) of the T ranks and runs them
// on `device`; buffers that sibling ranks read are exported as CUDA IPC
// handles and mapped by the others (DESIGN.md section 5), or allocated as
// NCCL symmetric windows (memory, below).
#pragma once

#include <cstddef>
#include <functional>

#include "status.hpp"

namespace ltt::gpu {

// Where the buffers that sibling processes read live: cudaMalloc'd and
// mapped by the others through CUDA IPC handles exchanged over MPI, or
// NCCL's symmetric memory (nccl_window.hpp: ncclMemAlloc'd, registered as
// symmetric windows, peers' addresses from NCCL's device API; every
// process on a GPU of its own). The same kernels run over either, in the
// same orders: the outputs are bitwise the same.
enum class PeerMemory { cuda_ipc, nccl_window };

struct Peers {
  int pid = 0, procs = 1;  // this process, of `procs`
  int device = 0;          // the CUDA device this process runs on
  bool one_node = true;    // every process on this node (CUDA IPC reaches no further)
  PeerMemory memory = PeerMemory::cuda_ipc;
  // Every process's `bytes` bytes, in process order, into `all` (procs * bytes).
  std::function<Status(const void* mine, size_t bytes, void* all)> allgather;
  // Returns once every process has called it.
  std::function<Status()> barrier;
};

// How the collectives move data between processes: CUDA IPC peer memory with
// ltt's own kernels (the contract's one-shot and ring orders, bitwise the
// fake-rank results), or NCCL's all-reduce for tiers 1-4 (one rank per
// process, one GPU each; NCCL chooses its own order).
enum class Transport { ipc, nccl };

}  // namespace ltt::gpu
