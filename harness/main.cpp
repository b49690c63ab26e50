// ltt: the latent-MoE tail testbed's command line.
//
//   ltt check                the tiers on a backend, over fake or real TP ranks, checked
//   ltt golden --out DIR     golden tensors: case files and their manifest
//   ltt regress DIR          regenerate a golden set, compare bit for bit
//   ltt verify --case C --output O   check outputs made anywhere against a case
//   ltt selftest [--bench]   the reference of every tier against the float64 truth
//
// Exit codes: 0 pass, 1 numerical failure, 2 bad input or usage.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <thread>

#include <mpi.h>
#include <omp.h>

#include "check.hpp"
#include "golden.hpp"
#include "invariance.hpp"
#include "member.hpp"
#include "mutants.hpp"
#include "verify.hpp"
#include "problem.hpp"
#include "process.hpp"
#include "selftest.hpp"

namespace {

// "1,5,33" -> {1, 5, 33}; CLI11 does the splitting, this checks ranges.
ltt::Status check_positive(const std::vector<int>& v, const char* what) {
  if (v.empty()) return LTT_USAGE(what, ": give at least one value");
  for (int x : v)
    if (x < 1) return LTT_USAGE(what, " must be >= 1 (got ", x, ")");
  return {};
}

// "all" or a comma list of tiers 0..4.
ltt::Result<std::vector<int>> parse_tiers(const std::string& s) {
  if (s == "all") return std::vector<int>{0, 1, 2, 3, 4};
  std::vector<int> out;
  std::string item;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i < s.size() && s[i] != ',') {
      item += s[i];
      continue;
    }
    char* end = nullptr;
    const long t = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != 0 || t < 0 || t > 4)
      return LTT_USAGE("--tier '", s, "' not understood: use 0..4, a comma list (0,2) or all");
    out.push_back(static_cast<int>(t));
    item.clear();
  }
  return out;
}

ltt::Result<std::vector<ltt::Dist>> parse_dists(const std::vector<std::string>& v) {
  if (v.size() == 1 && v[0] == "all") return std::vector<ltt::Dist>{ltt::Dist::realistic, ltt::Dist::exact, ltt::Dist::adversarial};
  std::vector<ltt::Dist> out;
  for (const auto& s : v) {
    auto x = ltt::parse_dist(s);
    if (!x) return LTT_USAGE("--dist '", s, "' not understood: use realistic, exact, adversarial or all");
    out.push_back(*x);
  }
  return out;
}

// "0-199", "3,7,9" or "0-9,20" -> the seeds.
ltt::Result<std::vector<uint64_t>> parse_seeds(const std::string& s, const char* what) {
  std::vector<uint64_t> out;
  std::string item;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i < s.size() && s[i] != ',') {
      item += s[i];
      continue;
    }
    const size_t dash = item.find('-');
    char* e1 = nullptr;
    char* e2 = nullptr;
    const std::string a = item.substr(0, dash), b = dash == std::string::npos ? a : item.substr(dash + 1);
    const unsigned long long lo = std::strtoull(a.c_str(), &e1, 10), hi = std::strtoull(b.c_str(), &e2, 10);
    if (a.empty() || b.empty() || *e1 || *e2 || a[0] == '-' || b[0] == '-' || lo > hi || hi - lo > 1000000)
      return LTT_USAGE(what, " '", s, "' not understood: give seeds like 7, 0-199 or 0-9,20");
    for (unsigned long long v = lo; v <= hi; ++v) out.push_back(v);
    item.clear();
  }
  return out;
}

int fail(const ltt::Error& e) {
  std::fprintf(stderr, "ltt: %s\n", e.describe().c_str());
  return e.exit_code();
}

}  // namespace

