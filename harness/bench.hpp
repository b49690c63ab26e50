// `ltt bench --backend cuda`: what the cuda backend's kernels and tiers cost on
// the GPU at hand, beside the memory roofline (bytes moved / the copy
// bandwidth measured in the same run): one RMSNorm, tier 0's per-rank compute,
// the full up-projection GEMM, and every tier end to end on fake ranks.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "problem.hpp"
#include "status.hpp"

namespace ltt {

struct BenchOptions {
  Dims dims = kDimsK3;
  std::vector<int> tp = {8};
  std::vector<int> tokens = {1, 5, 33, 128, 256, 2048, 8192};
  std::vector<int> tiers = {0, 1, 2, 3, 4};
  int reps = 20;
  std::string backend = "cuda";
  std::string json;
  std::string machine_out;  // write the fitted timing-model calibration here (ltt simulate --machine)
  std::string peer_memory = "cuda-ipc";  // under mpirun: CUDA IPC or NCCL symmetric windows (CheckOptions)
  std::string command;
};

Result<int> run_bench(const BenchOptions& o);
// Under mpirun (P processes, the node's GPUs in turn): every tier end to end
// over real ranks (T/P per process; ipc, and NCCL where every process has its
// own GPU and T = P), tier 0 against its unfused NCCL composition, and the
// all-reduce's bus bandwidth (nccl-tests' definition) over sizes; the token
// counts where the fastest of tiers 0, 1 and 2 changes.
Result<int> run_bench_ranks(const BenchOptions& o, MPI_Comm comm);

}  // namespace ltt
