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
  // The registration's granularity: every process asks for the same size.
  bytes = (bytes + NCCL_WIN_REQUIRED_ALIGNMENT - 1) / NCCL_WIN_REQUIRED_ALIGNMENT * NCCL_WIN_REQUIRED_ALIGNMENT;
  void* base = nullptr;
  LTT_NCCL(ncclMemAlloc(&base, bytes));
  w.comm = comm_v;
  w.base = static_cast<char*>(base);
  w.bytes = bytes;
  ncclWindow_t win = nullptr;
  LTT_NCCL(ncclCommWindowRegister(comm, base, bytes, &win, NCCL_WIN_COLL_SYMMETRIC));
  if (!win)
    return LTT_USAGE("--peer-memory nccl: NCCL registered no symmetric window (its symmetric memory needs CUDA VMM, "
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
  cudaFree(dev);
  LTT_CUDA(copied);
  // A window registered without its symmetric mapping (NCCL decides that
  // per communicator: all ranks on one node, direct P2P between every pair,
  // CUDA VMM on) has no peers' addresses to give.
  for (int q = 0; q < procs; ++q)
    if (!w.peer[static_cast<size_t>(q)])
      return LTT_USAGE("--peer-memory nccl: NCCL registered the window without a symmetric mapping (no address for "
                       "process ", q, "'s copy): its symmetric memory needs every process on one node, direct P2P "
                       "between every pair of GPUs and CUDA VMM (NCCL_CUMEM_ENABLE not 0); use --peer-memory cuda-ipc");
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
