// NCCL symmetric windows as peer memory (nccl_window.hpp): allocation,
// registration, the peers' addresses from NCCL's device API, release.
#include "nccl_window.hpp"

#include "cuda_check.cuh"

#if LTT_HAVE_NCCL
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0) && __has_include(<nccl_device.h>)
#define LTT_NCCL_WINDOWS 1
#include <nccl_device.h>
#endif
#endif

namespace ltt::gpu {

#if LTT_NCCL_WINDOWS

namespace {

// Where each process's copy of window w lies in this process's address
// space (the device API's answer; the window's layout is NCCL's business).
__global__ void peer_addresses(ncclWindow_t w, int procs, char** out) {
  for (int q = static_cast<int>(threadIdx.x); q < procs; q += static_cast<int>(blockDim.x))
    out[q] = static_cast<char*>(ncclGetPeerPointer(w, 0, q));
}

}  // namespace

bool have_nccl_windows() { return true; }

Status window_alloc(void* comm_v, size_t bytes, NcclWindow& w) {
  if (w.win || w.base) return LTT_ERR(Errc::internal, "window_alloc: the window is already in use");
  auto comm = static_cast<ncclComm_t>(comm_v);
  int procs = 0, me = 0;
  LTT_NCCL(ncclCommCount(comm, &procs));
  LTT_NCCL(ncclCommUserRank(comm, &me));
  // Peers' addresses exist only within NCCL's load/store team (the
  // processes whose GPUs reach each other's memory directly, on one node);
  // ltt's kernels read every process's buffers, so all must be in it.
  const ncclTeam_t lsa = ncclTeamLsa(comm);
  if (lsa.nRanks != procs)
    return LTT_USAGE("--peer-memory nccl: NCCL's load/store team holds ", lsa.nRanks, " of the ", procs,
                     " processes (the others are on other nodes, or their GPUs do not reach each other's memory "
                     "directly), and ltt's kernels read every process's buffers; use one node of peer-connected GPUs");
  // The registration's granularity: every process asks for the same size.
  bytes = (bytes + NCCL_WIN_REQUIRED_ALIGNMENT - 1) / NCCL_WIN_REQUIRED_ALIGNMENT * NCCL_WIN_REQUIRED_ALIGNMENT;
  void* base = nullptr;
  LTT_NCCL(ncclMemAlloc(&base, bytes));
  w.comm = comm_v;
  w.base = static_cast<char*>(base);
  w.bytes = bytes;
  ncclWindow_t win = nullptr;
  LTT_NCCL(ncclCommWindowRegister(comm, base, bytes, &win, NCCL_WIN_COLL_SYMMETRIC));
  // Errc::internal, not usage: one process alone may meet this, and main()
  // says a usage error on process 0 only, then ends the job without
  // MPI_Abort (the others would wait in the next collective).
  if (!win)
    return LTT_ERR(Errc::internal, "--peer-memory nccl: NCCL registered no symmetric window (its symmetric memory needs CUDA VMM, "
                     "NCCL_CUMEM_ENABLE not 0, and every process's GPU reachable by load and store); use --peer-memory "
                     "cuda-ipc");
  w.win = win;
  char** dev = nullptr;
  LTT_CUDA(cudaMalloc(&dev, sizeof(char*) * static_cast<size_t>(procs)));
  peer_addresses<<<1, 32>>>(win, procs, dev);
  const cudaError_t launched = cudaGetLastError();
  w.peer.assign(static_cast<size_t>(procs), nullptr);
  const cudaError_t copied =
      launched == cudaSuccess ? cudaMemcpy(w.peer.data(), dev, sizeof(char*) * w.peer.size(), cudaMemcpyDeviceToHost) : launched;
  const cudaError_t freed = cudaFree(dev);
  if (launched != cudaSuccess)
    return LTT_ERR(Errc::internal, "peer_addresses<<<1, 32>>> (NCCL's device API, ncclGetPeerPointer): ",
                   cudaGetErrorString(launched));
  LTT_CUDA(copied);
  LTT_CUDA(freed);
  // Not expected once the team holds every process (above); a window
  // without its symmetric mapping would give none.
  for (int q = 0; q < procs; ++q)
    if (!w.peer[static_cast<size_t>(q)])
      return LTT_ERR(Errc::internal, "--peer-memory nccl: NCCL gives no address for process ", q, "'s copy of the window (no "
                       "symmetric mapping: NCCL_CUMEM_ENABLE=0, or NCCL_WIN_ENABLE=0?); use --peer-memory cuda-ipc");
  // NCCL maps every copy, this process's too, into one range of its own:
  // this process's copy is reached there or at the allocation alike (one
  // physical memory); ltt uses the allocation.
  w.peer[static_cast<size_t>(me)] = w.base;
  return {};
}

Status window_free(NcclWindow& w) {
  auto comm = static_cast<ncclComm_t>(w.comm);
  if (w.win) {
    const ncclWindow_t win = static_cast<ncclWindow_t>(w.win);
    w.win = nullptr;
    LTT_NCCL(ncclCommWindowDeregister(comm, win));
  }
  if (w.base) {
    void* base = w.base;
    w.base = nullptr;
    LTT_NCCL(ncclMemFree(base));
  }
  w.peer.clear();
  return {};
}

#else

bool have_nccl_windows() { return false; }

Status window_alloc(void*, size_t, NcclWindow&) {
  return LTT_USAGE("--peer-memory nccl: this build has no NCCL 2.28 or later (symmetric windows and the device API); "
                   "use --peer-memory cuda-ipc");
}

Status window_free(NcclWindow& w) {
  w = NcclWindow{};
  return {};
}

#endif

}  // namespace ltt::gpu
