// Report: table, JSON and Markdown from the same CaseResults.
#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

namespace ltt {

void evaluate(const MatD& y, const MatrixB& want, const Truth& truth, const MatD& bound, const CheckOptions& o,
              CaseResult& r) {
  r.vs_truth = compare_to_truth(y, truth.Y, bound, Mode::emulated);
  const int H = static_cast<int>(y.cols());
  for (Eigen::Index e = 0; e < y.size(); ++e) {
    const double a = y.data()[e], b = to_double(want.v[static_cast<size_t>(e)]);
    double d;
    if (!std::isfinite(a) || !std::isfinite(b)) d = (std::isnan(a) && std::isnan(b)) || a == b ? 0 : 1e9;
    else d = ulp_distance(a, b, std::max({std::fabs(b), std::fabs(truth.NW.data()[e]), std::fabs(truth.S.data()[e])}));
    r.ulp_max = std::max(r.ulp_max, d);
    ++r.ulp_hist[d == 0 ? 0 : d <= 1 ? 1 : d <= 2 ? 2 : 3];
    // The production gate, for comparison: |y - ref| <= 8e-2 + 3e-2 |ref|.
    const double t = truth.Y.data()[e];
    const bool gate_ok = std::isnan(t) ? std::isnan(a)
                         : (std::isinf(t) || std::isinf(a)) ? a == t || a == expected_value(t, Mode::emulated)
                                                           : std::fabs(a - t) <= 8e-2 + 3e-2 * std::fabs(t);
    r.gate_fail += gate_ok ? 0 : 1;
    if (d > o.ulp_max && r.first.size() < 5)
      r.first.push_back(cat("[", e / H, ", ", e % H, "] got ", a, " expected ", b, " (truth ", t, ", bound ",
                            bound.data()[e], ", ", d > 1e8 ? std::string("NaN/Inf mismatch") : cat(d, " ulp"), ")"));
  }
  r.frac_differ = static_cast<double>(static_cast<size_t>(y.size()) - r.ulp_hist[0]) / static_cast<double>(y.size());
  r.ok = r.vs_truth.ok() && r.ulp_max <= o.ulp_max && r.frac_differ <= o.ulp_frac && r.bad_rank < 0 &&
         r.deterministic && r.poisoned == 0;
}

std::map<std::string, std::string> case_metadata(const Problem& p, const std::vector<int>& tiers, const Contract& c) {
  std::string t;
  for (int k : tiers) {
    if (!t.empty()) t += ',';
    t += std::to_string(k);
  }
  char eps[32];
  std::snprintf(eps, sizeof eps, "%.17g", p.eps);
  return {{"tiers", t},
          {"tp", std::to_string(p.T)},
          {"tokens", std::to_string(p.M)},
          {"hidden", std::to_string(p.H)},
          {"latent", std::to_string(p.L)},
          {"eps", eps},
          {"seed", std::to_string(p.seed)},
          {"dist", name(p.dist)},
          {"algo", name(c.algo)},
          {"rmsnorm_order", name(c.norm)},
          {"ltt_version", "0.1.0"}};
}

Report::Report(const CheckOptions& o, int processes, std::string title)
    : o_(o),
      processes_(processes),
      title_(std::move(title)),
      table_({{"tier", "", 4}, {"T", "", 3}, {"M", "", 5}, {"dist", "", 11}, {"algo", "", 8}, {"max", "err/bnd", 8},
              {"p99.9", "err/bnd", 8}, {"over", "elems", 5}, {"ulp0", "elems", 8}, {"ulp1", "elems", 7},
              {"ulp2", "elems", 5}, {"ulp3+", "elems", 5}, {"differ", "%", 7}, {"ranks", "", 5}, {"rerun", "", 5},
              {"gate", "fails", 6}, {"time", "s", 6}, {"ok", "", 4}}) {}

void Report::header() {
  if (title_ == "ltt check")
    std::printf("# ltt check: backend %s, %d process(es) for T ranks (%s ranks), dims H %d L %d, seed %llu\n",
                o_.backend.c_str(), processes_, processes_ == 1 ? "fake" : "real or mixed", o_.dims.H, o_.dims.L,
                static_cast<unsigned long long>(o_.seed));
  else
    std::printf("# %s: %s\n", title_.c_str(), o_.backend.c_str());
  std::printf("# err/bnd: |y - truth| / rigorous bound; ulpN: elements N ULPs (at their error scale) from the emulated\n"
              "# reference of the declared contract; pass: every element <= %g ULP, <= %g%% differing, all ranks equal,\n"
              "# rerun equal, nothing unwritten. gate: elements failing |y - truth| <= 8e-2 + 3e-2 |truth| (for comparison)\n",
              o_.ulp_max, 100 * o_.ulp_frac);
  table_.header();
}

void Report::add(const CaseResult& r) {
  const auto& h = r.ulp_hist;
  table_.row({std::to_string(r.tier), std::to_string(r.p.T), std::to_string(r.p.M), name(r.p.dist), name(r.contract.algo),
              fmt("%.3g", r.vs_truth.max_ratio), fmt("%.3g", r.vs_truth.p999_ratio), std::to_string(r.vs_truth.over),
              std::to_string(h[0]), std::to_string(h[1]), std::to_string(h[2]), std::to_string(h[3]),
              fmt("%.4f", 100 * r.frac_differ), r.bad_rank < 0 ? "same" : cat("r", r.bad_rank),
              r.deterministic ? "same" : "DIFF", std::to_string(r.gate_fail), fmt("%.2f", r.seconds),
              r.ok ? "ok" : "FAIL"});
  if (!r.ok) {
    std::string why;
    if (r.vs_truth.over) why += cat(" ", r.vs_truth.over, " over the bound;");
    if (r.vs_truth.nonfinite_mismatch) why += cat(" ", r.vs_truth.nonfinite_mismatch, " NaN/Inf where none is expected (or missing);");
    if (r.vs_truth.nonzero == 0) why += " all zero;";
    if (r.ulp_max > o_.ulp_max) why += cat(" max ", r.ulp_max > 1e8 ? std::string("inf") : fmt("%.3g", r.ulp_max), " ULP;");
    if (r.frac_differ > o_.ulp_frac) why += cat(" ", fmt("%.3g", 100 * r.frac_differ), "% of elements differ;");
    if (r.bad_rank >= 0) why += cat(" rank ", r.bad_rank, " differs from rank 0 first at element ", r.bad_rank_elem, ";");
    if (!r.deterministic) why += " a second run gave other bits;";
    if (r.poisoned) why += cat(" ", r.poisoned, " elements never written;");
    std::printf("#   FAIL tier %d T %d M %d %s:%s\n", r.tier, r.p.T, r.p.M, name(r.p.dist), why.c_str());
    if (!r.note.empty()) std::printf("#     %s\n", r.note.c_str());
    for (const auto& f : r.first) std::printf("#     %s\n", f.c_str());
    if (!r.dump.empty()) std::printf("#     case file: %s\n", r.dump.c_str());
    std::printf("#     reproduce: %s\n", r.repro.c_str());
  }
  std::fflush(stdout);
  results_.push_back(r);
}

Status Report::finish(double wall_seconds) {
  size_t over = 0, failed = 0, gate_pass_but_fail = 0;
  for (const auto& r : results_) {
    over += r.vs_truth.over + r.vs_truth.nonfinite_mismatch + r.ulp_hist[2] + r.ulp_hist[3];
    failed += r.ok ? 0 : 1;
    gate_pass_but_fail += (!r.ok && r.gate_fail == 0) ? 1 : 0;
  }
  std::printf("# Out of bound values : %zu %s\n", over, failed == 0 ? "OK" : "FAILED");
  std::printf("# %zu cases, %zu failed (%zu of them passed by the production gate); wall %.1f s\n", results_.size(),
              failed, gate_pass_but_fail, wall_seconds);

  if (!o_.json.empty()) {
    nlohmann::json j;
    j["ltt_version"] = "0.1.0";
    j["command"] = o_.command;
    j["backend"] = o_.backend;
    j["processes"] = processes_;
    j["criteria"] = {{"ulp_max", o_.ulp_max}, {"ulp_frac", o_.ulp_frac}};
    for (const auto& r : results_) {
      const ErrorStats& s = r.vs_truth;
      j["cases"].push_back({{"tier", r.tier},
                            {"tp", r.p.T},
                            {"tokens", r.p.M},
                            {"hidden", r.p.H},
                            {"latent", r.p.L},
                            {"dist", name(r.p.dist)},
                            {"seed", r.p.seed},
                            {"algo", name(r.contract.algo)},
                            {"rmsnorm_order", name(r.contract.norm)},
                            {"vs_truth",
                             {{"max_abs", s.max_abs},
                              {"max_rel", s.max_rel},
                              {"normwise_rel", s.normwise},
                              {"max_err_over_bound", s.max_ratio},
                              {"p999_err_over_bound", s.p999_ratio},
                              {"over_bound", s.over},
                              {"nonfinite_expected", s.nonfinite_expected},
                              {"nonfinite_mismatch", s.nonfinite_mismatch}}},
                            {"vs_emulated", {{"ulp_hist", r.ulp_hist}, {"ulp_max", r.ulp_max > 1e8 ? -1.0 : r.ulp_max}, {"frac_differ", r.frac_differ}}},
                            {"ranks_agree", r.bad_rank < 0},
                            {"first_differing_rank", r.bad_rank},
                            {"deterministic", r.deterministic},
                            {"unwritten", r.poisoned},
                            {"production_gate_failures", r.gate_fail},
                            {"seconds", r.seconds},
                            {"pass", r.ok},
                            {"reproduce", r.repro},
                            {"case_file", r.dump}});
    }
    j["summary"] = {{"cases", results_.size()}, {"failed", failed}, {"wall_seconds", wall_seconds}};
    std::ofstream f(o_.json);
    f << j.dump(2) << "\n";
    if (!f) return LTT_USAGE("cannot write --json ", o_.json);
  }
  if (!o_.markdown.empty()) {
    std::ofstream f(o_.markdown);
    f << "### " << title_ << ": " << (failed == 0 ? "pass" : "FAIL") << "\n\n"
      << results_.size() << " cases, " << failed << " failed, " << fmt("%.1f", wall_seconds) << " s. Command: `"
      << o_.command << "`\n\n"
      << "| tier | T | M | dist | algo | max err/bound | ULP 0/1/2/3+ | differ % | ranks | rerun | gate fails | verdict |\n"
      << "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (const auto& r : results_)
      f << "| " << r.tier << " | " << r.p.T << " | " << r.p.M << " | " << name(r.p.dist) << " | " << name(r.contract.algo)
        << " | " << fmt("%.3g", r.vs_truth.max_ratio) << " | " << r.ulp_hist[0] << "/" << r.ulp_hist[1] << "/"
        << r.ulp_hist[2] << "/" << r.ulp_hist[3] << " | " << fmt("%.4f", 100 * r.frac_differ) << " | "
        << (r.bad_rank < 0 ? "same" : cat("rank ", r.bad_rank)) << " | " << (r.deterministic ? "same" : "differs")
        << " | " << r.gate_fail << " | " << (r.ok ? "pass" : "**FAIL**") << " |\n";
    if (!f) return LTT_USAGE("cannot write --markdown ", o_.markdown);
  }
  return {};
}

}  // namespace ltt
