// ltt mutants: the planted-bug table.
#include "mutants.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <map>
#include <set>
#include <tuple>

#include "cuda_backend.hpp"
#include "member.hpp"
#include "jsononce.hpp"
#include "outfile.hpp"
#include "report.hpp"
#include "table.hpp"

namespace ltt {

Result<int> run_mutants(const CheckOptions& o, const std::vector<std::string>& only, MPI_Comm comm) {
  const double wall0 = now_seconds();
  // Before anything can refuse the run: a refused run (exit 2) leaves "did
  // not finish", never an earlier run's report that every mutant was caught.
  LTT_TRY(claim_json(o.json, "ltt mutants", o.command));
  for (const auto& n : only)
    if (!find_mutant(n)) return LTT_USAGE("mutant '", n, "' does not exist (ltt mutants --list)");
  if (o.backend == "cuda") LTT_TRY(gpu::cuda_available());
  {  // the flags and shapes, refused before the first line as ltt check refuses them
    CheckOptions c = o;
    c.plan_only = true;
    c.caller = "mutants";
    LTT_TRY(run_check(c, comm).status());
  }
  // The plan, before the first line: each mutant on the selected cases that
  // can carry it. Below its least T the mutant is the correct code (or names a
  // rank that is not there): those T are left out, and a mutant with no case
  // left is said and skipped, not counted as missed.
  struct Planned {
    const MutantDef* d;
    CheckOptions c;
  };
  std::vector<Planned> plan;
  std::string skipped;        // mutants no selected case can carry
  std::string shape_skipped;  // ... of them, those whose tiers are selected but not at a T or M they act at
  nlohmann::json jskipped = nlohmann::json::array();
  std::string off_tiers;  // mutants none of whose tiers is selected (said when no mutant runs)
  for (const MutantDef& d : mutants()) {
    if (!only.empty() && std::find(only.begin(), only.end(), d.name) == only.end()) continue;
    if (o.backend == "cuda" && !gpu::supported_mutant(d.m)) {
      if (!only.empty()) return LTT_USAGE("mutant '", d.name, "': the cuda backend cannot plant it");
      continue;  // not a bug the GPU pipelines can carry (listed with --list)
    }
    CheckOptions c = o;
    c.mutant = d.name;
    c.quiet = true;
    c.json.clear();
    c.markdown.clear();
    c.tiers.clear();
    for (int tier : d.tiers)
      if (std::find(o.tiers.begin(), o.tiers.end(), tier) != o.tiers.end()) c.tiers.push_back(tier);
    if (c.tiers.empty()) {
      const std::string acts = cat(d.name, " acts on tier", d.tiers.size() > 1 ? "s " : " ", join(d.tiers, ","));
      off_tiers += cat(off_tiers.empty() ? "" : "; ", acts);
      if (!only.empty()) {  // named, so said, not dropped
        skipped += cat(skipped.empty() ? "" : "; ", acts, ", none selected");
        jskipped.push_back({{"mutant", d.name}, {"tiers", d.tiers}});
      }
      continue;
    }
    c.tp.clear();
    for (int T : o.tp)
      if (T >= d.min_tp) c.tp.push_back(T);
    // The tiers with a selected case to carry the mutant: the table's tiers
    // column names only those (tier 0 at T 1 is no case of it).
    std::vector<int> carried;
    for (int tier : c.tiers) {
      bool any = false;
      for (int T : c.tp)
        for (int M : o.tokens.empty() ? default_tokens(1) : o.tokens)
          any |= validate_for_tier(make_problem(o.dims, T, M, Dist::realistic, o.seed, o.eps), tier).ok();
      if (any) carried.push_back(tier);
    }
    const bool runnable = !carried.empty();
    if (runnable) c.tiers = carried;
    if (!runnable) {
      // The mutant's own T floor where no selected T reaches it; else its
      // tiers' shapes (tier 0 alone has a shape limit: M <= 128).
      const std::string reason = c.tp.empty() ? cat("a bug only at T >= ", d.min_tp)
                                              : c.tiers == std::vector<int>{0}
                                                    ? cat("it acts on tier 0 alone, and ", kTier0Applies, ": no selected M is 128 or less")
                                                    : cat("no selected T and M give a case of its tiers ", join(c.tiers, ","));
      const std::string why = cat(d.name, " (", reason, ")");
      skipped += cat(skipped.empty() ? "" : "; ", why);
      shape_skipped += cat(shape_skipped.empty() ? "" : "; ", why);
      jskipped.push_back({{"mutant", d.name}, {"min_tp", d.min_tp}, {"why", reason}});
      continue;
    }
    plan.push_back({&d, std::move(c)});
  }
  if (plan.empty())
    return LTT_USAGE("no mutant applies to the selected tiers and shapes",
                     off_tiers.empty() ? "" : cat(" (--tier ", join(o.tiers, ","), ": ", off_tiers, ")"),
                     shape_skipped.empty() ? "" : cat(" (no selected case can carry ", shape_skipped, ")"),
                     ": select their tiers with --tier and shapes they apply to with --tp and --tokens");
  std::printf("# ltt mutants: each planted bug alone in the %s backend, judged by ltt check's checks\n"
              "# cases: dims H %d L %d, T %s, M %s, dists %s, reductions %s (each mutant on the tiers it applies to)\n",
              o.backend.c_str(), o.dims.H, o.dims.L, join(o.tp, ",").c_str(), join(o.tokens, ",").c_str(),
              join(o.dists, ",", [](Dist d) { return name(d); }).c_str(), o.algo ? name(*o.algo) : "each tier's declared one");
  Table t({{"mutant", "", 18}, {"tiers", "", 9}, {"cases", "", 5}, {"caught", "cases", 6}, {"by", "checks", 40},
           {"outside", "elems", 9}, {"gate", "caught", 6}, {"verdict", "", 7}});
  // The clean run: the production gate's own failures on correct outputs
  // (adversarial rows fail it), so a mutant counts as caught by the gate
  // only where it adds failures. It must pass itself.
  struct Clean {
    size_t gate_fail = 0;
    unsigned long long digest = 0;  // its outputs' bits
  };
  std::map<std::tuple<int, int, int, int>, Clean> clean;
  size_t clean_ring = 0, clean_cases = 0;  // the clean run's cases, and of them those reduced by a ring
  auto key_of = [](const CaseResult& x) { return std::make_tuple(x.tier, x.p.T, x.p.M, static_cast<int>(x.p.dist)); };
  {
    CheckOptions c = o;
    c.quiet = true;
    c.json.clear();
    c.markdown.clear();
    std::vector<CaseResult> res;
    auto r = run_check(c, comm, &res);
    if (!r.ok()) return r.error();
    for (const auto& x : res) {
      if (!x.ok) return LTT_ERR(Errc::internal, "the clean backend fails tier ", x.tier, " T ", x.p.T, " M ", x.p.M, " ", name(x.p.dist), ": no mutant can be judged");
      clean[key_of(x)] = {x.gate_fail, x.digest};
      clean_ring += weak_ring(x) ? 1 : 0;
    }
    clean_cases = res.size();
    std::printf("# clean backend: %s %s; gate: cases where the production gate fails more elements than on\n"
                "# the clean output; outside: elements of rank 0's output outside their admissible sets, all cases\n"
                "# (another rank's output must equal rank 0's bit for bit: the ranks check)\n", counted(res.size(), "case").c_str(),
                res.size() == 1 ? "passes" : "pass");
  }
  t.header();
  size_t missed = 0, gate_missed = 0, n = 0;
  std::string why_missed;  // what cases would show the missed mutants that need particular ones
  // Mutants that changed no output of any selected case (every output bitwise
  // the clean run's): no check can see them there, so they are neither caught
  // nor missed, and said with the data that would show them.
  std::string no_effect, why_no_effect;
  nlohmann::json jno_effect = nlohmann::json::array();
  std::string flagged;  // mutants some of whose cases look like missing rounding points (none expected)
  std::string flagged_product;  // mutants some of whose cases hold the GEMM's output rounded before the add (gemm-round-then-add alone expected)
  nlohmann::json jm = nlohmann::json::array();
  // While the run is on, --json holds the mutants judged so far, as check's
  // reports hold their cases (Checkpoints, report.hpp): unfinished, no "pass".
  Checkpoints checkpoints;
  size_t done = 0;
  auto judged = [&] {
    if (++done >= plan.size()) return;  // the whole report is written next
    auto so_far = [&] {
      nlohmann::json j = report_head(o.command);
      j.update({{"finished", false}, {"note", so_far_note("ltt mutants", done, plan.size(), "mutant", o.command)},
                {"mutants_done", done}, {"mutants_planned", plan.size()}, {"mutants", jm}, {"not_run", jskipped},
                {"no_effect", jno_effect}});
      return json_text(j);
    };
    checkpoints.update(done, "the mutants so far", {{"--json", o.json, so_far}});
  };
  for (const auto& [dp, c] : plan) {
    const MutantDef& d = *dp;
    std::vector<CaseResult> res;
    auto r = run_check(c, comm, &res);
    if (!r.ok()) return r.error();
    std::set<std::string> by;
    size_t caught = 0, outside = 0, gate = 0, looks_unrounded = 0, looks_product_rounded = 0, changed = 0;
    for (const auto& x : res) {
      if (!x.ok) ++caught;
      const Clean& c0 = clean[key_of(x)];
      changed += !x.stopped.empty() || x.digest != c0.digest;
      looks_unrounded += x.missing_rounding_points() ? 1 : 0;
      looks_product_rounded += x.product_rounded_first() ? 1 : 0;
      for (const auto& k : x.failed_checks()) by.insert(k == "stopped" ? "stopped (would hang)" : k);
      outside += x.outside;
      gate += x.stopped.empty() && x.gate_fail > c0.gate_fail ? 1 : 0;
    }
    const std::string bys = join(by), tiers = join(c.tiers, ",");
    const bool ok = caught > 0;
    if (changed == 0 && !ok) {
      no_effect += cat(no_effect.empty() ? "" : ", ", d.name);
      why_no_effect += cat("#   ", d.name, " shows only on ", d.needs ? d.needs : "other data (more tokens, other distributions or seeds)", "\n");
      jno_effect.push_back({{"mutant", d.name}, {"tiers", c.tiers}, {"cases", res.size()}});
      t.row({d.name, tiers, std::to_string(res.size()), "0", "-", "0", cat("0/", res.size()), "no effect"});
      std::fflush(stdout);
      judged();
      continue;
    }
    ++n;
    missed += ok ? 0 : 1;
    if (!ok && d.needs) why_missed += cat("#   ", d.name, " shows only on ", d.needs, "\n");
    if (looks_unrounded) flagged += cat(flagged.empty() ? "" : ", ", d.name, " (", looks_unrounded, " cases)");
    if (looks_product_rounded)
      flagged_product += cat(flagged_product.empty() ? "" : ", ", d.name, " (", looks_product_rounded, " of ", res.size(), " cases)");
    gate_missed += gate ? 0 : 1;
    t.row({d.name, tiers, std::to_string(res.size()), std::to_string(caught), bys.empty() ? "-" : bys,
           std::to_string(outside), cat(gate, "/", res.size()), ok ? "caught" : "MISSED"});
    std::fflush(stdout);
    jm.push_back({{"mutant", d.name}, {"what", d.what}, {"tiers", c.tiers}, {"cases", res.size()}, {"caught_cases", caught},
                  {"checks", std::vector<std::string>(by.begin(), by.end())}, {"outside", outside},
                  {"gate_caught_cases", gate}, {"missing_rounding_points_cases", looks_unrounded},
                  {"product_rounded_first_cases", looks_product_rounded}, {"caught", ok}});
    judged();
  }
  if (!skipped.empty()) std::printf("# not run, no selected case can carry them: %s\n", skipped.c_str());
  if (!no_effect.empty())
    std::printf("# no effect, not counted: every output of the selected cases bitwise the clean run's under %s:\n%s", no_effect.c_str(),
                why_no_effect.c_str());
  std::printf("# Mutants caught : %zu of %zu %s\n", n - missed, n, n == 0 ? "(none changed an output)" : missed == 0 ? "OK" : "FAILED");
  if (!why_missed.empty()) std::printf("# the selected cases cannot show every mutant:\n%s", why_missed.c_str());
  std::printf("# the production gate catches %zu of %zu (it misses %zu); wall %.1f s\n", n - gate_missed, n, gate_missed,
              now_seconds() - wall0);
  std::printf("# said to look computed without the intermediate roundings (the truth rounded once): %s\n",
              flagged.empty() ? "no mutant" : flagged.c_str());
  std::printf("# said to hold the GEMM's output rounded before its addend was added: %s\n",
              flagged_product.empty() ? "no mutant" : flagged_product.c_str());
  // Under a ring fewer mutants show: a miss there is the ring's wider sets, said as check says it.
  std::vector<std::string> notes;
  if (clean_ring > 0) {
    notes.push_back(ring_note(clean_ring, clean_cases));
    std::printf("# %s\n", notes.back().c_str());
  }
  Status written;
  if (!o.json.empty()) {
    nlohmann::json j = report_head(o.command);
    j["notes"] = notes;
    // "pass": the exit's verdict (every mutant judged was caught, and at
    // least one was judged), so that caught == of with of 0 is no pass.
    j.update({{"pass", n > 0 && missed == 0}, {"mutants", jm}, {"caught", n - missed}, {"of", n},
              {"gate_caught", n - gate_missed}, {"not_run", jskipped}, {"no_effect", jno_effect}});
    written = write_text_file("--json", o.json, json_text(j));
  }
  // Nothing judged is no pass: with every mutant without effect, the selection showed none.
  if (n == 0 && written.ok())
    return LTT_USAGE("no mutant changed an output of the selected cases, so none was judged: select the data they show on "
                     "(above), e.g. --dist realistic,adversarial and more --tokens");
  return exit_after_reports(missed > 0, written);
}

}  // namespace ltt
