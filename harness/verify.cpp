// ltt verify.
#include "verify.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include "casefile.hpp"
#include "reference.hpp"
#include "report.hpp"

namespace ltt {

namespace fs = std::filesystem;

namespace {

struct RankOutput {
  MatD values;
};

// tier -> rank -> output, from the outputs file.
Result<std::map<int, std::map<int, MatD>>> outputs_of(const SafeTensors& out, const LoadedCase& c,
                                                      const VerifyOptions& o, const std::string& file) {
  const Problem& p = c.in.p;
  std::map<int, std::map<int, MatD>> res;
  for (const auto& [n, t] : out.tensors) {
    int tier = -1, rank = -1;
    if (n == "output") {
      if (o.tier) tier = *o.tier;
      else if (c.tiers.size() == 1) tier = c.tiers[0];
      else return LTT_USAGE(file, ": tensor 'output' does not say which tier made it and the case covers several: give --tier");
      rank = 0;
    } else if (std::sscanf(n.c_str(), "output.tier%d.rank%d", &tier, &rank) != 2 || n != cat("output.tier", tier, ".rank", rank)) {
      continue;
    }
    if (tier < 0 || tier >= kNumTiers) return LTT_USAGE(file, ": tensor '", n, "': tier ", tier, " does not exist");
    if (rank < 0 || rank >= p.T) return LTT_USAGE(file, ": tensor '", n, "': rank ", rank, " is outside 0..", p.T - 1, " (the case's tp)");
    if (o.tier && tier != *o.tier) continue;
    if (t.dtype == StDtype::F64) return LTT_USAGE(file, ": tensor '", n, "' is F64: outputs are BF16 or F32");
    auto v = out.get_as_double(n, p.M, p.H);
    if (!v.ok()) return v.error();
    res[tier][rank] = std::move(*v);
  }
  if (res.empty())
    return LTT_USAGE(file, ": no output to verify: expected a tensor 'output' or 'output.tier{k}.rank{r}' of shape [", p.M,
                     ", ", p.H, "]", o.tier ? cat(" for tier ", *o.tier) : std::string());
  return res;
}

// The first element where two ranks' outputs differ (NaN equals NaN), or -1.
long first_difference(const MatD& a, const MatD& b) {
  for (Eigen::Index e = 0; e < a.size(); ++e) {
    const double x = a.data()[e], y = b.data()[e];
    if (!(x == y || (std::isnan(x) && std::isnan(y)))) return static_cast<long>(e);
  }
  return -1;
}

}  // namespace

Result<int> run_verify(const VerifyOptions& o) {
  const double t0 = now_seconds();
  std::vector<std::pair<std::string, std::string>> pairs;
  if (fs::is_directory(o.case_path)) {
    if (!fs::is_directory(o.output_path))
      return LTT_USAGE("--case ", o.case_path, " is a directory, so --output must be one too (outputs under the cases' file names)");
    for (const auto& d : fs::directory_iterator(o.case_path))
      if (d.path().extension() == ".safetensors") {
        const fs::path out = fs::path(o.output_path) / d.path().filename();
        if (!fs::exists(out)) return LTT_USAGE("no output for case ", d.path().string(), ": expected ", out.string());
        pairs.emplace_back(d.path().string(), out.string());
      }
    std::sort(pairs.begin(), pairs.end());
    if (pairs.empty()) return LTT_USAGE("--case ", o.case_path, ": no .safetensors case file in the directory");
  } else {
    pairs.emplace_back(o.case_path, o.output_path);
  }
  CheckOptions ro = o.report;
  ro.backend = "outputs from files";
  Report report(ro, 1, "ltt verify");
  bool header = false;  // printed once the first case has loaded
  size_t failed = 0;
  for (const auto& [case_file, out_file] : pairs) {
    auto cs = read_safetensors(case_file);
    if (!cs.ok()) return cs.error();
    auto c = load_case(*cs, case_file);
    if (!c.ok()) return c.error();
    auto os = read_safetensors(out_file);
    if (!os.ok()) return os.error();
    auto outs = outputs_of(*os, *c, o, out_file);
    if (!outs.ok()) return outs.error();
    Reference ref(c->in);
    for (const auto& [tier, ranks] : *outs) {
      const double a = now_seconds();
      const Contract contract = c->contract.for_tier(tier);
      if (Status s = validate_for_tier(c->in.p, tier); !s.ok()) return LTT_USAGE(case_file, ": ", s.error().message);
      MatrixB want;
      if (c->expected.count(tier)) want = c->expected.at(tier);
      else {
        auto y = ref.emulated(tier, contract);
        if (!y.ok()) return y.error();
        want = (*y)[0];
      }
      CaseResult res;
      res.tier = tier;
      res.p = c->in.p;
      res.contract = contract;
      const auto& first = *ranks.begin();
      for (const auto& [r, y] : ranks)
        if (res.bad_rank < 0) {
          const long e = first_difference(y, first.second);
          if (e >= 0) {
            res.bad_rank = r;
            res.bad_rank_elem = e;
          }
        }
      const Interval adm = ref.admissible(tier, contract);
      evaluate(first.second, want, ref.truth(), ref.bound(tier, Mode::emulated, contract), adm, ro, res);
      std::optional<MatrixB> rounded_twice;
      diagnose_product_rounded(ref, tier, contract, first.second, adm, res, rounded_twice);
      if (res.bad_rank >= 0) heat_rank_diff(res, first.second, ranks.at(res.bad_rank));
      res.seconds = now_seconds() - a;
      if (!res.ok) {
        ++failed;
        res.repro = cat(self_path(), " verify --case ", case_file, " --output ", out_file, " --tier ", tier,
                        ro.ulp_max >= 0 ? cat(" --ulp-max ", ro.ulp_max) : std::string(),
                        ro.ulp_frac >= 0 ? cat(" --ulp-frac ", ro.ulp_frac) : std::string());
      }
      if (!header) report.header();
      header = true;
      report.add(res);
    }
  }
  LTT_TRY(report.finish(now_seconds() - t0));
  return failed == 0 ? 0 : 1;
}

}  // namespace ltt
