// NCCL's symmetric memory as the peer memory that ltt's collectives read and
// write across processes (Peers::memory = nccl_window): each process's
// buffer of one kind is one ncclMemAlloc allocation, registered by every
// process together as a symmetric window (ncclCommWindowRegister,
// NCCL_WIN_COLL_SYMMETRIC), and NCCL 2.28's device API (ncclGetPeerPointer)
// gives the address at which this process reaches each sibling's copy. The
// other path is CUDA IPC handles exchanged over MPI (ctx.cuh, RankBufs).
// No NCCL types here: ctx.cuh includes it in every CUDA file.
#pragma once

#include <cstddef>
#include <vector>

#include "status.hpp"

namespace ltt::gpu {

// Whether this build can register symmetric windows and ask the device API
// for peers' addresses (NCCL 2.28 or later at configure time).
bool have_nccl_windows();

// One process's window: `bytes` of its own at `base`, and at peer[q] the
// address of process q's window here (peer[pid] == base: NCCL's alias of
// this process's own copy is not used).
struct NcclWindow {
  void* comm = nullptr;  // ncclComm_t the window was registered with
  void* win = nullptr;   // ncclWindow_t
  char* base = nullptr;
  size_t bytes = 0;
  std::vector<char*> peer;
};

// Collective over the communicator's processes: every one calls it with the
// same bytes, in the same order as its other window calls.
Status window_alloc(void* comm, size_t bytes, NcclWindow& w);
// Deregisters and frees. Only once no process reads the window any more
// (the caller's barrier). Deregistration is local in NCCL 2.28 (only the
// registration is collective); after a failure the caller leaves the
// window to the process's end all the same, since the siblings may still
// be reading it.
Status window_free(NcclWindow& w);

}  // namespace ltt::gpu