int main(int argc, char** argv) {
  ltt::tune_allocator(argc, argv);
  CLI::App app{
      "ltt: checks the tail of a latent mixture-of-experts layer under tensor parallelism,\n"
      "Y = RMSNorm(sum_r R_r) W^T + sum_r S_r on every rank, tier by tier, against a float64\n"
      "truth and an emulated reference with error bounds derived from the rounding points.\n"
      "Exit codes: 0 pass, 1 numerical failure, 2 bad input or usage."};
  app.require_subcommand(1);

  ltt::SelftestOptions st;
  std::string dims = "k3";
  std::vector<std::string> dists = {"realistic", "adversarial", "exact"};
  auto* self = app.add_subcommand("selftest",
                                  "Run the reference of every tier (exact and emulated) against the float64 truth and "
                                  "its rigorous error bound; one row per case, a verdict line. Exit 0 when all hold.");
  self->add_option("--dims", dims, "k3 (H 7168, L 3584), small (H 256, L 128) or H,L")->capture_default_str();
  self->add_option("--tp", st.tp, "TP sizes, comma-separated")->delimiter(',')->capture_default_str();
  self->add_option("--tokens", st.tokens, "token counts M, comma-separated")->delimiter(',')->capture_default_str();
  self->add_option("--dist", dists, "realistic, adversarial, exact (comma-separated)")->delimiter(',')->capture_default_str();
  self->add_option("--seed", st.seed, "input seed")->capture_default_str();
  self->add_option("--eps", st.eps, "RMSNorm eps")->capture_default_str();
  std::string algo;
  self->add_option("--algo", algo, "one-shot or ring: override every tier's declared reduction algorithm");
  self->add_flag("--bench", st.bench,
                 "then time the reference at k3 sizes, T 16, M 128 (all tiers, both modes) and its GEMM rate beside "
                 "Eigen's own");

  ltt::CheckOptions ck;
  bool ck_invariance = false;
  std::string ck_dims = "k3", ck_algo, ck_tiers = "all";
  std::vector<std::string> ck_dists = {"all"};
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
  check->add_option("--tp", ck.tp, "TP sizes T, comma-separated")->delimiter(',')->capture_default_str();
  check->add_option("--tier", ck_tiers, "tiers: 0..4, comma-separated, or all")->capture_default_str();
  check->add_option("--tokens", ck.tokens, "token counts M, comma-separated (default: the main job's)")->delimiter(',');
  check->add_option("--dims", ck_dims, "k3 (H 7168, L 3584), small (H 256, L 128) or H,L")->capture_default_str();
  check->add_option("--dist", ck_dists, "realistic, exact, adversarial or all (comma-separated)")->delimiter(',')->capture_default_str();
  check->add_option("--seed", ck.seed, "input seed")->capture_default_str();
  check->add_option("--eps", ck.eps, "RMSNorm eps")->capture_default_str();
  check->add_option("--backend", ck.backend, "cpu (the per-rank pipelines in Eigen) or cuda")->capture_default_str();
  check->add_option("--algo", ck_algo, "one-shot or ring: the backend's reduction algorithm (default: each tier's declared one)");
  check->add_option("--json", ck.json, "write the results as JSON (schema in README.md)");
  check->add_option("--markdown", ck.markdown, "write a Markdown summary");
  check->add_option("--dump-dir", ck.dump_dir, "write a case file (safetensors) for every failing case here");
  check->add_option("--timeout", ck.timeout, "seconds without progress before the run is ended, naming the rank")->capture_default_str();
  check->add_option("--ulp-max", ck.ulp_max, "also require every element within this many ULPs of the emulated reference (off by default: for an implementation that claims the reference's own orders)");
  check->add_option("--ulp-frac", ck.ulp_frac, "also require at most this fraction of elements differing from the emulated reference (off by default)");
  check->add_flag("--invariance", ck_invariance,
                  "report instead whether each token's output is bitwise independent of the batch it rides in "
                  "(M 1, 5, 33, 128, 129, 256, 257, 2048 unless --tokens), how far it drifts where the selection "
                  "switches tiers, between T and 2T, and run to run (fake ranks)");
  std::string ck_variants;
  check->add_option("--variant", ck_variants,
                    "run the cpu backend as random correct members of each tier's family, one per seed (e.g. 7 or 0-199): "
                    "random reduction orders and trees, split-K GEMMs, sum-of-squares orders, rsqrt within 2 ULP, FTZ on "
                    "or off; every member must pass (the row shows the worst)");
  check->add_option("--mutant", ck.mutant, "plant one bug in the cpu backend (names: ltt mutants --list)");
  check->add_option("--plant", ck.plant, "plant a fault to prove the checks: shard-off-by-one (the last rank up-projects shard 0) or hang (rank 1 stops)");

  ltt::CheckOptions mo;
  std::string mo_dims = "k3", mo_tiers = "all";
  std::vector<std::string> mo_dists = {"realistic", "adversarial"};
  std::vector<std::string> mo_only;
  bool mo_list = false;
  mo.tp = {8};
  mo.tokens = {5, 33};
  auto* mut = app.add_subcommand(
      "mutants",
      "Plant each bug of the mutant table in the cpu backend, one at a time, and run ltt check's checks on the cases; "
      "a table says which check caught each (admissible, ranks, rerun, unwritten, stopped: a reader that would wait "
      "forever), how many elements fell outside their admissible sets, and in how many cases the production gate "
      "would have caught it. Exit 0 when every mutant is caught.");
  mut->add_option("--tp", mo.tp, "TP sizes T")->delimiter(',')->capture_default_str();
  mut->add_option("--tier", mo_tiers, "tiers: 0..4, comma-separated, or all")->capture_default_str();
  mut->add_option("--tokens", mo.tokens, "token counts M")->delimiter(',')->capture_default_str();
  mut->add_option("--dims", mo_dims, "k3, small or H,L")->capture_default_str();
  mut->add_option("--dist", mo_dists, "realistic, exact, adversarial or all")->delimiter(',')->capture_default_str();
  mut->add_option("--seed", mo.seed, "input seed")->capture_default_str();
  mut->add_option("--only", mo_only, "run only these mutants (comma-separated names)")->delimiter(',');
  mut->add_option("--json", mo.json, "write the table as JSON");
  mut->add_flag("--list", mo_list, "list the mutants and exit");

  ltt::GoldenOptions go;
  std::string go_dims = "small", go_algo, go_norm, go_tiers = "all";
  std::vector<std::string> go_dists = {"realistic", "adversarial"};
  go.sel.tokens = {1, 5, 33};
  auto* golden = app.add_subcommand(
      "golden",
      "Write golden tensors: one case file per input set (every rank's inputs, expected_exact, expected.tier{k} for "
      "each selected tier that applies) and DIR/manifest.json (each file, its SHA-256, bytes and metadata; entries of "
      "earlier runs are kept). Files are written under a temporary name and renamed.");
  golden->add_option("--out", go.out, "directory to write into")->required();
  golden->add_option("--tp", go.sel.tp, "TP sizes T")->delimiter(',')->capture_default_str();
  golden->add_option("--tier", go_tiers, "tiers: 0..4, comma-separated, or all")->capture_default_str();
  golden->add_option("--tokens", go.sel.tokens, "token counts M")->delimiter(',')->capture_default_str();
  golden->add_option("--dims", go_dims, "k3, small or H,L")->capture_default_str();
  golden->add_option("--dist", go_dists, "realistic, exact, adversarial or all")->delimiter(',')->capture_default_str();
  golden->add_option("--seed", go.sel.seed, "input seed")->capture_default_str();
  golden->add_option("--eps", go.sel.eps, "RMSNorm eps")->capture_default_str();
  golden->add_option("--algo", go_algo, "reduction algorithm of the expected outputs: one-shot (default) or ring");
  golden->add_option("--norm", go_norm, "RMSNorm order for every tier: fused or round-then-weight (default: each tier's declared one)");
  golden->add_flag("--hash-only", go.hash_only, "record only the files' hashes in the manifest (for k3 sizes), keep no file");

  std::string regress_dir;
  auto* regress = app.add_subcommand(
      "regress",
      "Regenerate every set of DIR/manifest.json and compare bit for bit: committed files tensor by tensor (inputs: "
      "the generator did not drift; expected_exact and expected.tier{k}: the reference did not drift), hash-only "
      "entries by SHA-256. Exit 1 naming the set, the tensor and the first differing element (or the hash).");
  regress->add_option("dir", regress_dir, "a golden set directory (e.g. data/golden)")->required();

  ltt::VerifyOptions vo;
  int vo_tier = -1;
  auto* verify = app.add_subcommand(
      "verify",
      "Check outputs made anywhere against a case file, as ltt check checks its own backends: every element inside its "
      "admissible set (the bf16 values some correct member of the tier's family can produce: any reduction order or tree, "
      "any fp32 GEMM order or split-K, any sum-of-squares order, rsqrt within 2 ULP, FTZ or not, the tier's rounding points "
      "fixed; README 'The contract'), every rank present equal. An F32 output is judged after rounding to bf16. OUTPUT holds 'output' "
      "(one rank's [M, H], BF16 or F32) or 'output.tier{k}.rank{r}' tensors. CASE and OUTPUT may both be directories "
      "(outputs under the cases' file names).");
  verify->add_option("--case", vo.case_path, "case file (or directory of them)")->required();
  verify->add_option("--output", vo.output_path, "outputs file (or directory of them)")->required();
  verify->add_option("--tier", vo_tier, "the tier that made 'output' (needed when the case covers several)");
  verify->add_option("--json", vo.report.json, "write the results as JSON (the schema of ltt check)");
  verify->add_option("--markdown", vo.report.markdown, "write a Markdown summary");
  verify->add_option("--ulp-max", vo.report.ulp_max, "also require every element within this many ULPs of the emulated reference (off by default)");
  verify->add_option("--ulp-frac", vo.report.ulp_frac, "also require at most this fraction of elements differing from it (off by default)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }

  std::string command;
  for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(argv[i]);
  if (golden->parsed()) {
    auto d = ltt::parse_dims(go_dims);
    if (!d.ok()) return fail(d.error());
    go.sel.dims = *d;
    if (auto t = parse_tiers(go_tiers); !t.ok()) return fail(t.error());
    else go.sel.tiers = *t;
    if (auto x = parse_dists(go_dists); !x.ok()) return fail(x.error());
    else go.sel.dists = *x;
    if (!go_algo.empty()) {
      go.sel.algo = ltt::parse_algo(go_algo);
      if (!go.sel.algo) return fail(LTT_USAGE("--algo '", go_algo, "' not understood: use one-shot or ring"));
    }
    if (!go_norm.empty()) {
      go.norm = ltt::parse_norm_order(go_norm);
      if (!go.norm) return fail(LTT_USAGE("--norm '", go_norm, "' not understood: use fused or round-then-weight"));
    }
    if (auto s = check_positive(go.sel.tp, "--tp"); !s.ok()) return fail(s.error());
    if (auto s = check_positive(go.sel.tokens, "--tokens"); !s.ok()) return fail(s.error());
    auto r = ltt::run_golden(go);
    return r.ok() ? *r : fail(r.error());
  }
  if (regress->parsed()) {
    auto r = ltt::run_regress(regress_dir);
    return r.ok() ? *r : fail(r.error());
  }
  if (verify->parsed()) {
    if (vo_tier >= 0) vo.tier = vo_tier;
    if ((verify->count("--ulp-max") && !(vo.report.ulp_max >= 0)) ||
        (verify->count("--ulp-frac") && !(vo.report.ulp_frac >= 0 && vo.report.ulp_frac <= 1)))
      return fail(LTT_USAGE("--ulp-max must be >= 0 and --ulp-frac in [0, 1]"));
    vo.report.command = command;
    auto r = ltt::run_verify(vo);
    return r.ok() ? *r : fail(r.error());
  }
  if (mut->parsed()) {
    if (mo_list) {
      for (const auto& d : ltt::mutants()) {
        std::string t;
        for (int k : d.tiers) t += (t.empty() ? "" : ",") + std::to_string(k);
        std::printf("%-20s tiers %-10s %s\n", d.name, t.c_str(), d.what);
      }
      return 0;
    }
    auto d = ltt::parse_dims(mo_dims);
    if (!d.ok()) return fail(d.error());
    mo.dims = *d;
    if (auto t = parse_tiers(mo_tiers); !t.ok()) return fail(t.error());
    else mo.tiers = *t;
    if (auto x = parse_dists(mo_dists); !x.ok()) return fail(x.error());
    else mo.dists = *x;
    if (auto s = check_positive(mo.tp, "--tp"); !s.ok()) return fail(s.error());
    if (auto s = check_positive(mo.tokens, "--tokens"); !s.ok()) return fail(s.error());
    mo.command = command;
    MPI_Init(&argc, &argv);
    auto r = ltt::run_mutants(mo, mo_only, MPI_COMM_WORLD);
    MPI_Finalize();
    return r.ok() ? *r : fail(r.error());
  }
  if (check->parsed()) {
    ck.command = command;
    if (!ck_variants.empty()) {
      auto v = parse_seeds(ck_variants, "--variant");
      if (!v.ok()) return fail(v.error());
      ck.variants = *v;
    }
    auto d = ltt::parse_dims(ck_dims);
    if (!d.ok()) return fail(d.error());
    ck.dims = *d;
    if (auto t = parse_tiers(ck_tiers); !t.ok()) return fail(t.error());
    else ck.tiers = *t;
    if (auto x = parse_dists(ck_dists); !x.ok()) return fail(x.error());
    else ck.dists = *x;
    if (!ck_algo.empty()) {
      ck.algo = ltt::parse_algo(ck_algo);
      if (!ck.algo) return fail(LTT_USAGE("--algo '", ck_algo, "' not understood: use one-shot or ring"));
    }
    if (auto s = check_positive(ck.tp, "--tp"); !s.ok()) return fail(s.error());
    if (!ck.tokens.empty())
      if (auto s = check_positive(ck.tokens, "--tokens"); !s.ok()) return fail(s.error());
    if (!(ck.timeout > 0)) return fail(LTT_USAGE("--timeout must be > 0 seconds"));
    if ((check->count("--ulp-max") && !(ck.ulp_max >= 0)) || (check->count("--ulp-frac") && !(ck.ulp_frac >= 0 && ck.ulp_frac <= 1)))
      return fail(LTT_USAGE("--ulp-max must be >= 0 and --ulp-frac in [0, 1]"));

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
      std::fprintf(stderr, "ltt: process %d: %s\n", rank, r.error().describe().c_str());
      // A usage error is found alike on every process; anything else may leave
      // others waiting in a collective.
      if (r.error().code != ltt::Errc::usage) MPI_Abort(MPI_COMM_WORLD, code);
    }
    MPI_Finalize();
    return code;
  }
  if (self->parsed()) {
    auto d = ltt::parse_dims(dims);
    if (!d.ok()) return fail(d.error());
    st.dims = *d;
    st.dists.clear();
    for (const auto& s : dists) {
      auto x = ltt::parse_dist(s);
      if (!x) return fail(LTT_USAGE("--dist '", s, "' not understood: use realistic, adversarial or exact"));
      st.dists.push_back(*x);
    }
    if (!algo.empty()) {
      st.algo = ltt::parse_algo(algo);
      if (!st.algo) return fail(LTT_USAGE("--algo '", algo, "' not understood: use one-shot or ring"));
    }
    if (auto s = check_positive(st.tp, "--tp"); !s.ok()) return fail(s.error());
    if (auto s = check_positive(st.tokens, "--tokens"); !s.ok()) return fail(s.error());
    auto r = ltt::run_selftest(st);
    if (!r.ok()) return fail(r.error());
    return *r;
  }
  return 2;
}
