// ltt: the latent-MoE tail testbed's command line.
//
//   ltt check                the tiers on a backend, over fake or real TP ranks, checked
//   ltt mutants              planted bugs, one at a time, through check's checks
//   ltt golden --out DIR     golden tensors: case files and their manifest
//   ltt regress DIR          regenerate a golden set, compare bit for bit
//   ltt verify --case C --output O   check outputs made anywhere against a case
//   ltt selftest [--bench]   the reference of every tier against the float64 truth
//   ltt bench --backend cuda what the cuda backend's kernels and tiers cost, beside the roofline
//   ltt simulate             a timing model of the tiers at any TP and M (no GPU needed)
//
// Every flag is parsed by one function of flags.hpp, the same in every
// subcommand that takes it; a flag given twice, an empty value, a stray word
// or a flag the subcommand does not use is refused, naming it. Outputs are
// checked before any work. Exit codes: 0 pass, 1 numerical failure, 2 bad
// input or usage (also: ran nothing, out of memory).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <new>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <mpi.h>
#include <omp.h>
#include <nlohmann/json.hpp>

#include "bench.hpp"
#include "check.hpp"
#include "cuda_backend.hpp"
#include "flags.hpp"
#include "golden.hpp"
#include "invariance.hpp"
#include "member.hpp"
#include "mutants.hpp"
#include "outfile.hpp"
#include "problem.hpp"
#include "process.hpp"
#include "report.hpp"
#include "selftest.hpp"
#include "simulate.hpp"
#include "tier.hpp"
#include "verify.hpp"
#include "version.hpp"

namespace {

namespace flags = ltt::flags;

template <class T>
struct IsList : std::false_type {};
template <class T>
struct IsList<std::vector<T>> : std::true_type {};

// What --help shows for a flag's value, from its target's type: LIST (comma-
// separated), INT, NUM, DIMS, PATH for text (a flag whose text is one of a set
// of names says NAME where it is registered), NAME for the enums.
template <class T>
const char* value_kind() {
  if constexpr (IsList<T>::value) return "LIST";
  else if constexpr (std::is_same_v<T, double>) return "NUM";
  else if constexpr (std::is_integral_v<T> || std::is_same_v<T, std::optional<int>>) return "INT";
  else if constexpr (std::is_same_v<T, ltt::Dims>) return "DIMS";
  else if constexpr (std::is_same_v<T, std::string>) return "PATH";
  else return "NAME";
}

// Registers `name` on `app`: one value (a second occurrence is refused), read
// by `parse(name, text)` into `target`; a refused value ends the parse with
// the parser's message.
template <class T, class Parse>
CLI::Option* add(CLI::App* app, const std::string& name, T& target, Parse parse, const std::string& help) {
  auto* opt = app->add_option_function<std::string>(
      name,
      [&target, parse, name](const std::string& s) {
        auto r = parse(name, s);
        if (!r.ok()) throw CLI::ValidationError(r.error().describe());  // escaped, with its file and line
        target = std::move(*r);
      },
      help);
  opt->multi_option_policy(CLI::MultiOptionPolicy::Throw);
  opt->type_name(value_kind<T>());
  return opt;
}

// The flags shared by several subcommands: one definition each.
auto tp_list = [](const std::string& f, const std::string& s) { return flags::int_list(f, s, 1, 4096); };
auto token_list = [](const std::string& f, const std::string& s) { return flags::int_list(f, s, 1, 1 << 30); };
auto eps_value = [](const std::string& f, const std::string& s) { return flags::real(f, s, 0, 1, true); };
constexpr const char* kEpsHelp =
    "RMSNorm eps, in (0, 1] and at least L 2^-102 (7e-28 at k3: below it a sum of squares flushed to zero could outweigh eps)";
auto path_value = [](const std::string& f, const std::string& s) { return flags::path(f, s); };
auto optional_algo = [](const std::string& f, const std::string& s) -> ltt::Result<std::optional<ltt::Algo>> {
  auto a = flags::algo(f, s);
  if (!a.ok()) return a.error();
  return std::optional<ltt::Algo>(*a);
};
auto ulp_max_value = [](const std::string& f, const std::string& s) { return flags::real(f, s, 0, 1e30); };
auto ulp_frac_value = [](const std::string& f, const std::string& s) { return flags::real(f, s, 0, 1); };

// A default list as the flag takes it: 1,5,33.
std::string list_str(const std::vector<int>& v) { return ltt::join(v, ","); }

// --backend's help for ltt mutants: the mutants the cuda backend can plant,
// read from the backend itself, so that the list cannot go stale.
std::string cuda_mutants_help() {
  std::string names;
  for (const auto& d : ltt::mutants())
    if (ltt::gpu::supported_mutant(d.m)) names += (names.empty() ? "" : ", ") + std::string(d.name);
  return "cpu, or cuda (the mutants its GPU pipelines can carry: " +
         (names.empty() ? std::string("none in this build, which has no cuda backend") : names) + ")";
}

// Each tier's declared RMSNorm order, read from the tier table, grouped by
// order: "tier 0 fused; tiers 1, 2, 3, 4 round-then-weight".
std::string declared_norm_orders() {
  std::map<std::string, std::vector<int>> by_order;
  for (const auto& t : ltt::tier_table()) by_order[ltt::name(t.contract.norm)].push_back(t.id);
  return ltt::join(by_order, "; ", [](const auto& e) {
    return std::string(e.second.size() == 1 ? "tier " : "tiers ") + ltt::join(e.second, ", ") + " " + e.first;
  });
}

int fail(const ltt::Error& e) {
  std::fprintf(stderr, "ltt: %s\n", e.describe().c_str());
  return e.exit_code();
}

// golden, regress, verify, selftest and mutants run whole in one process:
// under mpirun every process would print the same report and race on the
// same files. Process 0 says so; all exit 2.
bool refuse_under_mpirun(const char* sub) {
  const int n = flags::launched_processes();
  if (n <= 1) return false;
  if (flags::launched_rank() == 0)
    std::fprintf(stderr,
                 "ltt: %s runs in one process (it prints one report and writes its files once): run it without mpirun "
                 "(started as %d processes; only ltt check spreads TP ranks over processes)\n",
                 sub, n);
  return true;
}

// A refusal of the command line before MPI starts, under mpirun: every
// process with process 0's words refuses alike, so process 0 says it at
// once and the others wait 2 s first; mpirun ends them once process 0 has
// exited 2, so the reason is said once. A process given other words than
// process 0's (mpirun's MPMD form, A : B) refuses alone: it says its reason
// after the wait, naming itself, rather than exit unsaid.
void others_wait_then_say() {
  const int rank = flags::launched_rank();
  if (rank == 0) return;
  std::this_thread::sleep_for(std::chrono::seconds(2));
  std::fprintf(stderr, "ltt: process %d of %d refuses its command line (process 0's may differ):\n", rank,
               flags::launched_processes());
}

}  // namespace

namespace {
int run_ltt(int argc, char** argv);
}

