// ltt: the latent-MoE tail testbed's command line.
//
//   ltt selftest [--bench]   the reference of every tier against the float64 truth
//
// Exit codes: 0 pass, 1 numerical failure, 2 bad input or usage.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

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

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
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
