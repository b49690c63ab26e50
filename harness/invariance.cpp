// The invariance report (invariance.hpp).
#include "invariance.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "backend.hpp"
#include "compare.hpp"
#include "jsononce.hpp"
#include "outfile.hpp"
#include "reference.hpp"
#include "table.hpp"
#include "flags.hpp"
#include "watchdog.hpp"
#include "report.hpp"

namespace ltt {

namespace {

struct Hist {
  std::array<size_t, 4> bins{};  // 0, 1, 2, 3+ ULPs (non-finite mismatches count as 3+)
  double max = 0;
};

// ULP distances between the first `rows` rows of a and b, at each element's
// error scale (its own values, |N W^T| and |S| from the truth).
Hist ulp_hist(const MatrixB& a, const MatrixB& b, int rows, const Truth& t) {
  Hist h;
  const size_t n = static_cast<size_t>(rows) * static_cast<size_t>(a.cols);
  for (size_t e = 0; e < n; ++e) {
    const double x = to_double(a.v[e]), y = to_double(b.v[e]);
    double d;
    if (!std::isfinite(x) || !std::isfinite(y)) d = (std::isnan(x) && std::isnan(y)) || x == y ? 0 : 1e9;
    else d = ulp_distance(x, y, std::max(std::fabs(t.NW.data()[e]), std::fabs(t.S.data()[e])));
    h.max = std::max(h.max, d);
    ++h.bins[d == 0 ? 0 : d <= 1 ? 1 : d <= 2 ? 2 : 3];
  }
  return h;
}

// The first M rows of every tensor of `in`.
Inputs prefix(const Inputs& in, int M) {
  Inputs out = in;
  out.p.M = M;
  auto cut = [M](MatrixB& m) {
    m.v.resize(static_cast<size_t>(M) * static_cast<size_t>(m.cols));
    m.rows = M;
  };
  for (auto& r : out.R) cut(r);
  for (auto& s : out.S) cut(s);
  return out;
}

// The same sums over twice the ranks: x -> (bf16(x/2), x - bf16(x/2)), both
// exact (non-finite x -> (x, 0)).
Inputs split(const Inputs& in) {
  Inputs out = in;
  out.p.T = 2 * in.p.T;
  auto halve = [](const std::vector<MatrixB>& v) {
    std::vector<MatrixB> o;
    for (const auto& m : v) {
      MatrixB hi = m, lo = m;
      for (size_t e = 0; e < m.size(); ++e) {
        const double x = to_double(m.v[e]);
        if (!std::isfinite(x)) {
          lo.v[e] = bf16{0};
          continue;
        }
        hi.v[e] = to_bf16(x / 2);
        lo.v[e] = to_bf16(x - to_double(hi.v[e]));
      }
      o.push_back(hi);
      o.push_back(lo);
    }
    return o;
  };
  out.R = halve(in.R);
  out.S = halve(in.S);
  return out;
}

std::string hist_str(const Hist& h) { return cat(h.bins[0], "/", h.bins[1], "/", h.bins[2], "/", h.bins[3]); }

}  // namespace

Result<int> run_invariance(const CheckOptions& o) {
  const double wall0 = now_seconds();
  // Before anything can refuse the run: a refused run leaves "did not finish", not an earlier report.
  LTT_TRY(claim_json(o.json, "ltt check --invariance", o.command));
  std::vector<int> Ms = o.tokens.empty() ? std::vector<int>{1, 5, 33, 128, 129, 256, 257, 2048} : o.tokens;
  std::sort(Ms.begin(), Ms.end());
  Ms.erase(std::unique(Ms.begin(), Ms.end()), Ms.end());
  // Every shape valid, something to run, and it fits, before any output.
  std::vector<Problem> largest;
  size_t planned = 0;  // the batch rows: one per T, dist and tier that runs at some selected M
  for (Dist dist : o.dists)
    for (int T : o.tp) {
      const Problem pm = make_problem(o.dims, T, Ms.back(), dist, o.seed, o.eps);
      LTT_TRY(validate(pm));
      largest.push_back(pm);
      for (int tier : o.tiers)
        planned += std::any_of(Ms.begin(), Ms.end(), [&](int M) {
          Problem q = pm;
          q.M = M;
          return validate_for_tier(q, tier).ok();
        });
    }
  if (planned == 0)
    return LTT_USAGE("--invariance: nothing to run: no selected tier applies at any selected M (", kTier0Applies, ")");
  LTT_TRY(flags::fits_in_memory(largest, "check --invariance"));
  Watchdog dog(o.timeout, "process 0 of 1");
  size_t nondeterministic = 0;
  nlohmann::json jb = nlohmann::json::array(), js = nlohmann::json::array(), jt = nlohmann::json::array();
  // While the run is on, --json holds the batch rows judged so far, as
  // check's reports hold their cases (Checkpoints, report.hpp): unfinished,
  // with no "nondeterministic_runs".
  Checkpoints checkpoints;
  auto batch_row = [&] {
    if (jb.size() >= planned) return;  // the whole report is written next
    auto so_far = [&] {
      nlohmann::json j = report_head(o.command);
      j.update({{"finished", false}, {"note", so_far_note("ltt check --invariance", jb.size(), planned, "batch row", o.command)},
                {"batch_rows_done", jb.size()}, {"batch_rows_planned", planned},
                {"invariance", {{"batch", jb}, {"selection_switch", js}, {"tp", jt}}}});
      return json_text(j);
    };
    checkpoints.update(jb.size(), "the rows so far", {{"--json", o.json, so_far}});
  };

  std::printf("# ltt check --invariance: backend %s, fake ranks, dims H %d L %d, seed %llu, M in {%s}\n", o.backend.c_str(),
              o.dims.H, o.dims.L, static_cast<unsigned long long>(o.seed), join(Ms).c_str());
  std::printf("# batch: rows of each M bitwise equal to the same rows of the largest M the tier runs at\n");
  Table tb({{"tier", "", 4}, {"T", "", 3}, {"dist", "", 11}, {"algo", "", 8}, {"rows", "compared", 9},
            {"differ", "rows", 7}, {"first", "at M", 6}, {"rerun", "", 5}, {"batch-inv", "", 9}});
  tb.header();

  struct Key {
    int T;
    Dist dist;
    bool operator<(const Key& k) const { return std::tie(T, dist) < std::tie(k.T, k.dist); }
  };
  // (T, dist) -> tier -> (the largest M the tier runs at, rank 0's output there)
  std::map<Key, std::map<int, std::pair<int, MatrixB>>> at_max;
  std::map<Key, std::unique_ptr<Inputs>> inputs_max;
  std::vector<std::string> switch_rows, tp_rows, switch_skipped;
  bool one_m_only = false;  // a tier that runs at one selected M: its batch row compares nothing

  for (Dist dist : o.dists)
    for (int T : o.tp) {
      const Problem pm = make_problem(o.dims, T, Ms.back(), dist, o.seed, o.eps);
      LTT_TRY(validate(pm));
      watchdog_stage(cat("T ", T, " ", name(dist), ": inputs"));
      auto big = std::make_unique<Inputs>(generate_inputs(pm));
      const MatF Wf = widen<float>(big->W), gf = widen<float>(big->g);
      Reference ref(*big);
      const Truth& truth = ref.truth();
      LocalComm<EmulatedArith> comm(T);
      std::map<std::pair<int, int>, MatrixB> out;  // (tier, M) -> rank 0's output
      auto run = [&](int tier, int M) -> Result<MatrixB> {
        auto it = out.find({tier, M});
        if (it != out.end()) return it->second;
        Inputs in = prefix(*big, M);
        Contract c = tier_def(tier).contract;
        if (o.algo) c.algo = *o.algo;
        std::array<std::vector<MatrixB>, 2> y;
        for (int k = 0; k < 2; ++k) {
          watchdog_stage(cat("tier ", tier, " T ", T, " M ", M, " ", name(dist), ": run ", k + 1));
          y[static_cast<size_t>(k)] = poisoned_outputs(static_cast<size_t>(T), M, in.p.H);
          LTT_TRY(run_cpu(in.p, tier, c, in, gf, Wf, comm, -1, y[static_cast<size_t>(k)]));
        }
        if (first_bitwise_difference(y[0][0], y[1][0]) >= 0) ++nondeterministic;
        return out.emplace(std::make_pair(tier, M), y[0][0]).first->second;
      };

      for (int tier : o.tiers) {
        std::vector<int> applies;
        for (int M : Ms) {
          Problem q = pm;
          q.M = M;
          if (validate_for_tier(q, tier).ok()) applies.push_back(M);
        }
        if (applies.empty()) continue;
        const size_t nd0 = nondeterministic;
        auto last = run(tier, applies.back());
        if (!last.ok()) return last.error();
        size_t rows = 0, differ = 0;
        int first_at = -1;
        for (int M : applies) {
          if (M == applies.back()) continue;  // the largest against itself says nothing
          auto y = run(tier, M);
          if (!y.ok()) return y.error();
          for (int i = 0; i < M; ++i) {
            ++rows;
            const auto* a = y->v.data() + static_cast<size_t>(i) * static_cast<size_t>(pm.H);
            const auto* b = last->v.data() + static_cast<size_t>(i) * static_cast<size_t>(pm.H);
            if (!std::equal(a, a + pm.H, b)) {
              ++differ;
              if (first_at < 0) first_at = M;
            }
          }
        }
        const bool det = nondeterministic == nd0;
        at_max[{T, dist}][tier] = {applies.back(), *last};
        Contract c = tier_def(tier).contract;
        if (o.algo) c.algo = *o.algo;
        // One M where the tier runs: nothing to compare it with, so no claim ("-", JSON null).
        const bool compared = applies.size() >= 2;
        one_m_only |= !compared;
        tb.row({std::to_string(tier), std::to_string(T), name(dist), name(c.algo), std::to_string(rows),
                std::to_string(differ), first_at < 0 ? "-" : std::to_string(first_at), det ? "same" : "DIFF",
                !compared ? "-" : differ == 0 ? "yes" : "NO"});
        jb.push_back({{"tier", tier}, {"tp", T}, {"dist", name(dist)}, {"algo", name(c.algo)}, {"tokens", applies},
                      {"rows_compared", rows}, {"rows_differing", differ}, {"first_differing_at_tokens", first_at},
                      {"deterministic", det},
                      {"batch_invariant", compared ? nlohmann::json(differ == 0) : nlohmann::json(nullptr)}});
        batch_row();
      }

      // Where the production selection switches tiers.
      for (auto [lo, hi] : {std::pair{128, 129}, std::pair{256, 257}}) {
        if (!std::binary_search(Ms.begin(), Ms.end(), lo) || !std::binary_search(Ms.begin(), Ms.end(), hi)) continue;
        const int ta = select_tier(T, lo, DType::bf16), tb2 = select_tier(T, hi, DType::bf16);
        auto selected = [&o](int k) { return std::find(o.tiers.begin(), o.tiers.end(), k) != o.tiers.end(); };
        std::vector<int> left_out;  // --tier left a tier of the switch out: not run behind its back
        for (int k : {ta, tb2})
          if (!selected(k) && std::find(left_out.begin(), left_out.end(), k) == left_out.end()) left_out.push_back(k);
        if (!left_out.empty()) {
          switch_skipped.push_back(cat("T ", T, " ", name(dist), " M ", lo, " (tier ", ta, ") -> ", hi, " (tier ", tb2,
                                       "): not compared, --tier leaves tier", left_out.size() > 1 ? "s " : " ",
                                       join(left_out, ","), " out"));
          continue;
        }
        auto a = run(ta, lo);
        auto b = run(tb2, hi);
        if (!a.ok()) return a.error();
        if (!b.ok()) return b.error();
        const Hist h = ulp_hist(*a, *b, lo, truth);
        switch_rows.push_back(cat(T, " ", name(dist), " M ", lo, " (tier ", ta, ") -> ", hi, " (tier ", tb2, "): ",
                                  hist_str(h), ", max ", h.max > 1e8 ? std::string("inf") : fmt("%.3g", h.max)));
        js.push_back({{"tp", T}, {"dist", name(dist)}, {"from_tokens", lo}, {"from_tier", ta}, {"to_tokens", hi},
                      {"to_tier", tb2}, {"ulp_hist", h.bins}, {"ulp_max", h.max > 1e8 ? -1.0 : h.max}});
      }
      inputs_max[{T, dist}] = std::move(big);
      (void)ref;
    }

  // TP invariance: T against 2T on an exact split of the same partials, each
  // tier at the largest M it runs at (tier 0 at most 128).
  std::vector<std::string> tp_skipped;
  for (Dist dist : o.dists)
    for (int T : o.tp) {
      if (std::find(o.tp.begin(), o.tp.end(), 2 * T) == o.tp.end()) continue;
      const Inputs& base = *inputs_max[{T, dist}];
      Reference ref(base);  // a row's truth is of that row alone: the prefix's rows are the first rows
      const MatF Wf = widen<float>(base.W), gf = widen<float>(base.g);
      LocalComm<EmulatedArith> comm(2 * T);
      for (auto& [tier, at] : at_max[{T, dist}]) {
        const auto& [M, y1] = at;
        const Inputs two = split(prefix(base, M));
        if (auto v = validate_for_tier(two.p, tier); !v.ok()) {
          tp_skipped.push_back(cat("tier ", tier, " ", name(dist), " M ", M, ": T ", 2 * T, ": ", v.error().message));
          continue;
        }
        Contract c = tier_def(tier).contract;
        if (o.algo) c.algo = *o.algo;
        watchdog_stage(cat("tier ", tier, " T ", 2 * T, " split: run"));
        auto y2 = poisoned_outputs(static_cast<size_t>(2 * T), two.p.M, two.p.H);
        LTT_TRY(run_cpu(two.p, tier, c, two, gf, Wf, comm, -1, y2));
        const Hist h = ulp_hist(y1, y2[0], two.p.M, ref.truth());
        tp_rows.push_back(cat("tier ", tier, " ", name(dist), " M ", two.p.M, ": T ", T, " vs ", 2 * T, ": ", hist_str(h),
                              ", max ", h.max > 1e8 ? std::string("inf") : fmt("%.3g", h.max)));
        jt.push_back({{"tier", tier}, {"dist", name(dist)}, {"tokens", two.p.M}, {"tp", {T, 2 * T}},
                      {"ulp_hist", h.bins}, {"ulp_max", h.max > 1e8 ? -1.0 : h.max}});
      }
    }

  if (one_m_only) std::printf("  (batch-inv -: the tier runs at one selected M only; comparing needs two, e.g. --tokens 5,33)\n");
  std::printf("# switch: rows of the tier selected at M against the tier selected at M+1 (ULPs 0/1/2/3+)\n");
  for (const auto& r : switch_rows) std::printf("  T %s\n", r.c_str());
  for (const auto& r : switch_skipped) std::printf("  %s\n", r.c_str());
  if (switch_rows.empty() && switch_skipped.empty()) std::printf("  (needs M 128 and 129, or 256 and 257)\n");
  std::printf("# tp: T against 2T on an exact split of the same partials (ULPs 0/1/2/3+)\n");
  for (const auto& r : tp_rows) std::printf("  %s\n", r.c_str());
  for (const auto& r : tp_skipped) std::printf("  %s (not compared)\n", r.c_str());
  if (tp_rows.empty() && tp_skipped.empty()) std::printf("  (needs --tp T and 2T, e.g. 8,16)\n");
  std::printf("# Non-deterministic runs : %zu %s\n", nondeterministic, nondeterministic == 0 ? "OK" : "FAILED");
  std::printf("# wall %.1f s\n", now_seconds() - wall0);
  if (!o.json.empty()) {
    nlohmann::json j = report_head(o.command);
    j.update({{"invariance", {{"batch", jb}, {"selection_switch", js}, {"tp", jt}, {"tp_not_compared", tp_skipped},
                                {"selection_switch_not_compared", switch_skipped}}}, {"nondeterministic_runs", nondeterministic}});
    LTT_TRY(write_text_file("--json", o.json, json_text(j)));
  }
  return nondeterministic == 0 ? 0 : 1;
}

}  // namespace ltt
