// `ltt check`: runs the tiers on a backend at TP sizes T, over real ranks
// (one MPI process per TP rank), fake ranks (all T in one process) or a mix
// (T/P ranks in each of P processes), and checks every rank's output:
//   - against the float64 truth and the tier's rigorous bound;
//   - against the emulated reference of the contract the backend declares,
//     as a ULP histogram at each element's error scale (DESIGN.md section 3):
//     every element within --ulp-max ULPs, at most --ulp-frac of them differing;
//   - every rank bitwise equal to rank 0; a second run bitwise equal to the
//     first; no poisoned (unwritten) element; no unexpected NaN/Inf; not all
//     zero;
//   - beside it, the production gate |y - ref| <= 8e-2 + 3e-2 |ref|.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "problem.hpp"
#include "status.hpp"

namespace ltt {

struct CheckOptions {
  Dims dims = kDimsK3;
  std::vector<int> tp = {8, 16};
  std::vector<int> tiers = {0, 1, 2, 3, 4};
  // Empty: the main job's token counts (tier 0 at 1, 5, 33, 128; tiers 1-4
  // also at 256, 257, 2048).
  std::vector<int> tokens;
  std::vector<Dist> dists = {Dist::realistic, Dist::exact, Dist::adversarial};
  uint64_t seed = 0;
  double eps = 1e-6;
  std::string backend = "cpu";
  // --backend cuda under mpirun: how the processes' collectives move data
  // ("ipc": ltt's kernels over CUDA IPC peer memory, the contract's orders;
  // "nccl": NCCL's all-reduce for tiers 1-4, one rank per process and GPU).
  std::string transport = "ipc";
  // --backend cuda under mpirun: where the buffers that sibling processes
  // read live ("cuda-ipc": cudaMalloc'd, mapped through CUDA IPC handles;
  // "nccl": NCCL symmetric windows, every process on a GPU of its own).
  std::string peer_memory = "cuda-ipc";
  // Whether the command line gave them: given where they choose nothing (the
  // cpu backend, or one process) they are refused, not ignored.
  bool transport_given = false, peer_memory_given = false;
  // The command line's arguments after the program's name: under mpirun
  // every process must have the same.
  std::string command_args;
  std::optional<Algo> algo;  // the backend's reduction algorithm; default: each tier's declared one
  std::string json, markdown, dump_dir;
  std::string html;       // a self-contained HTML report (heatmaps of the failing cases)
  bool html_all = false;  // heatmaps of every case, not only the failing ones
  double timeout = 300;  // seconds without progress before the run is ended
  // The optional emulated-reference gate (off when negative): every element
  // within ulp_max ULPs of the emulated reference, at most ulp_frac differing.
  // For an implementation that claims the reference's own orders; the
  // verdict itself is the admissible sets.
  double ulp_max = -1;
  double ulp_frac = -1;
  std::string plant;     // "" or "shard-off-by-one" (to prove the checks); "hang" is --inject hang on rank 1
  // A fault of the run itself, to prove the harness ends it: "", "crash",
  // "hang" or "exit" on TP rank inject_rank (at its first backend run).
  std::string inject;
  int inject_rank = 1;
  std::string mutant;    // a planted bug of the cpu backend (member.hpp mutants(); ltt mutants)
  // Seeds of variants (random correct members of each tier's family,
  // member.hpp): every case runs once per seed and must pass every time.
  std::vector<uint64_t> variants;
  // --backend cuda: run every case once per cuBLASLt algorithm of its GEMM
  // (gpu::gemm_algos): "all", "listed" (the heuristic's), "split-k" (the
  // split-K forms) or indices ("0-3,9"); "" (the default): ltt's own GEMM path.
  std::string gemm_algos;
  bool quiet = false;    // no table on stdout (ltt mutants collects the results itself)
  // Check every flag and shape, and whether the cases fit in memory, then
  // return 0 having run nothing (ltt mutants: bad input refused before its
  // first line). `caller` names the subcommand in the memory message.
  bool plan_only = false;
  std::string caller = "check";
  std::string command;   // the command line, for reports and reproduction
};

// Returns the exit code (0 all hold, 1 a numerical failure); errors are
// usage or internal problems.
struct CaseResult;
// --gemm-algos: the entries of a case's list of cuBLASLt algorithms
// (gpu::gemm_algos()) that run: "all", "listed" (the heuristic's), "split-k"
// (the split-K forms) or indices ("7", "0-3", "0-3,9"), those past the list
// left out; anything else is a usage error.
Result<std::vector<int>> select_gemm_algos(const std::string& sel, const std::vector<std::string>& list);
// The path of the running binary (for reproduce lines).
std::string self_path();
// s as one word of a POSIX shell: unchanged when it holds only characters
// no shell treats specially, else in single quotes (a ' inside as '\'').
// Reproduce lines quote every path and value with it, so that a path with a
// space or a quote runs as printed.
std::string shell_word(const std::string& s);
// The token counts ltt check runs when --tokens is not given (tier 0: up to 128).
std::vector<int> default_tokens(int tier);
// With `results`, every case's result is appended there too.
Result<int> run_check(const CheckOptions& o, MPI_Comm comm, std::vector<CaseResult>* results = nullptr);

}  // namespace ltt
