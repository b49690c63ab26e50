// ltt verify.
#include "verify.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <span>

#include "casefile.hpp"
#include "outfile.hpp"
#include "reference.hpp"
#include "report.hpp"

namespace ltt {

namespace fs = std::filesystem;

namespace {

// tier -> rank -> output, from the outputs file, and what the file holds
// that is not checked (other tiers than --tier's). Names that start with
// "output" must be one of the two forms; one (tier, rank) given twice is
// refused, never resolved by order.
struct Outputs {
  std::map<int, std::map<int, MatD>> by_tier;
  std::vector<std::string> skipped;  // tensors of tiers --tier left out
  std::vector<std::string> unread;   // tensors that are neither outputs nor a case file's (a misspelt output?)
};

// A tensor a case file of T ranks can hold, spelt as ltt writes it (a
// failure dump verifies as it is: its inputs and expected outputs are not
// outputs). Any other name (routed.rank00, routed.rank{T}, expected.tier9)
// is named under the row as not read.
bool case_tensor(const std::string& n, int T) {
  auto indexed = [&](const char* stem, int count) {
    int k = -1;
    return std::sscanf(n.c_str(), (std::string(stem) + "%d").c_str(), &k) == 1 && k >= 0 && k < count && n == cat(stem, k);
  };
  return n == "norm_weight" || n == "up_weight" || n == "expected_exact" || indexed("routed.rank", T) ||
         indexed("shared.rank", T) || indexed("expected.tier", kNumTiers);
}

Result<Outputs> outputs_of(const SafeTensors& out, const LoadedCase& c, const VerifyOptions& o, const std::string& file) {
  const Problem& p = c.in.p;
  Outputs res;
  std::map<std::pair<int, int>, std::string> named;  // (tier, rank) -> the tensor that gave it
  std::vector<std::string> others;                    // tensors not named as outputs
  // A tensor of a dtype ltt does not read: an output so spelt is refused with
  // how to convert it; any other is named under the row as not read.
  for (const auto& [n, dtype] : out.unread) {
    if (n.rfind("output", 0) == 0)
      return LTT_USAGE(file, ": tensor '", n, "' is ", dtype, ": outputs to verify are BF16 or F32 (convert, e.g. "
                       ".to(torch.bfloat16) or .float())");
    others.push_back(n);
    res.unread.push_back(cat(n, " (", dtype, ")"));
  }
  for (const auto& [n, t] : out.tensors) {
    int tier = -1, rank = -1;
    if (n == "output") {
      if (o.tier) tier = *o.tier;
      else if (c.tiers.size() == 1) tier = c.tiers[0];
      else return LTT_USAGE(file, ": tensor 'output' does not say which tier made it and the case covers several: give --tier");
      rank = 0;
    } else if (std::sscanf(n.c_str(), "output.tier%d.rank%d", &tier, &rank) != 2 || n != cat("output.tier", tier, ".rank", rank)) {
      if (n.rfind("output", 0) == 0)
        return LTT_USAGE(file, ": tensor '", n, "' is neither 'output' nor 'output.tier{k}.rank{r}': rename it");
      others.push_back(n);
      if (!case_tensor(n, p.T)) res.unread.push_back(n);
      continue;  // inputs and expected tensors (a failure dump verifies as it is)
    }
    if (tier < 0 || tier >= kNumTiers) return LTT_USAGE(file, ": tensor '", n, "': tier ", tier, " does not exist");
    if (rank < 0 || rank >= p.T) return LTT_USAGE(file, ": tensor '", n, "': rank ", rank, " is outside 0..", p.T - 1, " (the case's tp)");
    if (o.tier && tier != *o.tier) {
      res.skipped.push_back(n);
      continue;
    }
    if (auto [it, fresh] = named.emplace(std::pair{tier, rank}, n); !fresh)
      return LTT_USAGE(file, ": tensors '", it->second, "' and '", n, "' are both tier ", tier, " rank ", rank,
                       "'s output: keep one");
    if (t.dtype == StDtype::F64) return LTT_USAGE(file, ": tensor '", n, "' is F64: outputs are BF16 or F32");
    auto v = out.get_as_double(n, p.M, p.H);
    if (!v.ok()) return v.error();
    res.by_tier[tier][rank] = std::move(*v);
  }
  if (res.by_tier.empty()) {
    std::vector<std::string> held = res.skipped;
    held.insert(held.end(), others.begin(), others.end());
    const size_t shown = std::min<size_t>(held.size(), 8);
    return LTT_USAGE(file, ": no output to verify: expected a tensor 'output' or 'output.tier{k}.rank{r}' of shape [", p.M,
                     ", ", p.H, "]", o.tier ? cat(" for tier ", *o.tier) : std::string(),
                     held.empty() ? std::string(" (it holds no tensor)")
                                  : cat(" (it holds ", join(std::span(held).first(shown)),
                                        held.size() > shown ? cat(" and ", held.size() - shown, " more") : std::string(), ")"));
  }
  return res;
}

// A case file and its outputs, read and checked against each other (every
// output's tier must apply to the case's shape).
struct Loaded {
  LoadedCase c;
  Outputs outs;
};

Result<Loaded> load_pair(const std::string& case_file, const std::string& out_file, const VerifyOptions& o) {
  auto cs = read_safetensors(case_file);
  if (!cs.ok()) return cs.error();
  if (!cs->metadata.count("tp") && !cs->tensors.count("routed.rank0"))
    return LTT_USAGE("--case ", case_file, " holds no case (no 'tp' in its metadata, no 'routed.rank0'): a case file is "
                     "what ltt golden writes; if it is your outputs, give it as --output");
  auto c = load_case(*cs, case_file);
  if (!c.ok()) return c.error();
  auto os = read_safetensors(out_file, StRole::outputs);
  if (!os.ok()) return os.error();
  auto outs = outputs_of(*os, *c, o, out_file);
  if (!outs.ok()) return outs.error();
  for (const auto& [tier, ranks] : outs->by_tier)
    if (Status s = validate_for_tier(c->in.p, tier); !s.ok()) return LTT_USAGE(case_file, ": ", s.error().message);
  return Loaded{std::move(*c), std::move(*outs)};
}

// The first element where two ranks' outputs differ in their bits as bf16,
// or -1: +0 and -0 differ, and so do two NaNs of different payloads. Y is
// bf16 (the tier's last rounding point): an F32 output is compared, as it is
// judged, rounded to bf16, so ranks whose F32 values differ below bf16's
// precision hold the same Y; a bf16 output's widened values round back to
// its own bits.
long first_difference(const MatD& a, const MatD& b) {
  for (Eigen::Index e = 0; e < a.size(); ++e)
    if (!(to_bf16(a.data()[e]) == to_bf16(b.data()[e]))) return static_cast<long>(e);
  return -1;
}

// The .safetensors file names in a directory, sorted; a directory that
// cannot be listed is an error naming the flag.
Result<std::vector<std::string>> safetensors_in(const std::string& flag, const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".safetensors") {
      std::error_code dec;
      if (it->is_directory(dec))
        return LTT_USAGE(flag, " ", dir, ": ", it->path().filename().string(),
                         " is a directory named like a case file: rename it or move it out");
      names.push_back(it->path().filename().string());
    }
  if (ec) return LTT_USAGE(flag, " ", dir, ": cannot list the directory: ", ec.message());
  std::sort(names.begin(), names.end());
  return names;
}

// Which of a case's inputs differ from what its metadata's seed and
// distribution generate (a diagnosis for a case whose expected output does not
// fit its inputs): " (inputs unlike those seed 0 realistic generates:
// routed.rank0 first at [4, 3])", or "" when none does.
std::string edited_inputs(const Inputs& in) {
  const Inputs gen = generate_inputs(in.p);
  std::vector<std::string> named;
  auto look = [&](const std::string& name, const MatrixB& a, const MatrixB& b) {
    const long e = a.rows == b.rows && a.cols == b.cols ? first_bitwise_difference(a, b) : 0;
    if (e >= 0) named.push_back(cat(name, " first at [", e / a.cols, ", ", e % a.cols, "]"));
  };
  for (int r = 0; r < in.p.T; ++r) {
    look(cat("routed.rank", r), in.R[static_cast<size_t>(r)], gen.R[static_cast<size_t>(r)]);
    look(cat("shared.rank", r), in.S[static_cast<size_t>(r)], gen.S[static_cast<size_t>(r)]);
  }
  look("norm_weight", in.g, gen.g);
  look("up_weight", in.W, gen.W);
  if (named.empty()) return {};
  const size_t shown = std::min<size_t>(named.size(), 4);
  return cat(" (inputs unlike those seed ", in.p.seed, " ", name(in.p.dist), " generates: ",
             join(std::span(named).first(shown), "; "), named.size() > shown ? cat("; ", named.size() - shown, " more") : "",
             ")");
}

}  // namespace