int main(int argc, char** argv) {
  // A run that writes files (reports, a golden set, a machine file) goes on
  // when its standard output is a pipe that closed (ltt check --json r.json
  // | head): SIGPIPE would kill it before the files, which it was asked for,
  // are written. Standard output's loss is said at the end (below). A run
  // with nothing but its standard output still stops at once.
  for (int i = 1; i < argc; ++i)
    for (const char* f : {"--json", "--markdown", "--html", "--svg", "--machine-out", "--dump-dir", "--out"})
      if (std::strcmp(argv[i], f) == 0 || (std::strncmp(argv[i], f, std::strlen(f)) == 0 && argv[i][std::strlen(f)] == '='))
        std::signal(SIGPIPE, SIG_IGN);
  const int rc = run_ltt(argc, argv);
  // The table and the verdict must have reached standard output: a full disk
  // there is said and is no pass.
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  if (!flushed || std::ferror(stdout)) {
    std::fprintf(stderr, "ltt: cannot write standard output%s%s: what was printed is incomplete\n", errno ? ": " : "",
                 errno ? std::strerror(errno) : "");
    return rc == 0 ? 2 : rc;
  }
  return rc;
}

namespace {
int run_ltt(int argc, char** argv) {
  ltt::tune_allocator(argc, argv);
  // Line by line, also into a pipe: a run ended by the watchdog or a crash keeps what it printed.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  CLI::App app{
      "ltt: checks the tail of a latent mixture-of-experts layer under tensor parallelism,\n"
      "Y = RMSNorm(sum_r R_r) W^T + sum_r S_r on every rank, tier by tier, against a float64\n"
      "truth and an emulated reference with error bounds derived from the rounding points.\n"
      "Exit codes: 0 pass, 1 numerical failure, 2 bad input or usage."};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("ltt ") + ltt::kVersion);

  // ---- selftest
  ltt::SelftestOptions st;
  auto* self = app.add_subcommand("selftest",
                                  "Run the reference of every tier (exact and emulated) against the float64 truth and "
                                  "its rigorous error bound; one row per case, a verdict line. Exit 0 when all hold.");
  add(self, "--dims", st.dims, flags::dims, "k3 (H 7168, L 3584), small (H 256, L 128) or H,L")->default_str("k3");
  add(self, "--tp", st.tp, tp_list, "TP sizes, comma-separated")->default_str(list_str(st.tp));
  add(self, "--tokens", st.tokens, token_list, "token counts M, comma-separated")->default_str(list_str(st.tokens));
  add(self, "--dist", st.dists, flags::dists, "realistic, adversarial, exact (comma-separated) or all")->default_str("all");
  add(self, "--seed", st.seed, flags::u64, "input seed (0..2^64-1)")->default_str("0");
  add(self, "--eps", st.eps, eps_value, kEpsHelp)->default_str("1e-06");
  add(self, "--algo", st.algo, optional_algo, "one-shot or ring: override every tier's declared reduction algorithm");
  self->add_flag("--bench", st.bench,
                 "then time the reference at k3 sizes, T 16, M 128 (all tiers, both modes) and its GEMM rate beside "
                 "Eigen's own");

  // ---- check
  ltt::CheckOptions ck;
  bool ck_invariance = false;
  auto* check = app.add_subcommand(
      "check",
      "The main job: run the tiers on a backend at TP sizes T and check every rank's output. The verdict: every "
      "element inside its admissible set -- the bf16 values that some correct member of the tier's family can produce "
      "(fixed: the tier's rounding points, RMSNorm order, one-shot or ring; free: any reduction order or tree, any fp32 "
      "GEMM accumulation order or split-K, any sum-of-squares order, rsqrt within 2 ULP, FTZ or not; false-alarm "
      "probability <= 1e-6 per case; README 'The contract') -- every rank bitwise equal, a rerun bitwise equal, nothing "
      "unwritten, not all zero. Diagnostics: error against the float64 truth and its rigorous bound, ULPs from the "
      "emulated reference, the production gate. Without mpirun, or with mpirun -np P for P dividing T, the T ranks are "
      "spread over the P processes (P = 1: fake ranks; P = T: real ranks). With no flags: k3 sizes, T 8 and 16, "
      "every tier where it applies at M 1, 5, 33, 128 and tiers 1-4 also at 256, 257, 2048, all distributions.");
  add(check, "--tp", ck.tp, tp_list, "TP sizes T, comma-separated")->default_str(list_str(ck.tp));
  add(check, "--tier", ck.tiers, flags::tiers, "tiers: 0..4, comma-separated, or all")->default_str("all");
  add(check, "--tokens", ck.tokens, token_list, "token counts M, comma-separated (default: the main job's)");
  add(check, "--dims", ck.dims, flags::dims, "k3 (H 7168, L 3584), small (H 256, L 128) or H,L")->default_str("k3");
  add(check, "--dist", ck.dists, flags::dists, "realistic, exact, adversarial (comma-separated) or all")->default_str("all");
  add(check, "--seed", ck.seed, flags::u64, "input seed (0..2^64-1)")->default_str("0");
  add(check, "--eps", ck.eps, eps_value, kEpsHelp)->default_str("1e-06");
  add(check, "--backend", ck.backend, [](const std::string& f, const std::string& s) { return flags::choice(f, s, {"cpu", "cuda"}); },
      "cpu (the per-rank pipelines in Eigen) or cuda (the CUDA implementation: all T ranks as fake ranks on one GPU; under "
      "mpirun -np P, T/P ranks per process on the node's GPUs in turn, each output also compared bit for bit with the "
      "fake-rank run)")->default_str("cpu")->type_name("NAME");
  add(check, "--transport", ck.transport,
      [](const std::string& f, const std::string& s) { return flags::choice(f, s, {"ipc", "nccl"}); },
      "--backend cuda under mpirun: ipc (ltt's collective kernels over CUDA IPC peer memory, the contract's orders, "
      "bitwise the fake-rank run) or nccl (NCCL's all-reduce for tiers 1-4, one rank per process on its own GPU; "
      "tier 0 stays on peer memory)")->default_str("ipc")->type_name("NAME");
  add(check, "--peer-memory", ck.peer_memory,
      [](const std::string& f, const std::string& s) { return flags::choice(f, s, {"cuda-ipc", "nccl"}); },
      "--backend cuda under mpirun: where the buffers that sibling processes read live (tier 0's partials and Lamport "
      "receive buffers, ltt's all-reduce inputs): cuda-ipc (cudaMalloc'd, mapped through CUDA IPC handles exchanged "
      "over MPI) or nccl (NCCL 2.28's symmetric memory: ncclMemAlloc'd, registered as symmetric windows, peers' "
      "addresses from NCCL's device API; one process per GPU). The same kernels run over either: the outputs are "
      "bitwise the same")->default_str("cuda-ipc")->type_name("NAME");
  add(check, "--algo", ck.algo, optional_algo, "one-shot or ring: the backend's reduction algorithm (default: each tier's declared one)");
  add(check, "--json", ck.json, path_value, "write the results as JSON (schema in README.md)");
  add(check, "--markdown", ck.markdown, path_value, "write a Markdown summary");
  add(check, "--dump-dir", ck.dump_dir, path_value, "write a case file (safetensors) for every failing case here");
  add(check, "--html", ck.html, path_value,
      "write a self-contained HTML report: the summary table and, per failing case, heatmaps over (token x hidden column) "
      "of the distance to the admissible set, of error/bound and of where ranks differ, shard edges marked");
  check->add_flag("--html-all", ck.html_all, "heatmaps for every case in the HTML report, not only the failing ones");
  add(check, "--timeout", ck.timeout, [](const std::string& f, const std::string& s) { return flags::real(f, s, 0.1, 1e6); },
      "seconds a backend run, a wait on other ranks or a write of a case file or report may go without progress before the "
      "run is ended, naming the rank (the harness's own inputs, reference and checks are not timed: they cannot hang)")->default_str("300");
  add(check, "--ulp-max", ck.ulp_max, ulp_max_value,
      "also require every element within this many ULPs of the emulated reference (off by default: for an "
      "implementation that claims the reference's own orders)");
  add(check, "--ulp-frac", ck.ulp_frac, ulp_frac_value,
      "also require at most this fraction (0..1) of elements differing from the emulated reference (off by default)");
  check->add_flag("--invariance", ck_invariance,
                  "report instead whether each token's output is bitwise independent of the batch it rides in "
                  "(M 1, 5, 33, 128, 129, 256, 257, 2048 unless --tokens), how far it drifts where the selection "
                  "switches tiers, between T and 2T, and run to run (fake ranks; takes --tp, --tier, --tokens, --dims, "
                  "--dist, --seed, --eps, --algo, --json)");
  add(check, "--variant", ck.variants, flags::seeds,
      "run the cpu backend as random correct members of each tier's family, one per seed (e.g. 7 or 0-199): "
      "random reduction orders and trees, split-K GEMMs, sum-of-squares orders, rsqrt within 2 ULP, FTZ on "
      "or off; every member must pass (the row shows the worst)");
  add(check, "--gemm-algos", ck.gemm_algos,
      [](const std::string& f, const std::string& s) -> ltt::Result<std::string> {
        if (s == "all" || s == "listed" || s == "split-k") return s;
        if (!flags::seeds(f, s).ok()) return LTT_USAGE(f, " '", s, "': use all, listed, split-k or indices like 0, 0-3 or 0-3,9");
        return s;
      },
      "--backend cuda: run every case once per cuBLASLt algorithm of its up-projection GEMM, bf16 operands, addend and "
      "output with fp32 accumulation, as torch.addmm calls cuBLASLt (each algorithm is listed on stderr: id, tile, "
      "stages, split-K and its reduction scheme): all, listed (the heuristic's list, up to 32: what cuBLAS picks), "
      "split-k (the split-K forms, 2 to 16 splits, of those that take one, with each reduction scheme they allow; partials "
      "rounded to bf16 add rounding points the contract does not have) or indices (0-3,9). The row shows the worst and "
      "names the algorithms that failed; tier 0 uses cuBLAS only on LTT_TIER0_PATH=cublas")->type_name("WHICH");
  add(check, "--mutant", ck.mutant,
      [](const std::string& f, const std::string& s) -> ltt::Result<std::string> {
        if (ltt::find_mutant(s)) return s;
        return LTT_USAGE(f, " '", s, "' is not a mutant: use one of ",
                         ltt::join(ltt::mutants(), ", ", [](const auto& m) { return m.name; }), " (ltt mutants --list)");
      },
      "plant one bug in the backend (names, and those the cuda backend can plant: ltt mutants --list)")->type_name("NAME");
  add(check, "--plant", ck.plant, [](const std::string& f, const std::string& s) { return flags::choice(f, s, {"shard-off-by-one", "rank-differs", "hang"}); },
      "plant a fault to prove the checks: shard-off-by-one (the last rank up-projects shard 0; tiers 0 and 2), "
      "rank-differs (the last rank's output one bf16 step off in one element: only the cross-rank check sees it) or "
      "hang (= --inject hang, on rank 1 or the rank --inject-rank names)")->type_name("NAME");
  add(check, "--inject", ck.inject, [](const std::string& f, const std::string& s) { return flags::choice(f, s, {"crash", "hang", "exit"}); },
      "end the run the hard way, to prove the harness reports it: TP rank --inject-rank crashes (SIGSEGV), hangs, or "
      "exits early, at its first backend run; the run ends within --timeout naming the rank, with a non-zero exit")->type_name("NAME");
  add(check, "--inject-rank", ck.inject_rank, [](const std::string& f, const std::string& s) { return flags::integer(f, s, 0, 4095); },
      "the TP rank --inject acts on")->default_str("1");

  // ---- mutants
  ltt::CheckOptions mo;
  mo.tp = {8};
  mo.tokens = {5, 33};
  mo.dists = {ltt::Dist::realistic, ltt::Dist::adversarial};
  std::vector<std::string> mo_only;
  bool mo_list = false;
  auto* mut = app.add_subcommand(
      "mutants",
      "Plant each bug of the mutant table in the backend (--backend: cpu, or cuda on a GPU), one at a time, and run ltt check's checks on the cases; "
      "a table says which check caught each (admissible, admissible-row, ranks, rerun, unwritten, stopped: a reader that would wait "
      "forever), how many elements fell outside their admissible sets, and in how many cases the production gate "
      "would have caught it. Exit 0 when every mutant is caught.");
  add(mut, "--tp", mo.tp, tp_list, "TP sizes T, comma-separated")->default_str(list_str(mo.tp));
  add(mut, "--tier", mo.tiers, flags::tiers, "tiers: 0..4, comma-separated, or all")->default_str("all");
  add(mut, "--tokens", mo.tokens, token_list, "token counts M, comma-separated")->default_str(list_str(mo.tokens));
  add(mut, "--dims", mo.dims, flags::dims, "k3, small or H,L")->default_str("k3");
  add(mut, "--dist", mo.dists, flags::dists, "realistic, exact, adversarial (comma-separated) or all")->default_str("realistic,adversarial");
  add(mut, "--seed", mo.seed, flags::u64, "input seed")->default_str("0");
  add(mut, "--algo", mo.algo, optional_algo,
      "one-shot or ring: the reduction algorithm of every case (default: each tier's declared one, one-shot); ring's sets "
      "are wider (README, \"Ring verdicts are weaker\"), so fewer mutants show there");
  add(mut, "--backend", mo.backend, [](const std::string& f, const std::string& s) { return flags::choice(f, s, {"cpu", "cuda"}); },
      cuda_mutants_help())
      ->default_str("cpu")->type_name("NAME");
  add(mut, "--only", mo_only,
      [](const std::string& f, const std::string& s) -> ltt::Result<std::vector<std::string>> {
        auto names = flags::words(f, s);
        if (!names.ok()) return names.error();
        for (const auto& n : *names)
          if (!ltt::find_mutant(n)) return LTT_USAGE(f, " '", s, "': '", n, "' is not a mutant (ltt mutants --list)");
        return names;
      },
      "run only these mutants (comma-separated names)");
  add(mut, "--json", mo.json, path_value, "write the table as JSON");
  mut->add_flag("--list", mo_list, "list the mutants and exit");

  // ---- golden
  ltt::GoldenOptions go;
  go.sel.dims = ltt::kDimsSmall;
  go.sel.dists = {ltt::Dist::realistic, ltt::Dist::adversarial};
  go.sel.tokens = {1, 5, 33};
  auto* golden = app.add_subcommand(
      "golden",
      "Write golden tensors: one case file per input set and DIR/manifest.json (each file, its SHA-256, bytes and "
      "metadata; entries of earlier runs are kept). Files are written under a temporary name and renamed. A case file "
      "(safetensors) holds routed.rank{r} [M, L] and shared.rank{r} [M, H] for r < T, norm_weight [L] and up_weight "
      "[H, L] (all BF16), expected_exact [M, H] (F64, the float64 truth) and expected.tier{k} [M, H] (BF16, one correct "
      "member's output) for each selected tier that applies (tier 0 only where T >= 2 and M <= 128); its metadata says tp, tokens, "
      "hidden, latent, eps, seed, dist, algo, rmsnorm_order, tiers, ltt_version. Its name: H{H}_L{L}_T{T}_M{M}_{dist}_seed{seed}_"
      "{algo}_{rmsnorm order}[_eps{eps}, where eps is not 1e-6][_tiers{k...}, where not every tier that applies].safetensors. --dims small is H 256, L 128; k3 is H 7168, L 3584.");
  add(golden, "--out", go.out, path_value, "directory to write into")->required();
  add(golden, "--tp", go.sel.tp, tp_list, "TP sizes T, comma-separated")->default_str(list_str(go.sel.tp));
  add(golden, "--tier", go.sel.tiers, flags::tiers, "tiers: 0..4, comma-separated, or all")->default_str("all");
  add(golden, "--tokens", go.sel.tokens, token_list, "token counts M, comma-separated")->default_str(list_str(go.sel.tokens));
  add(golden, "--dims", go.sel.dims, flags::dims, "k3, small or H,L")->default_str("small");
  add(golden, "--dist", go.sel.dists, flags::dists, "realistic, exact, adversarial (comma-separated) or all")->default_str("realistic,adversarial");
  add(golden, "--seed", go.sel.seed, flags::u64, "input seed")->default_str("0");
  add(golden, "--eps", go.sel.eps, eps_value, kEpsHelp)->default_str("1e-06");
  add(golden, "--algo", go.sel.algo, optional_algo, "reduction algorithm of the expected outputs: one-shot (default) or ring");
  add(golden, "--norm", go.norm,
      [](const std::string& f, const std::string& s) -> ltt::Result<std::optional<ltt::NormOrder>> {
        auto n = flags::norm(f, s);
        if (!n.ok()) return n.error();
        return std::optional<ltt::NormOrder>(*n);
      },
      "RMSNorm order for every tier: fused or round-then-weight (default: each tier's declared one: " +
          declared_norm_orders() + ")");
  golden->add_flag("--hash-only", go.hash_only, "record only the files' hashes in the manifest (for k3 sizes), keep no file");

  // ---- regress
  std::string regress_dir;
  auto* regress = app.add_subcommand(
      "regress",
      "Regenerate every set of DIR/manifest.json and compare bit for bit: committed files tensor by tensor (inputs: "
      "the generator did not drift; expected_exact and expected.tier{k}: the reference did not drift), hash-only "
      "entries by SHA-256. Exit 1 naming the set, the tensor and the first differing element (or the hash).");
  regress->add_option_function<std::string>(
      "dir",
      [&regress_dir](const std::string& s) {
        auto r = flags::path("DIR", s);
        if (!r.ok()) throw CLI::ValidationError(r.error().describe());  // escaped, with its file and line
        regress_dir = *r;
      },
      "a golden set directory (e.g. data/golden)")->required()->type_name("DIR");
  std::string regress_html;
  add(regress, "--html", regress_html, path_value, "also write the table as a self-contained HTML page");

  // ---- verify
  ltt::VerifyOptions vo;
  auto* verify = app.add_subcommand(
      "verify",
      "Check outputs made anywhere against a case file, as ltt check checks its own backends: every element inside its "
      "admissible set (the bf16 values some correct member of the tier's family can produce: any reduction order or tree, "
      "any fp32 GEMM order or split-K, any sum-of-squares order, rsqrt within 2 ULP, FTZ or not, the tier's rounding points "
      "fixed; README 'The contract'), every rank present equal. An F32 output is judged after rounding to bf16. OUTPUT holds 'output' "
      "(one rank's [M, H], BF16 or F32; --tier says its tier where the case covers several) or 'output.tier{k}.rank{r}' tensors ([M, H] each: rank r's Y of "
      "tier k, for the tiers the case covers, tier 0 only at M <= 128). CASE and OUTPUT may both be directories "
      "(outputs under the cases' file names; every case needs its output). Exit 0 when every output passes, 1 on a "
      "numerical failure, 2 on bad input.");
  add(verify, "--case", vo.case_path, path_value, "case file (or directory of them)")->required();
  add(verify, "--output", vo.output_path, path_value, "outputs file (or directory of them)")->required();
  add(verify, "--tier", vo.tier,
      [](const std::string& f, const std::string& s) -> ltt::Result<std::optional<int>> {
        auto t = flags::integer(f, s, 0, ltt::kNumTiers - 1);
        if (!t.ok()) return t.error();
        return std::optional<int>(*t);
      },
      "the tier that made 'output' (0..4; needed when the case covers several); only tier k's "
      "'output.tier{k}.rank{r}' tensors are then checked, the others named as not checked");
  add(verify, "--json", vo.report.json, path_value, "write the results as JSON (the schema of ltt check)");
  add(verify, "--markdown", vo.report.markdown, path_value, "write a Markdown summary");
  add(verify, "--html", vo.report.html, path_value, "write a self-contained HTML report with heatmaps of the failing cases");
  verify->add_flag("--html-all", vo.report.html_all, "heatmaps for every case, not only the failing ones");
  add(verify, "--ulp-max", vo.report.ulp_max, ulp_max_value, "also require every element within this many ULPs of the emulated reference (off by default)");
  add(verify, "--ulp-frac", vo.report.ulp_frac, ulp_frac_value, "also require at most this fraction (0..1) of elements differing from it (off by default)");

  // ---- bench
  ltt::BenchOptions bo;
  auto* bench = app.add_subcommand(
      "bench",
      "Time the cuda backend on the GPU at hand (CUDA-graph replay or device events, median of --reps after warm-ups): one "
      "RMSNorm, tier 0's per-rank compute (collectives excluded; ltt's kernels and the cuBLAS composition), the full "
      "up-projection GEMM, and every tier end to end on T fake ranks, each beside its memory roofline (the least bytes it "
      "must move / the copy bandwidth measured in the same run). Under mpirun -np P (real ranks, T/P per process on the "
      "node's GPUs): every tier end to end over the processes (ltt's transport, and NCCL where each process has its own "
      "GPU and T = P), tier 0 against its unfused NCCL composition, the all-reduce's bus bandwidth, and the crossover "
      "token counts. A case is checked before it is timed.");
  add(bench, "--backend", bo.backend, [](const std::string& f, const std::string& s) { return flags::choice(f, s, {"cuda"}); },
      "cuda (the only timed backend)")->default_str("cuda")->type_name("NAME");
  add(bench, "--dims", bo.dims, flags::dims, "k3, small or H,L")->default_str("k3");
  add(bench, "--tp", bo.tp, tp_list, "TP sizes T, comma-separated")->default_str(list_str(bo.tp));
  add(bench, "--tokens", bo.tokens, token_list, "token counts M, comma-separated")->default_str(list_str(bo.tokens));
  add(bench, "--tier", bo.tiers, flags::tiers, "tiers timed end to end: 0..4, comma-separated, or all")->default_str("all");
  add(bench, "--reps", bo.reps, [](const std::string& f, const std::string& s) { return flags::integer(f, s, 1, 100000); },
      "timed runs per figure")->default_str("20");
  add(bench, "--json", bo.json, path_value, "write the figures as JSON");
  add(bench, "--peer-memory", bo.peer_memory,
      [](const std::string& f, const std::string& s) { return flags::choice(f, s, {"cuda-ipc", "nccl", "both"}); },
      "under mpirun: the peer memory under ltt's collective kernels: cuda-ipc (rows 'ipc'), nccl (NCCL symmetric "
      "windows, rows 'sym'; one process per GPU) or both (each figure over each)")->default_str("cuda-ipc")->type_name("NAME");
  add(bench, "--machine-out", bo.machine_out, path_value, "write the timing model's calibration fitted from these figures (ltt simulate --machine); it needs a large M (at k3 sizes --tokens up to 2048 or more) and tier 1");

  // ---- simulate
  ltt::SimulateOptions so;
  std::string so_fit, so_machine_out;
  auto* simulate = app.add_subcommand(
      "simulate",
      "Predict each tier's latency at TP sizes T and token counts M from a timing model (kernels: launch floor, bytes / "
      "bandwidth, FLOPs / rate; collectives: latency + bytes / link bandwidth; tier 1's aux stream overlapped), with the "
      "fastest tier per M, the crossovers and the thresholds the production selection would need. The machine file "
      "(--machine) comes from ltt bench --machine-out; the default is the H200 + NVLink one (bench/machines/h200.json). "
      "No GPU needed.");
  add(simulate, "--tp", so.tp, tp_list, "TP sizes T, comma-separated")->default_str("8,16,32");
  add(simulate, "--tokens", so.tokens,
      [](const std::string& f, const std::string& s) -> ltt::Result<std::vector<int>> {
        const size_t dots = s.find("..");
        if (dots == std::string::npos) return flags::int_list(f, s, 1, 1 << 30);
        auto a = flags::integer(f, s.substr(0, dots), 1, 1 << 30);
        auto b = flags::integer(f, s.substr(dots + 2), 1, 1 << 30);
        for (auto* end : {&a, &b})  // said of the whole range, not of one end ('' for "..4")
          if (!end->ok()) {
            // The end's message opens with "FLAG 'END' ": the rest is why.
            const std::string part = end == &a ? s.substr(0, dots) : s.substr(dots + 2);
            const std::string& why = end->error().message;
            const size_t skip = std::min(why.size(), std::string(f).size() + part.size() + 4);
            return LTT_USAGE(f, " '", s, "': ", end == &a ? "its start" : "its end", " ", why.substr(skip),
                             " (A..B: A, 2A, 4A, ... below B, and B; each from 1 to 2^30)");
          }
        if (*a > *b) return LTT_USAGE(f, " '", s, "': the range runs backwards");
        std::vector<int> v;
        for (long m = *a; m < *b; m *= 2) v.push_back(static_cast<int>(m));
        v.push_back(*b);
        return v;
      },
      "token counts: comma-separated, or A..B (A, 2A, 4A, ... below B, and B)")->default_str("1..16384");
  add(simulate, "--dims", so.dims, flags::dims, "k3, small or H,L")->default_str("k3");
  add(simulate, "--machine", so.machine, path_value, "machine file (JSON, from ltt bench --machine-out)");
  simulate->add_flag("--fake", so.fake, "model all T ranks as fake ranks on one GPU (what ltt bench measures)");
  add(simulate, "--check", so.check, path_value, "compare predicted times with an ltt bench --json file, at its own T, M and dims: fake ranks (tierK-all rows) and, from mpirun with one process per GPU, real ranks (tierK rows); exit 1 when a time is off by > 25% or the fastest tier, where it wins by > 10%, is mispredicted");
  add(simulate, "--fit", so_fit, path_value, "fit a machine file from ltt bench --json files, comma-separated (the first fits, the others add their shard GEMMs; with --machine-out)")->type_name("PATHS");
  add(simulate, "--machine-out", so_machine_out, path_value, "where --fit writes the machine file");
  add(simulate, "--json", so.json, path_value, "write the predictions as JSON");
  add(simulate, "--svg", so.svg, path_value, "draw latency against M per tier (log axes, crossovers marked) as an SVG");
  // The what-ifs (what_if_table()): figures in GB/s or us declared here,
  // --collective and --gpus-per-node (a name and a count) below; each is
  // read into its own variable and applied, after the machine file, from
  // the table alone.
  std::map<std::string, double> what_if_values;
  for (const ltt::WhatIf& w : ltt::what_if_table()) {
    if (!std::holds_alternative<double ltt::Machine::*>(w.figure)) continue;
    const std::string flag = w.flag;
    // A rate below 1e-3 GB/s or a latency of 0 is no machine's (check_machine).
    const bool rate = flag.find("GBps") != std::string::npos;
    add(simulate, flag, what_if_values[flag],
        [rate](const std::string& f, const std::string& s) { return rate ? flags::real(f, s, 1e-3, 1e9) : flags::real(f, s, 0, 1e9, true); },
        rate ? "what-if: replace the machine file's figure (GB/s, 0.001 to 1e9)" : "what-if: replace the machine file's figure (us, above 0, up to 1e9)");
  }
  std::map<std::string, std::string> what_if_names{{"--collective", ltt::Machine{}.collective}};
  std::map<std::string, int> what_if_counts{{"--gpus-per-node", 0}};
  add(simulate, "--collective", what_if_names["--collective"],
      [](const std::string& f, const std::string& s) { return flags::choice(f, s, {"ring", "tree", "one-shot"}); },
      "how tiers 1-4 reduce across GPUs: ring (NCCL's), tree, or one-shot over peer memory")->default_str("ring")->type_name("NAME");
  add(simulate, "--gpus-per-node", what_if_counts["--gpus-per-node"], [](const std::string& f, const std::string& s) { return flags::integer(f, s, 1, ltt::kMaxGpusPerNode); },
      "what-if: GPUs per node (T above it spans nodes: the network joins the collectives)");

  // The subcommand argv[1] names, if any.
  CLI::App* sub = nullptr;
  for (auto* s : app.get_subcommands([](const CLI::App*) { return true; }))
    if (argc > 1 && s->get_name() == argv[1]) sub = s;
  // `ltt foo` or `ltt --foo`: name the word, list the subcommands (CLI11 says only "A subcommand is required").
  if (argc > 1) {
    const std::string first = argv[1];
    // `ltt --version check`: CLI11 prints the version and drops the rest unsaid.
    if ((first == "-h" || first == "--help" || first == "--version") && argc > 2) {
      others_wait_then_say();
      std::fprintf(stderr, "ltt: %s takes nothing after it, and '%s' follows: run 'ltt %s' alone%s\n", argv[1],
                   ltt::printable(argv[2]).c_str(), argv[1],
                   first == "--version" ? "" : ", or 'ltt COMMAND --help' for a command's options");
      return 2;
    }
    if (!sub && first != "-h" && first != "--help" && first != "--version") {
      others_wait_then_say();
      if (first[0] == '-')
        std::fprintf(stderr, "ltt: '%s' comes before any command: ltt itself takes only --help and --version; give the command first "
                     "(check, mutants, golden, regress, verify, selftest, bench or simulate), then its options\n", argv[1]);
      else
        std::fprintf(stderr, "ltt: '%s' is not a command: use check, mutants, golden, regress, verify, selftest, bench or simulate (ltt --help)\n", argv[1]);
      return 2;
    }
  }
  // An option given twice: said plainly (CLI11 says "At Most 1 required but
  // received 2"). On/off flags may repeat, as CLI11 lets them; names the
  // subcommand does not know are left to CLI11 to refuse.
  {
    std::set<std::string> seen;
    bool value_next = false;  // argv[i] is the value of the flag before it
    for (int i = 2; sub && i < argc; ++i) {
      const std::string a = argv[i];
      if (std::exchange(value_next, false)) continue;
      if (a == "--") break;
      // "-t 8": ltt's flags are long ones (and -h); CLI11 would say "not
      // expected: 8 -t", the words backwards.
      if (a.size() >= 2 && a[0] == '-' && a[1] != '-' && a != "-h") {
        others_wait_then_say();
        std::fprintf(stderr, "ltt %s: %s is not a flag of %s (its flags are spelt in full, like --tp; -h is --help): 'ltt %s --help' "
                     "lists them\n", sub->get_name().c_str(), ltt::printable(a).c_str(), sub->get_name().c_str(), sub->get_name().c_str());
        return 2;
      }
      if (a.size() < 3 || a.compare(0, 2, "--") != 0) continue;
      const std::string name = a.substr(0, a.find('='));
      const CLI::Option* opt = sub->get_option_no_throw(name);
      if (!opt) {  // CLI11 would list it after the words it took for its values ("x.json --json")
        others_wait_then_say();
        std::fprintf(stderr, "ltt %s: %s is not a flag of %s: 'ltt %s --help' lists its flags\n", sub->get_name().c_str(),
                     ltt::printable(name).c_str(), sub->get_name().c_str(), sub->get_name().c_str());
        return 2;
      }
      if (opt->get_expected_max() == 0) continue;
      // "--json --markdown": CLI11 takes the next word as the value, even a
      // flag of this command, so the report went to a file named
      // "--markdown" and no Markdown was written. A value that is one of the
      // command's flags is refused; --json=--markdown still names such a file.
      if (a.find('=') == std::string::npos && i + 1 < argc) {
        const std::string next = argv[i + 1];
        if (next.size() > 2 && next.compare(0, 2, "--") == 0 && sub->get_option_no_throw(next.substr(0, next.find('=')))) {
          others_wait_then_say();
          std::fprintf(stderr, "ltt %s: %s takes a value, and the word after it is the flag %s: give %s its value (a value "
                       "that is spelt like a flag: %s=%s)\n", sub->get_name().c_str(), name.c_str(), ltt::printable(next).c_str(),
                       name.c_str(), name.c_str(), ltt::printable(next).c_str());
          return 2;
        }
      }
      value_next = a.find('=') == std::string::npos;
      if (!seen.insert(name).second) {
        others_wait_then_say();
        // The list hint where the option takes a list (its help says "comma-separated").
        const bool list = opt->get_description().find("comma-separated") != std::string::npos;
        std::fprintf(stderr, "ltt %s: %s is given twice: give it once%s\n", sub->get_name().c_str(), name.c_str(),
                     list ? ltt::cat(" (a list is one value, comma-separated: ", name, " a,b)").c_str() : "");
        return 2;
      }
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ExtrasError& e) {
    // CLI11 lists the words it did not take in reverse ("4 --tp" for
    // "-- --tp 4"): they are put back in the command line's order, matched
    // from its end, where the words CLI11 leaves over lie.
    others_wait_then_say();
    // e.what(): "The following argument(s) was/were not expected: W1 W2 ...".
    const std::string said = e.what();
    std::multiset<std::string> left;
    if (const auto colon = said.find(": "); colon != std::string::npos) {
      std::istringstream in(said.substr(colon + 2));
      for (std::string w; in >> w;) left.insert(w);
    }
    std::vector<std::string> words;
    bool dashes = false;
    for (int i = argc - 1; i > 0; --i) {
      dashes = dashes || std::string(argv[i]) == "--";
      if (auto it = left.find(argv[i]); it != left.end()) {
        words.insert(words.begin(), ltt::shell_word(argv[i]));
        left.erase(it);
      }
    }
    const std::string who = sub ? "ltt " + sub->get_name() : std::string("ltt");
    // Not found in the command line: CLI11's own words.
    const std::string list = !left.empty() || words.empty() ? said : ltt::join(words, " ");
    std::fprintf(stderr, "%s: these words were not expected: %s%s\nRun '%s --help' for its options.\n", who.c_str(), list.c_str(),
                 dashes ? " (every word after '--' is taken as a plain argument: drop the '--')" : "", who.c_str());
    return 2;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0)  // --help, --version: printed once, by process 0
      return flags::launched_rank() != 0 ? 0 : app.exit(e) == 0 ? 0 : 2;
    others_wait_then_say();
    // CLI11's own words, with whose they are and where the options are listed.
    const std::string who = sub ? "ltt " + sub->get_name() : std::string("ltt");
    std::fprintf(stderr, "%s: %s\nRun '%s --help' for its options.\n", who.c_str(), e.what(), who.c_str());
    return 2;
  }

  std::string command, command_args;
  for (int i = 0; i < argc; ++i) command += (i ? " " : "") + ltt::shell_word(argv[i]);  // as a shell would take it back
  for (int i = 1; i < argc; ++i) command_args += (i > 1 ? " " : "") + ltt::shell_word(argv[i]);

  try {
    if (golden->parsed()) {
      if (refuse_under_mpirun("golden")) return 2;
      if (auto s = flags::writable_dir("--out", go.out); !s.ok()) return fail(s.error());
      auto r = ltt::run_golden(go);
      return r.ok() ? *r : fail(r.error());
    }
    if (regress->parsed()) {
      if (refuse_under_mpirun("regress")) return 2;
      if (!regress_html.empty()) {
        if (auto s = flags::not_an_input("--html", regress_html, {regress_dir}); !s.ok()) return fail(s.error());
        if (auto s = flags::writable_file("--html", regress_html); !s.ok()) return fail(s.error());
      }
      auto r = ltt::run_regress(regress_dir, regress_html, command);
      return r.ok() ? *r : fail(r.error());
    }
    if (verify->parsed()) {
      if (vo.report.html_all && vo.report.html.empty())
        return fail(LTT_USAGE("--html-all draws every case in the --html report: give --html FILE too"));
      if (refuse_under_mpirun("verify")) return 2;
      for (const auto& [f, p] : {std::pair{"--json", vo.report.json}, std::pair{"--markdown", vo.report.markdown},
                                 std::pair{"--html", vo.report.html}}) {
        if (p.empty()) continue;
        if (auto s = flags::not_an_input(f, p, {vo.case_path, vo.output_path}); !s.ok()) return fail(s.error());
        if (auto s = flags::writable_file(f, p); !s.ok()) return fail(s.error());
      }
      if (auto s = flags::distinct_outputs({{"--json", vo.report.json}, {"--markdown", vo.report.markdown}, {"--html", vo.report.html}}); !s.ok())
        return fail(s.error());
      vo.report.command = command;
      auto r = ltt::run_verify(vo);
      return r.ok() ? *r : fail(r.error());
    }
    if (bench->parsed()) {
      for (const auto& [f, p] : {std::pair{"--json", bo.json}, std::pair{"--machine-out", bo.machine_out}})
        if (!p.empty())
          if (auto s = flags::writable_file(f, p); !s.ok()) return fail(s.error());
      if (auto s = flags::distinct_outputs({{"--json", bo.json}, {"--machine-out", bo.machine_out}}); !s.ok()) return fail(s.error());
      bo.command = command;
      // Before anything can refuse the run (no GPU, a shape): a refused run
      // leaves "did not finish", never an earlier run's figures.
      if (flags::launched_rank() == 0)
        if (auto s = ltt::claim_json(bo.json, "ltt bench", command); !s.ok()) return fail(s.error());
      if (flags::launched_processes() > 1) {  // real ranks: every process times its own
        // What every process finds alike is said once, before MPI starts.
        if (auto s = ltt::gpu::cuda_available(); !s.ok()) return flags::launched_rank() == 0 ? fail(s.error()) : 2;
        MPI_Init(&argc, &argv);
        auto r = ltt::run_bench_ranks(bo, MPI_COMM_WORLD);
        if (!r.ok()) {  // the others may wait in a collective: end them all
          int rank = 0;
          MPI_Comm_rank(MPI_COMM_WORLD, &rank);
          std::fprintf(stderr, "ltt: process %d: %s\n", rank, r.error().describe().c_str());
          std::fflush(stderr);
          MPI_Abort(MPI_COMM_WORLD, r.error().exit_code());
        }
        MPI_Finalize();
        return *r;
      }
      auto r = ltt::run_bench(bo);
      return r.ok() ? *r : fail(r.error());
    }
    if (simulate->parsed()) {
      so.command = command;
      if (!so_machine_out.empty() && so_fit.empty())
        return fail(LTT_USAGE("--machine-out is where --fit writes the machine it fits: give --fit BENCH.json too"));
      if (!so_fit.empty()) {
        if (so_machine_out.empty()) return fail(LTT_USAGE("--fit needs --machine-out FILE"));
        // --fit only fits: flags of a simulation would be ignored, so they are refused.
        for (const char* f : {"--tp", "--tokens", "--dims", "--machine", "--fake", "--check", "--json", "--svg", "--collective",
                              "--gpus-per-node", "--copy-GBps", "--link-GBps", "--link-us", "--nccl-us", "--net-GBps", "--net-us"})
          if (simulate->count(f))
            return fail(LTT_USAGE("--fit writes a machine file and simulates nothing: it does not take ", f,
                                  " (run ltt simulate --machine ", so_machine_out, " ", f, " ... afterwards)"));
        if (auto s = flags::writable_file("--machine-out", so_machine_out); !s.ok()) return fail(s.error());
        auto fit_list = flags::words("--fit", so_fit);  // the same file twice would count its GEMMs twice
        if (!fit_list.ok()) return fail(fit_list.error());
        const std::vector<std::string>& fit_files = *fit_list;
        if (auto s = flags::not_an_input("--machine-out", so_machine_out, fit_files); !s.ok()) return fail(s.error());
        // The first file fits the machine; the others (other T) add their shard GEMMs.
        std::optional<ltt::Machine> m;
        std::vector<std::pair<std::string, nlohmann::json>> fit_docs;  // each file, for the fit's check against it
        for (const std::string& file : fit_files) {
          auto read = ltt::read_bench_json(file, "--fit");
          if (!read.ok()) return fail(read.error());
          nlohmann::json b = std::move(*read);
          auto named = [&file](ltt::Error e) {  // which of the files it was
            e.message = ltt::cat("--fit ", file, ": ", e.message);
            return e;
          };
          if (!m) {
            auto fm = ltt::fit_machine(b, command);
            if (!fm.ok()) return fail(named(fm.error()));
            m = *fm;
          } else if (const auto device = [](const nlohmann::json& x) { return x.value("device", nlohmann::json()).dump(); };
                     device(b) != device(fit_docs.front().second)) {
            return fail(named(LTT_USAGE("figures of ", device(b), ", the first file's of ", device(fit_docs.front().second),
                                        ": a machine file is one GPU's (fit each GPU from its own files)")));
          } else if (auto s = ltt::add_shard_gemms(*m, b); !s.ok()) {
            return fail(named(s.error()));
          } else {
            m->source += ltt::cat("; shard GEMMs also from `", ltt::bench_command(b), "`");
          }
          fit_docs.emplace_back(file, std::move(b));
        }
        std::string against;
        for (const auto& [file, b] : fit_docs) {
          auto a = ltt::fit_against(*m, b, file);
          if (!a.ok()) return fail(LTT_USAGE("--fit: ", a.error().message));
          against += *a;
        }
        if (auto s = ltt::save_machine(*m, so_machine_out); !s.ok()) return fail(s.error());
        std::printf("# fitted %s from %s\n%s", so_machine_out.c_str(), so_fit.c_str(), against.c_str());
        return 0;
      }
      if (!so.check.empty())  // it predicts at the file's own T, M, dims and kind of ranks (the what-if flags apply)
        for (const char* f : {"--tp", "--tokens", "--dims", "--fake", "--json", "--svg"})
          if (simulate->count(f))
            return fail(LTT_USAGE("--check compares with the bench file's own T, M, dims and ranks (fake or one process per GPU): "
                                  "it does not take ", f));
      for (const auto& [f, p] : {std::pair{"--json", so.json}, std::pair{"--svg", so.svg}}) {
        if (p.empty()) continue;
        if (!so.machine.empty())
          if (auto s = flags::not_an_input(f, p, {so.machine}); !s.ok()) return fail(s.error());
        if (auto s = flags::writable_file(f, p); !s.ok()) return fail(s.error());
      }
      if (auto s = flags::distinct_outputs({{"--json", so.json}, {"--svg", so.svg}}); !s.ok()) return fail(s.error());
      // The paths are sound: from here a refusal (the machine file, the
      // what-ifs, the sizes) leaves no earlier report to be read as this run's.
      if (auto s = ltt::claim_simulate_reports(so); !s.ok()) return fail(s.error());
      if (!so.machine.empty()) {
        auto m = ltt::load_machine(so.machine);
        if (!m.ok()) return fail(m.error());
        so.m = *m;
      }
      so.base = so.m;  // before the what-ifs: what each is weighed against
      for (const ltt::WhatIf& w : ltt::what_if_table()) {
        if (!simulate->count(w.flag)) continue;
        so.what_ifs.push_back(&w);
        if (auto f = std::get_if<double ltt::Machine::*>(&w.figure)) so.m.**f = what_if_values.at(w.flag);
        if (auto f = std::get_if<int ltt::Machine::*>(&w.figure)) so.m.**f = what_if_counts.at(w.flag);
        if (auto f = std::get_if<std::string ltt::Machine::*>(&w.figure)) so.m.**f = what_if_names.at(w.flag);
      }
      if (auto s = ltt::check_machine(so.m, so.machine.empty() ? std::string("the built-in machine with the what-if flags")
                                                                : ltt::cat(so.machine, " with the what-if flags"));
          !s.ok())
        return fail(s.error());
      auto r = ltt::run_simulate(so);
      return r.ok() ? *r : fail(r.error());
    }
    if (self->parsed()) {
      if (refuse_under_mpirun("selftest")) return 2;
      auto r = ltt::run_selftest(st);
      return r.ok() ? *r : fail(r.error());
    }
    if (mut->parsed()) {
      if (mo_list) {
        // --list prints the table and runs nothing: a flag of a run would be ignored.
        for (const auto* o : mut->get_options())
          if (o->get_name() != "--list" && o->get_name() != "--help" && o->count() > 0)
            return fail(LTT_USAGE("mutants --list prints the mutant table and runs nothing: drop ", o->get_name(), ", or --list to run"));
        for (const auto& d : ltt::mutants()) {
          std::printf("%-20s tiers %-10s %-5s %s\n", d.name, ltt::join(d.tiers, ",").c_str(), ltt::gpu::supported_mutant(d.m) ? "+cuda" : "", d.what);
        }
        return 0;
      }
      if (refuse_under_mpirun("mutants")) return 2;
      if (!mo.json.empty())
        if (auto s = flags::writable_file("--json", mo.json); !s.ok()) return fail(s.error());
      mo.command = command;
      MPI_Init(&argc, &argv);
      auto r = ltt::run_mutants(mo, mo_only, MPI_COMM_WORLD);
      MPI_Finalize();
      return r.ok() ? *r : fail(r.error());
    }
    if (check->parsed()) {
      if (ck.html_all && ck.html.empty() && !ck_invariance) return fail(LTT_USAGE("--html-all draws every case in the --html report: give --html FILE too"));
      ck.command = command;
      ck.command_args = command_args;
      ck.transport_given = check->count("--transport") > 0;
      ck.peer_memory_given = check->count("--peer-memory") > 0;
      if (ck.plant == "hang") {  // the older spelling of --inject hang --inject-rank 1
        if (check->count("--inject")) return fail(LTT_USAGE("--plant hang and --inject: give one fault"));
        ck.plant.clear();
        ck.inject = "hang";
        if (!check->count("--inject-rank")) ck.inject_rank = 1;  // its rank, unless --inject-rank names one
      }
      if (check->count("--inject-rank") && ck.inject.empty())
        return fail(LTT_USAGE("--inject-rank needs --inject crash, hang or exit"));
      if (ck_invariance) {
        // --invariance runs the cpu backend's fake ranks and writes one JSON: the rest would be ignored.
        for (const char* f : {"--backend", "--markdown", "--dump-dir", "--timeout", "--ulp-max", "--ulp-frac", "--variant",
                              "--mutant", "--plant", "--inject", "--inject-rank", "--html", "--html-all", "--gemm-algos",
                              "--transport", "--peer-memory"})
          if (check->count(f)) return fail(LTT_USAGE("check --invariance does not use ", f, ": drop it, or run check without --invariance"));
      }
      for (const auto& [f, p] : {std::pair{"--json", ck.json}, std::pair{"--markdown", ck.markdown}, std::pair{"--html", ck.html}})
        if (!p.empty())
          if (auto s = flags::writable_file(f, p); !s.ok()) return fail(s.error());
      if (!ck.dump_dir.empty())
        if (auto s = flags::writable_dir("--dump-dir", ck.dump_dir); !s.ok()) return fail(s.error());
      if (auto s = flags::distinct_outputs({{"--json", ck.json}, {"--markdown", ck.markdown}, {"--html", ck.html}, {"--dump-dir", ck.dump_dir}}); !s.ok())
        return fail(s.error());

      int provided = 0;
      MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
      int size = 1, rank = 0;
      MPI_Comm_size(MPI_COMM_WORLD, &size);
      MPI_Comm_rank(MPI_COMM_WORLD, &rank);
      // Several processes on few cores: one OpenMP thread each unless told otherwise.
      if (size > 1 && !std::getenv("OMP_NUM_THREADS"))
        omp_set_num_threads(std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / size));
      if (ck_invariance && size > 1) {
        if (rank == 0) std::fprintf(stderr, "ltt: --invariance runs fake ranks in one process: run it without mpirun\n");
        MPI_Finalize();
        return 2;
      }
      auto r = ck_invariance ? ltt::run_invariance(ck) : ltt::run_check(ck, MPI_COMM_WORLD);
      int code = r.ok() ? *r : r.error().exit_code();
      if (!r.ok()) {
        // A usage error is found alike on every process: process 0 says it.
        // Anything else may leave others waiting in a collective.
        if (r.error().code != ltt::Errc::usage || rank == 0)
          std::fprintf(stderr, "ltt: %s%s\n", size > 1 ? ltt::cat("process ", rank, ": ").c_str() : "", r.error().describe().c_str());
        if (r.error().code != ltt::Errc::usage) MPI_Abort(MPI_COMM_WORLD, code);
      }
      MPI_Finalize();
      return code;
    }
  } catch (const std::bad_alloc&) {
    // The sizes are checked against memory before the work; this is the net
    // under that estimate.
    std::fflush(stdout);
    std::fprintf(stderr, "ltt: out of memory (std::bad_alloc): the run needs more memory than this machine gave it: "
                         "use fewer tokens (--tokens), smaller dims or a smaller --tp\n");
    return 2;
  } catch (const std::exception& e) {
    // Errors are values everywhere; an exception here is a bug of ltt's: said,
    // never an abort (which would lose the exit code's verdict class).
    std::fflush(stdout);
    std::fprintf(stderr, "ltt: internal error (an exception escaped: %s); this is a bug in ltt: please report it with the "
                         "command line\n", e.what());
    return 2;
  }
  return 2;
}

}  // namespace
