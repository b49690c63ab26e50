// `ltt simulate`: a timing model of the tiers at any TP and M. Each kernel
// costs max(its launch floor, bytes / bandwidth, FLOPs / rate); each
// collective costs latency + bytes / link bandwidth (NCCL's ring for tiers
// 1-4, peer-memory one-shot and the Lamport all-gather for tier 0, the
// network between nodes); tier 1's shared reduce overlaps its GEMM. The
// parameters are a machine file that `ltt bench --machine-out` fits on the
// GPU at hand; the same kernel lists, all T ranks serialised on one GPU, give
// the fake-rank times `ltt bench` measures, which is how the model is checked.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

#include "problem.hpp"
#include "status.hpp"

namespace ltt {

struct Machine {
  std::string name, source;
  // One GPU (fitted by ltt bench).
  double copy_GBps = 4183;     // device-to-device copy, bytes read + written
  double launch_us = 3;        // one small kernel inside a stream of them
  double elem_eff = 0.7;       // streaming kernels' share of the copy bandwidth (RMSNorm, reductions, copies), large sizes
  double elem2d_eff = 0.39;    // 2-D strided conversions' share (widen, round: an index division per element)
  double gemm_floor_us = 8;    // one small GEMM inside a stream of them
  double gemm_mem_eff = 0.44;  // a weight-bound GEMM's share of the copy bandwidth, alone (a cold weight)
  double gemm_warm_eff = 0.9;  // the same inside a stream of GEMMs on one weight (fake ranks: it stays in L2)
  double gemm_TFLOPs = 718;    // a compute-bound GEMM's rate
  // Measured shard GEMMs in a stream ([M, L] x [L, n]^T, n = H / T), n -> M -> us:
  // cuBLAS's choice of kernel makes their time uneven in M (at T 16, M 256 took
  // longer than M 2048), which no formula follows; fake-rank predictions
  // interpolate this table (log M) where it has the width and the latent
  // width L it was measured at (past its largest M, the model's growth).
  std::map<int, std::map<int, double>> gemm_shard_us;
  int gemm_shard_L = 0;        // the L of the table's GEMMs ([M, L] x [L, n]^T)
  // Between GPUs (leads, not measured by ltt bench on one GPU; what-if flags).
  double link_GBps = 287;      // per-GPU NVLink bus bandwidth of an NCCL all-reduce
  double link_us = 5;          // a peer-memory exchange's latency (tier 0's one-shot and Lamport copy)
  double nccl_us = 20;         // an NCCL collective's latency from C++
  int gpus_per_node = 8;       // 1 to kMaxGpusPerNode
  // How tiers 1-4 reduce across GPUs: "ring" (NCCL's ring), "tree" (latency
  // log2 T hops), or "one-shot" (every rank reads its T-1 peers' buffers).
  std::string collective = "ring";
  double net_GBps = 50;        // per-GPU network bandwidth between nodes (400 Gb/s)
  double net_us = 15;          // a network collective's added latency
};

Result<Machine> load_machine(const std::string& path);
// What a JSON library exception says, without its "[json.exception.x.n] " tag.
std::string json_reason(const std::exception& e);
// The built-in machine: bench/machines/h200.json as it was at build time.
Machine default_machine();
Status save_machine(const Machine& m, const std::string& path);
// Every figure finite and in a range that keeps each prediction a finite
// number of microseconds (a what-if of 3e-308 GB/s would give infinities);
// `what` names the source in the message (a file, or the flags).
Status check_machine(const Machine& m, const std::string& what);
// The one-GPU parameters from `ltt bench`'s JSON (rows launch, widen, round,
// rmsnorm, gemm-shard, gemm-full, tier1-all; one process, fake ranks); the
// rest stay at their leads. The streaming kernels' efficiencies are fitted
// at their largest run and the GEMM's rate at its largest M, so those must
// be large (kFit* below): figures of small M alone are refused, not fitted
// into a machine that mispredicts. More figures (another T, the same dims)
// add their shard GEMMs to the table.
// The bytes ltt bench counts for its rmsnorm rows (R read, N written, g
// read) and for its widen and round rows ([M, H] read in one width, written
// in the other): fit_possible() predicts from them what the rows will say.
inline double bench_rmsnorm_bytes(double M, double L) { return 2 * (2 * M * L) + 2 * L; }
inline double bench_conv_bytes(double M, double H) { return 6 * M * H; }
inline constexpr double kFitStreamBytes = 16e6;  // the largest rmsnorm, widen and round runs move at least this
inline constexpr int kMaxGpusPerNode = 1024;        // a machine file's and --gpus-per-node's bound
inline constexpr int kFitGemmTokens = 1024;       // the largest gemm-full run has at least this M (compute-bound)
// The command line an ltt bench JSON file names (its "command"), or words
// saying it names none.
std::string bench_command(const nlohmann::json& bench);
// The machine fitted from ltt bench's figures; its name says so, and its
// source names the command that fitted it (`fitted_by`: ltt simulate --fit's
// command line; empty: the bench run itself, --machine-out) and the bench
// run's.
Result<Machine> fit_machine(const nlohmann::json& bench, const std::string& fitted_by = {});
// Whether ltt bench at these dims, token counts and tiers will write figures
// fit_machine takes: said before the run, not after it (--machine-out).
Status fit_possible(Dims d, const std::vector<int>& tokens, const std::vector<int>& tiers);
Status add_shard_gemms(Machine& m, const nlohmann::json& bench);
// How a fitted machine predicts the figures it was fitted from, as ltt
// simulate --check would judge them (each tier row within 25%, the fastest
// tier where it wins by > 10%): "# ..." lines to print beside the machine
// file, so that its quality is a stated figure (the model's tier 0 predates
// its fusion and misses today's kernels: a fit is not refused for that).
// Rows a bench run never writes (a case twice) are refused.
Result<std::string> fit_against(const Machine& m, const nlohmann::json& bench, const std::string& file);
// An ltt bench --json read whole, each object's keys once; `flag` ("--check",
// "--fit") opens every message.
Result<nlohmann::json> read_bench_json(const std::string& file, const std::string& flag);

// Predicted latency (us) of `tier` at (dims, T, M): real ranks (one per GPU)
// or fake ranks (all T on one GPU, as ltt bench measures them). NaN where the
// tier does not apply (tier 0: M > 128, T < 2, or ranks on several nodes).
double predict_us(const Machine& m, int tier, Dims d, int T, int M, bool fake);

struct SimulateOptions {
  Dims dims = kDimsK3;
  std::vector<int> tp = {8, 16, 32};
  std::vector<int> tokens;  // empty: 1..16384
  std::string machine;      // machine file; empty: bench/machines/h200.json, built in
  Machine m = default_machine();  // with the what-ifs applied
  Machine base = m;               // the machine's own figures (the file's, or the built-in ones), before the what-ifs
  bool fake = false;        // model fake ranks on one GPU instead of one rank per GPU
  std::string check;        // an ltt bench JSON: predicted times against it (fake ranks, or one process per GPU)
  std::string json, svg;
  std::string command;
  // The what-if flags given (what_if_table()'s entries, in its order): one
  // that no prediction of the run uses is refused, not ignored.
  std::vector<const struct WhatIf*> what_ifs;
};

// The what-if flags and the machine figure each replaces: main declares and
// applies them from this table, and the judging of a what-if (read by some
// prediction? moved from the machine's own figure?) takes and prints that
// figure through it. --copy-GBps is the one figure of one GPU; the others
// are between GPUs, which fake ranks never read.
struct WhatIf {
  const char* flag;
  std::variant<double Machine::*, int Machine::*, std::string Machine::*> figure;
  bool between_gpus;
};
const std::vector<WhatIf>& what_if_table();

// Why a link or network what-if `flag` changes no prediction of ranks that are
// all fake (`real_T` empty: one GPU, no link) or one per GPU at these T; empty
// when it does change some.
std::string what_if_unused(const std::string& flag, const Machine& m, const std::vector<int>& real_T);

// --json's and --svg's "did not finish" notes, written once the paths are
// known sound and before anything else can refuse the run (main).
Status claim_simulate_reports(const SimulateOptions& o);
Result<int> run_simulate(const SimulateOptions& o);

}  // namespace ltt