Result<int> run_verify(const VerifyOptions& o) {
  const double t0 = now_seconds();
  CheckOptions ro = o.report;
  ro.backend = "outputs from files";
  Report report(ro, 1, "ltt verify");
  // Before anything can refuse the run: a run refused (exit 2) leaves "did
  // not finish", never an earlier run's passing report.
  LTT_TRY(report.claim());
  // Looked at by stat(2): a loop of links or a name too long is said, not thrown.
  auto case_kind = path_kind("--case", o.case_path);
  if (!case_kind.ok()) return case_kind.error();
  if (*case_kind == PathKind::none) return LTT_USAGE("--case ", o.case_path, ": no such file or directory");
  auto output_kind = path_kind("--output", o.output_path);
  if (!output_kind.ok()) return output_kind.error();
  if (*output_kind == PathKind::none) return LTT_USAGE("--output ", o.output_path, ": no such file or directory");
  std::vector<std::pair<std::string, std::string>> pairs;
  std::vector<std::string> unmatched;  // output files with no case of their name
  const bool dir_mode = *case_kind == PathKind::directory;
  if (dir_mode) {
    if (*output_kind != PathKind::directory)
      return LTT_USAGE("--case ", o.case_path, " is a directory, so --output must be one too (outputs under the cases' file names)");
    auto cases = safetensors_in("--case", o.case_path);
    if (!cases.ok()) return cases.error();
    // An output directory that can be entered but not listed still serves its cases by name.
    auto outs = safetensors_in("--output", o.output_path);
    for (const auto& name : *cases) {
      const fs::path out = fs::path(o.output_path) / name;
      if (const auto to = dangling_link(out.string()))
        return LTT_USAGE("--output ", out.string(), " is a link to ", *to, ", which does not exist: point it at the case's output or remove it");
      auto out_kind = path_kind("--output", out.string());
      if (!out_kind.ok()) return out_kind.error();
      if (*out_kind == PathKind::none)
        return LTT_USAGE("no output for case ", (fs::path(o.case_path) / name).string(), ": expected ", out.string(),
                         " (every case of the directory is verified; to verify some, give --case and --output a file each, "
                         "or a directory holding only those cases)");
      // A file of a directory is read as a file: a FIFO there (which a
      // read would wait on for ever) or a device is refused by name.
      for (const auto& [flag, f] : {std::pair{"--case", fs::path(o.case_path) / name}, std::pair{"--output", out}})
        if (auto s = regular_file_to_read(f.string(), false); !s.ok())
          return LTT_USAGE(flag, " ", s.error().message, " (in a directory of cases, every file is read whole)");
      pairs.emplace_back((fs::path(o.case_path) / name).string(), out.string());
    }
    if (pairs.empty()) return LTT_USAGE("--case ", o.case_path, ": no .safetensors case file in the directory");
    if (outs.ok())
      for (const auto& name : *outs)
        if (!std::binary_search(cases->begin(), cases->end(), name)) unmatched.push_back(name);
  } else {
    if (*output_kind == PathKind::directory)
      return LTT_USAGE("--output ", o.output_path, " is a directory but --case ", o.case_path, " is one file: give the outputs file");
    pairs.emplace_back(o.case_path, o.output_path);
  }
  // Every pair read and checked (names, dtypes, shapes, tiers) before the
  // first line: a malformed file late in a directory never cuts a run (and
  // its reports) short. Whether a case's expected output lies in its own
  // sets needs the sets: that is checked as each case runs.
  // One pair is read once, here, and kept for the run.
  std::optional<Loaded> only;
  size_t rows = 0;  // a row per tier of each pair's outputs
  for (const auto& [case_file, out_file] : pairs) {
    auto l = load_pair(case_file, out_file, o);
    if (!l.ok()) return l.error();
    rows += l->outs.by_tier.size();
    if (pairs.size() == 1) only = std::move(*l);
  }
  report.planned(rows);
  if (!unmatched.empty()) {
    report.note(cat("not checked: ", unmatched.size(), " output file(s) in ", o.output_path, " with no case of their name in ",
                    o.case_path, ": ", join(unmatched)));
  }
  bool header = false;  // printed with the first row: a run that stops before it prints no table
  auto start_table = [&] {
    if (!header) report.header();
    header = true;
  };
  size_t failed = 0;
  for (const auto& [case_file, out_file] : pairs) {
    auto l = only ? Result<Loaded>(std::move(*only)) : load_pair(case_file, out_file, o);
    if (!l.ok()) return l.error();
    const LoadedCase& c = l->c;
    Reference ref(c.in);
    // The verdict is the tensors' (the sets come from the inputs, eps and
    // order); the dist and seed shown are the metadata's labels, so inputs
    // that those labels do not generate are said under every row.
    const std::string unlike = edited_inputs(c.in);
    // Tiers the case file covers that the outputs leave out are said, once
    // per case: a pass covers the tiers given, not the file.
    std::vector<int> left;
    for (const auto& [tier, m] : c.expected)
      if (!l->outs.by_tier.count(tier) && (!o.tier || *o.tier == tier)) left.push_back(tier);
    if (!left.empty())
      report.note(cat(fs::path(case_file).filename().string(), ": no output given for tier", left.size() > 1 ? "s " : " ",
                      join(left, ","), " of the ", c.expected.size(), " the case file covers (not checked)"));
    bool truth_checked = false;  // the file's expected_exact, once a case, after its expected outputs (whose message names edited inputs)
    for (const auto& [tier, ranks] : l->outs.by_tier) {
      const double a = now_seconds();
      const Contract contract = c.contract.for_tier(tier);
      const Interval adm = ref.admissible(tier, contract);
      // The file's expected output is one correct member's: it must lie in
      // the sets its inputs and metadata give. An edited eps, input or order
      // would otherwise judge by one reference and report against another.
      MatrixB want;
      if (c.expected.count(tier)) {
        want = c.expected.at(tier);
        long n = 0, first = -1;
        for (Eigen::Index e = 0; e < adm.lo.size(); ++e)
          if (!admits(adm.lo.data()[e], adm.hi.data()[e], to_double(want.v[static_cast<size_t>(e)]))) {
            if (first < 0) first = static_cast<long>(e);
            ++n;
          }
        if (n)
          return LTT_USAGE(case_file, ": tensor 'expected.tier", tier, "' is not what the file's inputs and metadata give: ",
                           n, " of ", want.v.size(), " elements lie outside their admissible sets, the first at [",
                           first / c.in.p.H, ", ", first % c.in.p.H, "] (", to_double(want.v[static_cast<size_t>(first)]),
                           " in the file, the set [", adm.lo.data()[first], ", ", adm.hi.data()[first],
                           "]): the file was edited or made by another ltt", unlike,
                           "; make it again with ltt golden (ltt regress DIR checks a golden set)");
        // A ring's sets are wider than one-shot's and can take in a one-shot
        // case's expected output, so a one-shot case whose algo label was
        // edited to ring can pass the check above, and would judge outputs by
        // sets wider than its data were made for.
        // Its expected output gives it away: bitwise ltt's one-shot
        // reference, not its ring one (the two differ wherever a hop rounds).
        if (judged_algo(contract.algo, c.in.p.T) == Algo::ring) {
          Contract one_shot = contract;
          one_shot.algo = Algo::one_shot;
          auto y1 = ref.emulated(tier, one_shot);
          if (!y1.ok()) return y1.error();
          if (first_bitwise_difference(want, (*y1)[0]) < 0) {
            auto yr = ref.emulated(tier, contract);
            if (!yr.ok()) return yr.error();
            if (first_bitwise_difference(want, (*yr)[0]) >= 0)
              return LTT_USAGE(case_file, ": its metadata say algo ring, but tensor 'expected.tier", tier,
                               "' is bitwise ltt's one-shot reference, not its ring one: the file was made one-shot and its "
                               "label edited (a ring's wider sets would judge outputs more loosely than the file's data were "
                               "made for); set algo back to one-shot, or make the case again with ltt golden --algo ring");
          }
        }
      } else {  // an output of a tier the case file does not cover: judged against a fresh emulated reference
        auto y = ref.emulated(tier, contract);
        if (!y.ok()) return y.error();
        want = (*y)[0];
      }
      // The file's float64 truth must be its inputs' (a loose bound, 1e-9 of
      // the largest |Y|: a truth computed by another ltt in another order
      // passes, an edited element does not). The verdict uses the truth
      // computed here; a file whose own disagrees was edited.
      if (!truth_checked) {
        truth_checked = true;
        const MatD& y = ref.truth().Y;
        const MatD& x = *c.expected_exact;  // load_case requires it
        // Adversarial inputs overflow to inf and nan: those must match as such.
        double big = 1e-300;
        for (Eigen::Index e = 0; e < y.size(); ++e)
          if (std::isfinite(y.data()[e])) big = std::max(big, std::fabs(y.data()[e]));
        const double tol = 1e-9 * big;
        for (Eigen::Index e = 0; e < y.size(); ++e)
          if (const double xe = x.data()[e], ye = y.data()[e];
              !(std::isnan(xe) && std::isnan(ye)) && !(xe == ye) && !(std::fabs(xe - ye) <= tol))
            return LTT_USAGE(case_file, ": tensor 'expected_exact' is not the float64 truth of the file's inputs: element [",
                             e / c.in.p.H, ", ", e % c.in.p.H, "] is ", fmt("%.17g", x.data()[e]), ", the truth ", fmt("%.17g", y.data()[e]),
                             ": the file was edited or made by another tool", unlike, "; make it again with ltt golden");
      }
      CaseResult res;
      res.tier = tier;
      res.p = c.in.p;
      res.contract = contract;
      res.reran = false;
      res.dump = case_file;  // the JSON's case_file, and the FAIL lines' "case file:"
      const auto& first = *ranks.begin();
      res.base_rank = first.first;
      for (const auto& [r, yr] : ranks)
        if (res.bad_rank < 0) {
          const long e = first_difference(yr, first.second);
          if (e >= 0) {
            res.bad_rank = r;
            res.bad_rank_elem = e;
          }
        }
      std::string given;
      // One rank's output (rank 0) is the usual file; several, but not all, are said.
      if (static_cast<int>(ranks.size()) < c.in.p.T && (ranks.size() > 1 || ranks.begin()->first != 0)) {
        given = cat(ranks.size(), " of ", c.in.p.T, " ranks' outputs given (rank", ranks.size() > 1 ? "s " : " ",
                    join(ranks, ",", [](const auto& ry) { return ry.first; }), ")");
      }
      if (!l->outs.skipped.empty()) {
        given += cat(given.empty() ? "" : "; ", "left out by --tier ", tier, ": ", join(l->outs.skipped));
      }
      if (!l->outs.unread.empty()) {
        const size_t shown = std::min<size_t>(l->outs.unread.size(), 4);
        given += cat(given.empty() ? "" : "; ", "not read (neither an output nor a case file's tensor): ",
                     join(std::span(l->outs.unread).first(shown)),
                     l->outs.unread.size() > shown ? cat(" and ", l->outs.unread.size() - shown, " more") : std::string());
      }
      if (!unlike.empty())
        given += cat(given.empty() ? "" : "; ", unlike.substr(2, unlike.size() - 3),
                     ": the dist and seed shown are the case file's labels, not its data's");
      // A directory's rows name their case: shape, seed and norm are not columns.
      if (dir_mode) given = cat("case ", fs::path(case_file).filename().string(), given.empty() ? "" : "; ", given);
      res.outputs_note = given;
      evaluate(first.second, want, ref.truth(), ref.bound(tier, Mode::emulated, contract), adm, ro, res);
      std::optional<MatrixB> rounded_twice;
      diagnose_product_rounded(ref, tier, contract, first.second, adm, res, rounded_twice);
      if (res.bad_rank >= 0) heat_rank_diff(res, first.second, ranks.at(res.bad_rank));
      res.seconds = now_seconds() - a;
      if (!res.ok) {
        ++failed;
        res.repro = cat(shell_word(self_path()), " verify --case ", shell_word(case_file), " --output ", shell_word(out_file), " --tier ", tier,
                        ro.ulp_max >= 0 ? cat(" --ulp-max ", shortest(ro.ulp_max)) : std::string(),
                        ro.ulp_frac >= 0 ? cat(" --ulp-frac ", shortest(ro.ulp_frac)) : std::string());
      }
      start_table();
      report.add(res);
    }
  }
  return exit_after_reports(failed > 0, report.finish(now_seconds() - t0));
}

}  // namespace ltt
