// Report: table, JSON and Markdown from the same CaseResults.
#include "report.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "html.hpp"
#include "jsononce.hpp"
#include "outfile.hpp"
#include "inputs.hpp"
#include "version.hpp"

namespace ltt {

std::vector<std::string> CaseResult::failed_checks() const {
  std::vector<std::string> f;
  if (!stopped.empty()) f.push_back("stopped");
  if (outside) f.push_back("admissible");
  if (rows_outside) f.push_back("admissible-row");
  if (bad_rank >= 0) f.push_back("ranks");
  if (!deterministic) f.push_back("rerun");
  if (poisoned) f.push_back("unwritten");
  if (all_zero) f.push_back("all-zero");
  if (strict_fail) f.push_back("emulated-ulp");
  if (fake_must_match && fake_ranks_differ > 0) f.push_back("fake-ranks");
  return f;
}

std::string CaseResult::steps_shown() const {
  return !stopped.empty() ? "-" : std::isinf(steps_max) ? "inf" : fmt("%.0f", steps_max);
}

std::string CaseResult::ambiguous_shown() const {
  return !stopped.empty() ? "-" : fmt("%.2f", 100 * static_cast<double>(ambiguous) / static_cast<double>(vs_truth.n ? vs_truth.n : 1));
}

std::string CaseResult::max_ratio_shown() const { return !stopped.empty() ? "-" : max_ratio_text(vs_truth); }

bool CaseResult::farthest_unlisted() const {
  if (!farthest || first.empty() || outside <= first.size() || first_outside.size() < first.size()) return false;
  const Outside& last = first_outside[first.size() - 1];
  return farthest->row * p.H + farthest->col > last.row * p.H + last.col;
}

std::string CaseResult::gate_shown() const { return !stopped.empty() ? "-" : std::to_string(gate_fail); }

std::string CaseResult::ranks_shown() const { return !stopped.empty() ? "-" : bad_rank < 0 ? "same" : cat("rank ", bad_rank); }

std::string CaseResult::rerun_shown() const { return !stopped.empty() || !reran ? "-" : deterministic ? "same" : "DIFF"; }

bool CaseResult::missing_rounding_points() const {
  return outside >= 16 && outside_at_rounded_truth * 10 >= outside * 9;
}

std::string CaseResult::missing_rounding_note() const {
  if (!missing_rounding_points()) return {};
  return cat(outside_at_rounded_truth, " of these ", outside, " elements hold the float64 truth rounded once: the output looks "
             "computed without the contract's intermediate bf16 roundings (Z, N, the sum of S, the GEMM's output kept in fp32). "
             "More accurate, but no implementation with bf16 collectives and these rounding points gives it; torch.compile does "
             "so when Inductor drops an fp32 -> bf16 -> fp32 cast pair (README, 'PyTorch on the GPU machine')");
}

bool CaseResult::product_rounded_first() const {
  return outside >= 16 && outside_at_product_rounded >= 0 &&
         static_cast<size_t>(outside_at_product_rounded) * 10 >= outside * 9;
}

std::string CaseResult::product_rounded_note() const {
  if (!product_rounded_first()) return {};
  return cat(outside_at_product_rounded, " of these ", outside, " elements hold the emulated reference with the up-projection's "
             "output rounded to bf16 before its addend was added: two roundings where the contract has one. cuBLAS(Lt) "
             "computes that in place (C == D) with its algorithms without split-K (H200, CUDA 13.0), and so does torch.addmm "
             "with a bf16 matrix addend, which calls it in place, at the shapes where cuBLAS picks such an algorithm; out of "
             "place, or with the addend in the fp32 epilogue, it rounds once (README, 'cuBLASLt's own algorithms')");
}

void diagnose_product_rounded(Reference& ref, int tier, const Contract& c, const MatD& y, const Interval& adm, CaseResult& r,
                              std::optional<MatrixB>& twice) {
  if (r.ok || r.outside < 16 || tier == 1 || !r.stopped.empty()) return;
  if (!twice) {
    Member m;
    m.mut = Mutant::gemm_round_then_add;
    auto alt = ref.emulated(tier, c, &m);
    if (!alt.ok()) return;  // the same tier and contract just ran: not expected; the count stays -1
    twice = std::move((*alt)[0]);
  }
  const MatrixB& a = *twice;
  long n = 0;
  for (Eigen::Index e = 0; e < y.size(); ++e) {
    const double v = to_double(to_bf16(y.data()[e]));  // judged at the last rounding point, as evaluate()
    if (steps_outside(adm.lo.data()[e], adm.hi.data()[e], v) > 0 && v == to_double(a.v[static_cast<size_t>(e)])) ++n;
  }
  r.outside_at_product_rounded = n;
}

std::string CaseResult::rows_moved_note() const {
  if (rows_moved == 0) return {};
  const std::string kinds = join(rows_moved_kinds, ", ", [](const auto& kn) { return cat(kn.first, " ", kn.second); });
  // What a correct member does, said only where every moved row is of a kind it explains.
  std::string why;
  const std::string probe = name(RowKind::order_probe), subnormal = name(RowKind::subnormal);
  const bool explained = !rows_moved_kinds.empty() && std::all_of(rows_moved_kinds.begin(), rows_moved_kinds.end(), [&](const auto& kn) {
    return kn.first == probe || kn.first == subnormal;
  });
  if (explained && rows_moved_kinds.count(probe))
    why += "; an order probe (2^24, 1 and -2^24 on ranks 0-2) sums to 0 or 1 by the order of the cross-rank sum, "
           "which the contract leaves free, and that moves its whole row; each element's set spans the probe's correct rows, "
           "and the row check judges the row whole";
  if (explained && rows_moved_kinds.count(subnormal)) why += "; a subnormal row moves whole with flush-to-zero on or off";
  return cat(rows_moved, " of ", p.M, " rows differ from the emulated reference in most elements",
             kinds.empty() ? std::string() : cat(" (", kinds, ")"), why);
}

namespace {

std::string set_text(double lo, double hi) {
  if (std::isnan(lo)) return "{NaN}";
  if (lo == hi) return cat("{", lo, "}");
  return cat("[", lo, " .. ", hi, "] (", set_size(lo, hi), " values)");
}

// The row checks (admissible.hpp, RowBound; up to two a row): a row with a
// non-finite element where a check's weight is not 0 is left to the element
// check, whose sets there are finite. A row counts once: judged whole if any
// of its checks ran, outside if any of them failed.
void judge_rows(const MatD& y, const RowBounds& rows, CaseResult& r) {
  std::set<int> judged, outside;
  for (const RowBound& b : rows) {
    const Eigen::VectorXd& w = *b.w;
    double s = 0, mag = 0;
    bool finite = true;
    for (Eigen::Index j = 0; j < y.cols(); ++j) {
      if (w(j) == 0) continue;
      const double v = y(b.row, j);
      finite = finite && std::isfinite(v);
      s += w(j) * v;
      mag += std::fabs(w(j) * v);
    }
    if (!finite || !std::isfinite(b.lo) || !std::isfinite(b.hi)) continue;
    judged.insert(b.row);
    const double slack = 2 * gamma(static_cast<double>(y.cols()), std::ldexp(1.0, -53)) * mag;  // float64's own rounding of the sum
    bool in = false;
    for (const auto& [lo, hi] : b.parts) in = in || (s >= lo - slack && s <= hi + slack);
    if (in) continue;
    std::string where = cat("[", fmt("%.6g", b.lo), ", ", fmt("%.6g", b.hi), "]");
    if (b.parts.size() > 1) {  // the parts either side of the sum
      const auto above = std::find_if(b.parts.begin(), b.parts.end(), [&](const auto& q) { return q.first > s; });
      where = cat("each of the ", b.parts.size(), " ranges in ", where, ", one per range of rstd (");
      if (above != b.parts.begin()) where += cat("the nearest below [", fmt("%.6g", std::prev(above)->first), ", ", fmt("%.6g", std::prev(above)->second), "]");
      if (above != b.parts.begin() && above != b.parts.end()) where += ", ";
      if (above != b.parts.end()) where += cat("the nearest above [", fmt("%.6g", above->first), ", ", fmt("%.6g", above->second), "]");
      where += ")";
    }
    if (outside.empty())
      r.row_outside_text = cat("row ", b.row, ": its weighted sum w . y = ", fmt("%.6g", s), " lies outside ", where,
                               ", where every correct member's lies (w is orthogonal to the up-projection of the ",
                               counted(b.free_cols, "column"), " where the row's Z is ambiguous, such as an order probe's",
                               b.rstd_free ? ", and to the row's own product, so that rstd cannot move it" : "",
                               ": the row is none of its correct rows, though each element may lie in its set; README 'Rows an order moves whole')");
    outside.insert(b.row);
  }
  r.rows_checked += judged.size();
  r.rows_outside += outside.size();
}

}  // namespace

void evaluate(const MatD& y0, const MatrixB& want, const Truth& truth, const MatD& bound, const Interval& adm,
              const CheckOptions& o, CaseResult& r) {
  if (!r.stopped.empty()) {  // no output to judge
    r.ok = false;
    return;
  }
  // Judged at the last rounding point: an F32 output is rounded to bf16 first.
  MatD y(y0.rows(), y0.cols());
  for (Eigen::Index e = 0; e < y.size(); ++e) y.data()[e] = to_double(to_bf16(y0.data()[e]));
  r.vs_truth = compare_to_truth(y, truth.Y, bound, Mode::emulated);
  const int H = static_cast<int>(y.cols());
  bool zero_admissible = y.size() > 0;  // every element's set bounded and holding 0: an all-zero output is right
  std::vector<int> row_differ(static_cast<size_t>(y.rows()), 0);
  for (Eigen::Index e = 0; e < y.size(); ++e) {
    const double a = y.data()[e], b = to_double(want.v[static_cast<size_t>(e)]);
    const double lo = adm.lo.data()[e], hi = adm.hi.data()[e];
    const double t = truth.Y.data()[e];
    const double steps = steps_outside(lo, hi, a);
    if (steps > 0) {
      ++r.outside;
      r.outside_at_rounded_truth += std::isfinite(t) && a == to_double(to_bf16(t)) ? 1 : 0;
      const CaseResult::Outside here{static_cast<int>(e / H), static_cast<int>(e % H), a, lo, hi, steps, t, b};
      if (!r.farthest || steps > r.steps_max) {
        r.farthest = here;
        r.farthest_text = cat("[", e / H, ", ", e % H, "] got ", a, ", admissible ", set_text(lo, hi), ": ",
                              std::isinf(steps) ? std::string("NaN/Inf class mismatch")
                                                : cat(steps, " bf16 steps outside, ", std::min(std::fabs(a - lo), std::fabs(a - hi)),
                                                      " from its nearer end"),
                              " (truth ", t, ", emulated reference ", b, ")");
      }
      r.steps_max = std::max(r.steps_max, steps);
      if (r.first_outside.size() < 20) r.first_outside.push_back(here);
      if (r.first.size() < 5)
        r.first.push_back(cat("[", e / H, ", ", e % H, "] got ", a, ", admissible ", set_text(lo, hi), ": ",
                              std::isinf(steps) ? std::string("NaN/Inf class mismatch") : cat(steps, " bf16 steps outside"),
                              " (truth ", t, ", emulated reference ", b, ")"));
    }
    zero_admissible = zero_admissible && !unbounded(lo, hi) && admits(lo, hi, 0.0);
    const double n = set_size(lo, hi);
    r.ambiguous += n > 1 ? 1 : 0;
    r.unbounded += n == 0 ? 1 : 0;
    // Diagnostics: ULPs from the emulated reference at the element's error scale, the production gate.
    double d;
    if (!std::isfinite(a) || !std::isfinite(b)) d = (std::isnan(a) && std::isnan(b)) || a == b ? 0 : 1e9;
    else d = ulp_distance(a, b, std::max({std::fabs(b), std::fabs(truth.NW.data()[e]), std::fabs(truth.S.data()[e])}));
    r.ulp_max = std::max(r.ulp_max, d);
    ++r.ulp_hist[d == 0 ? 0 : d <= 1 ? 1 : d <= 2 ? 2 : 3];
    row_differ[static_cast<size_t>(e / H)] += d > 0 ? 1 : 0;
    const bool gate_ok = std::isnan(t) ? std::isnan(a)
                         : (std::isinf(t) || std::isinf(a)) ? a == t || a == expected_value(t, Mode::emulated)
                                                           : std::fabs(a - t) <= 8e-2 + 3e-2 * std::fabs(t);
    r.gate_fail += gate_ok ? 0 : 1;
  }
  // An all-zero output fails (an unwritten output must not pass) unless 0 is
  // admissible everywhere: a case whose exact output rounds to zero.
  r.all_zero = (r.vs_truth.nonzero == 0 || r.vs_truth.n == 0) && !zero_admissible;
  if (adm.rows) judge_rows(y, *adm.rows, r);
  r.frac_differ = static_cast<double>(static_cast<size_t>(y.size()) - r.ulp_hist[0]) / static_cast<double>(y.size());
  for (size_t i = 0; i < row_differ.size(); ++i)
    if (2 * row_differ[i] > H) {
      ++r.rows_moved;
      if (r.p.dist == Dist::adversarial) ++r.rows_moved_kinds[name(row_kind(r.p.seed, static_cast<int>(i)))];
    }
  r.strict_fail = (o.ulp_max >= 0 && r.ulp_max > o.ulp_max) || (o.ulp_frac >= 0 && r.frac_differ > o.ulp_frac);
  r.ok = r.failed_checks().empty();
  if (!o.html.empty() && (!r.ok || o.html_all)) {
    CaseResult::Heat& h = r.heat;
    h.M = static_cast<int>(y.rows());
    h.H = H;
    h.shard = r.p.T > 0 ? H / r.p.T : H;
    h.rows = std::min(h.M, 128);
    h.cols = std::min(h.H, 512);
    h.err_bound.assign(static_cast<size_t>(h.rows) * h.cols, 0.0f);
    h.steps.assign(h.err_bound.size(), 0.0f);
    for (Eigen::Index e = 0; e < y.size(); ++e) {
      const int i = static_cast<int>(e / H), j = static_cast<int>(e % H);
      const size_t c = static_cast<size_t>(static_cast<long>(i) * h.rows / h.M) * h.cols + static_cast<size_t>(static_cast<long>(j) * h.cols / h.H);
      const double a = y.data()[e], t = truth.Y.data()[e], b = bound.data()[e];
      // As compare_to_truth judges it: where the truth rounds to no finite bf16
      // (a finite truth past bf16's range overflows to Inf) or the output is not
      // finite, the classes are compared, not the distance.
      const double x = expected_value(t, Mode::emulated);
      const double eb = std::isfinite(a) && std::isfinite(x)
                            ? (b > 0 ? std::fabs(a - t) / b : (a == t ? 0.0 : 1e9))
                            : ((std::isnan(a) && std::isnan(x)) || a == x ? 0.0 : 1e9);
      const double st = steps_outside(adm.lo.data()[e], adm.hi.data()[e], a);
      h.err_bound[c] = std::max(h.err_bound[c], static_cast<float>(std::min(eb, 1e9)));
      h.steps[c] = std::max(h.steps[c], static_cast<float>(std::isinf(st) ? 1e9 : st));
    }
  }
}

void heat_rank_diff(CaseResult& r, const MatD& y, const MatD& other) {
  CaseResult::Heat& h = r.heat;
  if (h.rows == 0 || other.size() != y.size()) return;
  h.rank_diff.assign(static_cast<size_t>(h.rows) * h.cols, 0.0f);
  const Eigen::Index H = y.cols();
  for (Eigen::Index e = 0; e < y.size(); ++e) {
    // As the ranks check compares them: bf16 bits (+0 and -0 differ; an F32 output rounded first).
    if (to_bf16(y.data()[e]) == to_bf16(other.data()[e])) continue;
    const size_t c = static_cast<size_t>((e / H) * h.rows / h.M) * static_cast<size_t>(h.cols) + static_cast<size_t>((e % H) * h.cols / h.H);
    h.rank_diff[c] = 1.0f;
  }
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
          {"ltt_version", kVersion}};
}

// One case of a JSON report (README, "The JSON report").
static nlohmann::json case_json(const CaseResult& r) {
  const bool no_output = !r.stopped.empty();  // no output: no rank, rerun, gate or error figure
  const ErrorStats& s = r.vs_truth;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const bool mismatch = s.nonfinite_mismatch > 0;
  // A figure of the output: null when there is none (stopped), "inf" where infinite (JSON has no Inf).
  auto figure = [no_output](double x) {
    return no_output ? nlohmann::json(nullptr) : std::isinf(x) ? nlohmann::json("inf") : nlohmann::json(x);
  };
  nlohmann::json j = {{"tier", r.tier},
                      {"tp", r.p.T},
                      {"tokens", r.p.M},
                      {"hidden", r.p.H},
                      {"latent", r.p.L},
                      {"dist", name(r.p.dist)},
                      {"seed", r.p.seed},
                      {"algo", name(r.contract.algo)},
                      {"rmsnorm_order", name(r.contract.norm)},
                      {"vs_truth",
                       // "inf" where an element's NaN/Inf class differs from the truth's (no finite error), as the table's err/bnd
                       {{"max_abs", figure(mismatch ? kInf : s.max_abs)},
                        {"max_rel", figure(mismatch ? kInf : s.max_rel)},
                        {"normwise_rel", mismatch ? figure(kInf) : std::isnan(s.normwise) ? nlohmann::json(nullptr) : figure(s.normwise)},
                        {"normwise_note", s.normwise_note},
                        {"max_err_over_bound", figure(mismatch ? kInf : s.max_ratio)},
                        {"p999_err_over_bound", figure(s.p999_ratio)},
                        {"over_bound", s.over},
                        {"nonfinite_expected", s.nonfinite_expected},
                        {"nonfinite_mismatch", s.nonfinite_mismatch}}},
                      {"admissible",
                       {{"outside", r.outside},
                        {"steps_max", no_output ? nlohmann::json(nullptr) : nlohmann::json(std::isinf(r.steps_max) ? -1.0 : r.steps_max)},
                        {"ambiguous", r.ambiguous},
                        {"unbounded", r.unbounded},
                        {"rows_checked", r.rows_checked},
                        {"rows_outside", r.rows_outside},
                        {"first_row_outside", r.row_outside_text},
                        {"outside_at_rounded_truth", r.outside_at_rounded_truth},
                        {"missing_rounding_points", r.missing_rounding_points()},
                        {"outside_at_product_rounded", r.outside_at_product_rounded},
                        {"product_rounded_first", r.product_rounded_first()}}},
                      {"failed_checks", r.failed_checks()},
                      {"first_outside", [&] {
                         nlohmann::json a = nlohmann::json::array();
                         auto num = [](double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(cat(x)); };
                         for (const auto& f : r.first_outside)
                           a.push_back({{"index", {f.row, f.col}}, {"got", num(f.got)}, {"lo", num(f.lo)}, {"hi", num(f.hi)},
                                        {"steps", num(f.steps)}, {"truth", num(f.truth)}, {"emulated", num(f.emulated)}});
                         return a;
                       }()},
                      {"farthest_outside", [&] {
                         auto num = [](double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(cat(x)); };
                         if (!r.farthest) return nlohmann::json(nullptr);
                         const auto& f = *r.farthest;
                         return nlohmann::json{{"index", {f.row, f.col}}, {"got", num(f.got)}, {"lo", num(f.lo)}, {"hi", num(f.hi)},
                                               {"steps", num(f.steps)}, {"truth", num(f.truth)}, {"emulated", num(f.emulated)}};
                       }()},
                      {"elements", no_output ? nlohmann::json(nullptr) : nlohmann::json(r.vs_truth.n)},
                      {"variants", {{"run", r.variants},
                                    {"failed", r.variants_failed},
                                    {"row_seed", r.variant_shown ? nlohmann::json(*r.variant_shown) : nlohmann::json(nullptr)}}},
                      {"gemm_algos", [&] {
                         nlohmann::json a = nlohmann::json::array();
                         for (const auto& g : r.gemm_algos) a.push_back({{"index", g.index}, {"algo", g.algo}, {"pass", g.ok}});
                         return a;
                       }()},
                      {"stopped", r.stopped},
                      {"vs_emulated", {{"ulp_hist", r.ulp_hist}, {"ulp_max", no_output ? nlohmann::json(nullptr) : nlohmann::json(r.ulp_max > 1e8 ? -1.0 : r.ulp_max)},
                                      {"frac_differ", figure(r.frac_differ)},
                                      {"rows_moved", r.rows_moved}, {"rows_moved_kinds", r.rows_moved_kinds}}},
                      {"ranks_agree", no_output ? nlohmann::json(nullptr) : nlohmann::json(r.bad_rank < 0)},
                      {"first_differing_rank", r.bad_rank},
                      {"first_differing_element", r.bad_rank >= 0 && r.bad_rank_elem >= 0
                                                      ? nlohmann::json::array({r.bad_rank_elem / r.p.H, r.bad_rank_elem % r.p.H})
                                                      : nlohmann::json(nullptr)},
                      {"compared_with_rank", r.base_rank},
                      {"deterministic", r.reran && !no_output ? nlohmann::json(r.deterministic) : nlohmann::json(nullptr)},
                      {"outputs_note", r.outputs_note},
                      {"fake_rank_run", r.fake_ranks_differ < 0 ? nlohmann::json(nullptr)
                                                                : nlohmann::json{{"ranks_differ", r.fake_ranks_differ},
                                                                                 {"rank0_elements_differ", r.fake_elems_differ},
                                                                                 {"must_match", r.fake_must_match}}},
                      {"unwritten", r.poisoned},
                      {"production_gate_failures", no_output ? nlohmann::json(nullptr) : nlohmann::json(r.gate_fail)},
                      {"seconds", r.seconds},
                      {"pass", r.ok},
                      {"reproduce", r.repro},
                      {"case_file", r.dump}};
  return j;
}

Report::Report(const CheckOptions& o, int processes, std::string title)
    : o_(o),
      processes_(processes),
      title_(std::move(title)),
      table_({{"tier", "", 4}, {"T", "", 3}, {"M", "", 5}, {"dist", "", 11}, {"algo", "", 8}, {"out", "elems", 7},
              {"steps", "bf16", 5}, {"amb", "%", 6}, {"max", "err/bnd", 8}, {"ulp0", "elems", 8}, {"ulp1", "elems", 7},
              {"ulp2", "elems", 5}, {"ulp3+", "elems", 5}, {"ranks", "", 5}, {"rerun", "", 5}, {"gate", "fails", 6},
              {"time", "s", 6}, {"ok", "", 4}}) {}

std::string unfinished_note(const std::string& title, const std::string& command) {
  return cat(title, " has not finished this report: the run is still going, or it ended without writing it (refused: "
             "its stderr says why; a hang, a crash or an early exit: its stderr names the rank and the stage). There is no verdict here. Command: ", command);
}

Status claim_json(const std::string& path, const std::string& title, const std::string& command) {
  if (path.empty()) return {};
  return mark_unfinished("--json", path,
                         json_text(nlohmann::json{{"ltt_version", kVersion}, {"command", command}, {"finished", false},
                                                  {"note", unfinished_note(title, command)}}));
}

nlohmann::json report_head(const std::string& command) {
  return {{"ltt_version", kVersion}, {"command", command}, {"finished", true}};
}

Status Report::claim() {
  claimed_ = true;
  LTT_TRY(claim_json(o_.json, title_, o_.command));
  if (!o_.markdown.empty())
    LTT_TRY(mark_unfinished("--markdown", o_.markdown, cat("### ", title_, ": did not finish\n\n", unfinished_note(title_, o_.command), "\n")));
  if (!o_.html.empty()) LTT_TRY(claim_html(o_.html, title_, o_.command));
  return {};
}

Status claim_html(const std::string& path, const std::string& title, const std::string& command) {
  return mark_unfinished("--html", path,
                         cat("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>", html_escape(title),
                             ": did not finish</title></head>\n<body><h1>", html_escape(title), ": did not finish</h1>\n<p>",
                             html_escape(unfinished_note(title, command)), "</p></body></html>\n"));
}

std::string verdict_sentence(bool reruns) {
  return cat("The verdict: every element inside its admissible set (the bf16 values some correct member of the tier's family "
             "can produce), every rank equal, ", reruns ? "a rerun equal, " : "", "nothing unwritten, not all zero");
}

bool weak_ring(const CaseResult& r) { return judged_algo(r.contract.algo, r.p.T) == Algo::ring; }

std::string ring_note(size_t ring, size_t total) {
  return cat(ring, " of ", total, " cases reduce by a ring over T > 2 ranks: a bf16 rounding at every hop, in any order, leaves Y more freedom "
             "than one-shot (amb% near 100 on realistic data), so their sets miss small coherent bugs that one-shot's catch, "
             "such as eps x10 or a bf16 sum of squares; where every partial sum is exact (the exact distribution's R and S) "
             "the ring rounds nothing and Z is as sharp as one-shot's (README, \"Ring verdicts are weaker\")");
}

std::string strict_gate_clause(const CheckOptions& o) {
  std::string s;
  if (o.ulp_max >= 0) s += cat(", and (--ulp-max) every element within ", shortest(o.ulp_max), " ULP of the emulated reference");
  if (o.ulp_frac >= 0)
    s += cat(", and (--ulp-frac) at most ", fmt("%.10g%%", 100 * o.ulp_frac), " of the elements differing from the emulated reference");
  return s;
}

void Report::header() {
  if (title_ == "ltt check")
    std::printf("# ltt check: backend %s, %s for the T ranks of each case (%s ranks)%s, dims H %d L %d, seed %llu\n",
                o_.backend.c_str(), counted(static_cast<size_t>(processes_), "process").c_str(),
                processes_ == 1 ? "fake" : "real or mixed",
                processes_ == 1 || o_.backend != "cuda"
                    ? ""
                    : o_.peer_memory == "nccl" ? ", peer memory: NCCL symmetric windows" : ", peer memory: CUDA IPC",
                o_.dims.H, o_.dims.L, static_cast<unsigned long long>(o_.seed));
  else
    std::printf("# %s: %s\n", title_.c_str(), o_.backend.c_str());
  std::printf("# verdict: every element inside its admissible set (the bf16 values some correct member of the tier's\n"
              "# family can produce: any reduction order or tree, any fp32 GEMM order or split-K, any sum-of-squares order,\n"
              "# rsqrt within 2 ULP, FTZ or not; false-alarm probability <= 1e-6 per case), all ranks equal,%s\n"
              "# nothing unwritten, not all zero%s.\n"
              "# out: elements outside their set; steps: bf16 steps from the farthest to its set; amb%%: elements with 2+\n"
              "# admissible values. Diagnostics: err/bnd |y - truth| / rigorous bound; ulpN elements N ULPs (error scale) from\n"
              "# the emulated reference; gate: elements failing |y - truth| <= 8e-2 + 3e-2 |truth| (the production test)\n",
              reruns() ? " rerun equal," : "", strict_gate_clause(o_).c_str());
  table_.header();
  for (const auto& n : notes_) std::printf("# %s\n", n.c_str());
  header_shown_ = true;
}

void Report::add(const CaseResult& r) {
  const auto& h = r.ulp_hist;
  const bool stopped = !r.stopped.empty();  // no output: nothing compared across ranks, reruns or by the gate
  table_.row({std::to_string(r.tier), std::to_string(r.p.T), std::to_string(r.p.M), name(r.p.dist), name(r.contract.algo),
              std::to_string(r.outside), r.steps_shown(), r.ambiguous_shown(), r.max_ratio_shown(),
              std::to_string(h[0]), std::to_string(h[1]), std::to_string(h[2]), std::to_string(h[3]),
              stopped ? "-" : r.bad_rank < 0 ? "same" : cat("r", r.bad_rank), r.rerun_shown(),  // "rN": the column is narrow
              r.gate_shown(), fmt("%.2f", r.seconds), r.ok ? "ok" : "FAIL"});
  if (!r.ok) {
    std::string why;
    if (!r.stopped.empty()) why += cat(" stopped: ", r.stopped, ";");
    if (r.outside) why += cat(" ", counted(r.outside, "element"), r.outside == 1 ? " outside its admissible set (" : " outside their admissible sets (farthest ",
                              std::isinf(r.steps_max) ? std::string("a NaN/Inf class mismatch") : fmt("%.0f bf16 steps", r.steps_max), ");");
    if (r.rows_outside) why += cat(" the row check failed in ", r.rows_outside, " of ", counted(r.rows_checked, "row"), ";");
    if (r.all_zero) why += " all zero;";
    if (r.bad_rank >= 0)
      why += cat(" rank ", r.bad_rank, " differs from rank ", r.base_rank,
                 r.bad_rank_elem >= 0 ? cat(" first at element [", r.bad_rank_elem / r.p.H, ", ", r.bad_rank_elem % r.p.H, "]")
                                      : std::string(), ";");
    if (!r.deterministic) why += " a second run gave other bits;";
    if (r.fake_must_match && r.fake_ranks_differ > 0)
      why += cat(" ", r.fake_ranks_differ, " of ", r.p.T, " ranks differ from the fake-rank run of the same case (rank 0: ",
                 r.fake_elems_differ, " elements);");
    if (r.poisoned) why += cat(" ", r.poisoned, " elements never written;");
    if (r.strict_fail) why += cat(" emulated-reference gate: max ", r.ulp_max > 1e8 ? std::string("inf") : fmt("%.3g", r.ulp_max),
                                  " ULP, ", fmt("%.3g", 100 * r.frac_differ), "% of elements differ;");
    std::printf("#   FAIL tier %d T %d M %d %s:%s\n", r.tier, r.p.T, r.p.M, name(r.p.dist), why.c_str());
    if (!r.note.empty()) std::printf("#     %s\n", r.note.c_str());
    if (r.missing_rounding_points()) std::printf("#     %s\n", r.missing_rounding_note().c_str());
    if (r.product_rounded_first()) std::printf("#     %s\n", r.product_rounded_note().c_str());
    if (r.rows_moved) std::printf("#     %s\n", r.rows_moved_note().c_str());
    if (r.rows_outside) std::printf("#     %s\n", r.row_outside_text.c_str());
    for (const auto& f : r.first) std::printf("#     %s\n", f.c_str());
    if (r.farthest_unlisted()) std::printf("#     farthest: %s\n", r.farthest_text.c_str());
    if (!r.dump.empty()) std::printf("#     case file: %s\n", printable(r.dump).c_str());
    std::printf("#     reproduce: %s\n", r.repro.c_str());
  }
  if (!r.outputs_note.empty()) std::printf("#   tier %d T %d M %d %s: %s\n", r.tier, r.p.T, r.p.M, name(r.p.dist), printable(r.outputs_note).c_str());
  if (r.ok && !o_.gemm_algos.empty() && !r.note.empty())  // --gemm-algos' count of algorithms
    std::printf("#   tier %d T %d M %d %s: %s\n", r.tier, r.p.T, r.p.M, name(r.p.dist), r.note.c_str());
  if (r.ok && r.rows_moved)
    std::printf("#   tier %d T %d M %d %s: %s\n", r.tier, r.p.T, r.p.M, name(r.p.dist), r.rows_moved_note().c_str());
  if (r.fake_ranks_differ >= 0 && (r.ok || !r.fake_must_match))
    std::printf("#   tier %d T %d M %d %s: against the fake-rank run: %s\n", r.tier, r.p.T, r.p.M, name(r.p.dist),
                r.fake_ranks_differ == 0 ? cat("every rank bitwise identical (", r.p.T, " of ", r.p.T, ")").c_str()
                                         : cat(r.fake_ranks_differ, " of ", r.p.T, " ranks differ; rank 0 in ", r.fake_elems_differ,
                                               " of ", static_cast<long>(r.p.M) * r.p.H, " elements (NCCL's own order)").c_str());
  std::fflush(stdout);
  results_.push_back(r);
  checkpoint();
}

Status Report::finish(double wall_seconds) {
  finished_ = true;
  size_t outside = 0, failed = 0, gate_pass_but_fail = 0, stopped = 0;
  std::map<std::string, size_t> by_check;
  for (const auto& r : results_) {
    outside += r.outside;
    failed += r.ok ? 0 : 1;
    stopped += r.stopped.empty() ? 0 : 1;
    gate_pass_but_fail += (!r.ok && r.stopped.empty() && r.gate_fail == 0) ? 1 : 0;  // a stopped case gave the gate nothing
    for (const auto& c : r.failed_checks()) ++by_check[c];
  }
  // The nccl-tests footer counts elements outside their admissible sets; the
  // next line names every check that failed and in how many cases.
  // Of no output, nothing can be said to lie inside its set.
  std::printf("# Out of bound values : %zu %s%s\n", outside, failed == 0 ? "OK" : "FAILED",
              !failed || outside     ? ""
              : stopped == failed    ? cat(" (no element outside its set: the failing ", stopped == 1 ? "case" : "cases",
                                        " stopped with no output, below)").c_str()
              : stopped == 0         ? " (every element inside its set: the run failed other checks, below)"
                                     : " (no element outside its set in the outputs judged: the run failed other checks, below)");
  const std::string checks =
      join(by_check, ", ", [](const auto& ck) { return cat(ck.first, " in ", counted(ck.second, "case")); });
  // The gate's count only where some case failed: "0 of them" of no failures says nothing.
  // A stopped case gave the gate no output: counted among the failures the gate judged, never.
  const size_t judged = failed - stopped;
  const std::string gate = judged == 0 ? ""
                           : stopped == 0 ? cat(" (", gate_pass_but_fail, " of them passed by the production gate)")
                                          : cat(" (", gate_pass_but_fail, " of the ", judged, " with outputs passed by the production gate)");
  std::printf("# %s, %zu failed%s%s; wall %.1f s\n", counted(results_.size(), "case").c_str(), failed, gate.c_str(),
              checks.empty() ? "" : cat("; failed checks: ", checks).c_str(), wall_seconds);
  // A pass under a ring is a weaker claim than under one-shot: said where it is made, and kept in every report.
  const size_t ring = static_cast<size_t>(
      std::count_if(results_.begin(), results_.end(), [](const CaseResult& r) { return weak_ring(r); }));
  if (ring > 0) {
    notes_.push_back(ring_note(ring, results_.size()));
    std::printf("# %s\n", notes_.back().c_str());
  }

  // --variant: the rows are each case's worst member; a passing run would
  // otherwise read as a plain one.
  if (const auto v = std::find_if(results_.begin(), results_.end(), [](const CaseResult& r) { return r.variants > 0; });
      v != results_.end()) {
    size_t runs = 0, failed_runs = 0, cases_failing = 0;
    for (const auto& r : results_) {
      runs += r.variants;
      failed_runs += r.variants_failed;
      cases_failing += r.variants_failed > 0 ? 1 : 0;
    }
    notes_.push_back(cat("--variant: each case ran ", counted(v->variants, "random member"), " of its tier's family (",
                         runs, " runs, ", failed_runs, " failed", failed_runs ? cat(", in ", counted(cases_failing, "case")) : std::string(),
                         "); a row shows its case's worst member (a failing one first; its seed: JSON variants.row_seed)"));
    std::printf("# %s\n", notes_.back().c_str());
  }

  // Every report is tried: one that cannot be written (a full disk) costs
  // that file alone, and each one lost is named.
  ReportWrites writes;
  if (!o_.json.empty()) writes.keep(write_text_file("--json", o_.json, json_text(json_doc(true, failed, wall_seconds))));
  if (!o_.markdown.empty()) writes.keep(write_text_file("--markdown", o_.markdown, markdown_doc(true, failed, wall_seconds)));
  if (!o_.html.empty()) writes.keep(write_html(o_.html, title_, o_.command, results_, notes_, verdict_sentence(reruns()) + strict_gate_clause(o_), wall_seconds));
  return writes.status();
}

void Checkpoints::update(size_t done, const char* what, std::initializer_list<File> files, bool force) {
  const double t0 = now_seconds();
  if (!force && done > 1 && t0 - last_ < std::max(1.0, 20 * cost_)) return;
  ReportWrites writes;
  for (const File& f : files)
    if (!f.path.empty()) writes.keep(update_unfinished(f.flag, f.path, f.text()));
  last_ = now_seconds();
  cost_ = last_ - t0;
  if (!writes.status().ok() && !lost_said_) {
    lost_said_ = true;
    std::fprintf(stderr, "ltt: %s (%s); the report is tried again at the end\n", writes.status().error().describe().c_str(), what);
  }
}

std::string so_far_note(const std::string& title, size_t done, size_t planned, const std::string& what, const std::string& command) {
  return cat(title, " has not finished this report: ", planned ? cat(done, " of ", planned, " ", what, "s") : counted(done, what.c_str()),
             done == 1 ? " is" : " are", " in it so far, each judged. The run is still going, or it ended before "
             "its last ", what, " (killed; refused part way: its stderr says why; a hang, a crash or an early exit: its stderr names the rank "
             "and the stage). There is no verdict here: those not in it were not judged. Command: ", command);
}

std::string markdown_code(const std::string& text) {
  // CommonMark: a code span's fence is a run of backticks no run inside it matches; spaces keep a backtick at
  // either end apart from the fence.
  size_t longest = 0;
  for (size_t i = 0, run = 0; i < text.size(); ++i) longest = std::max(longest, run = text[i] == '`' ? run + 1 : 0);
  const std::string fence(longest + 1, '`'), pad = longest ? " " : "";
  return fence + pad + text + pad + fence;
}

std::string markdown_text(const std::string& text) {
  std::string o;
  for (const char c : printable(text)) o += c == '<' ? std::string("&lt;") : c == '&' ? std::string("&amp;") : std::string(1, c);
  return o;
}

nlohmann::json Report::json_doc(bool finished, size_t failed, double wall_seconds) const {
  nlohmann::json j = report_head(o_.command);
  if (!finished) {
    // No "summary": a reader cannot take the cases so far for a verdict.
    j["finished"] = false;
    j["note"] = so_far_note(title_, results_.size(), planned_, "case", o_.command);
    j["cases_done"] = results_.size();
    j["cases_planned"] = planned_ ? nlohmann::json(planned_) : nlohmann::json(nullptr);
  }
  j["backend"] = o_.backend;
  j["processes"] = processes_;
  if (processes_ > 1 && o_.backend == "cuda") {
    j["transport"] = o_.transport;
    j["peer_memory"] = o_.peer_memory;
  }
  j["criteria"] = {{"verdict", "admissible sets of the order-free contract"},
                   {"p_false_alarm", Family{}.p_false_alarm},
                   {"ulp_max", o_.ulp_max >= 0 ? nlohmann::json(o_.ulp_max) : nlohmann::json(nullptr)},
                   {"ulp_frac", o_.ulp_frac >= 0 ? nlohmann::json(o_.ulp_frac) : nlohmann::json(nullptr)}};
  j["cases"] = nlohmann::json::array();
  for (const auto& r : results_) j["cases"].push_back(case_json(r));
  j["notes"] = notes_;
  if (finished) j["summary"] = {{"cases", results_.size()}, {"failed", failed}, {"wall_seconds", wall_seconds}};
  return j;
}

std::string Report::markdown_doc(bool finished, size_t failed, double wall_seconds) const {
  std::ostringstream f;
  const std::string command = markdown_code(printable(o_.command));
  if (finished)
    f << "### " << title_ << ": " << (failed == 0 ? "pass" : "FAIL") << "\n\n"
      << counted(results_.size(), "case") << ", " << failed << " failed, " << fmt("%.1f", wall_seconds) << " s. Command: " << command
      << "\n\n";
  else
    f << "### " << title_ << ": did not finish (" << (planned_ ? cat(results_.size(), " of ", planned_, " cases") : counted(results_.size(), "case"))
      << " so far, " << failed << " failed)\n\n" << so_far_note(title_, results_.size(), planned_, "case", o_.command) << "\n\n";
  for (const auto& n : notes_) f << markdown_text(n) << "\n\n";
  f << verdict_sentence(reruns()) << strict_gate_clause(o_) << ".\n\n";
  // The table's columns, and the outputs given where verify says which (a
  // directory's case file, ranks given): a row says which case it is.
  const bool outputs = std::any_of(results_.begin(), results_.end(), [](const CaseResult& r) { return !r.outputs_note.empty(); });
  auto md = [](const std::string& t) {  // a cell: no '|' or line break to end it, no backtick to open code
    std::string c;
    for (char ch : markdown_text(t)) c += ch == '|' ? std::string("\\|") : ch == '`' ? std::string("'") : std::string(1, ch);
    return c;
  };
  f << "| tier | T | M | dist | algo | outside | steps | ambiguous % | max err/bound | ULP 0/1/2/3+ | ranks | rerun | gate fails | verdict |"
    << (outputs ? " outputs |" : "") << "\n"
    << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|" << (outputs ? "---|" : "") << "\n";
  for (const auto& r : results_)
    f << "| " << r.tier << " | " << r.p.T << " | " << r.p.M << " | " << name(r.p.dist) << " | " << name(r.contract.algo)
      << " | " << r.outside << " | " << r.steps_shown() << " | " << r.ambiguous_shown() << " | " << r.max_ratio_shown() << " | "
      << r.ulp_hist[0] << "/" << r.ulp_hist[1] << "/" << r.ulp_hist[2] << "/" << r.ulp_hist[3] << " | " << r.ranks_shown() << " | "
      << r.rerun_shown() << " | " << r.gate_shown() << " | " << (r.ok ? "pass" : cat("**FAIL** (", join(r.failed_checks()), ")")) << " |"
      << (outputs ? " " + md(r.outputs_note) + " |" : "") << "\n";
  return f.str();
}

Report::~Report() {
  if (claimed_ && !finished_ && !results_.empty()) checkpoint(true);
}

void Report::checkpoint(bool force) {
  if (!claimed_ || finished_ || (!force && planned_ && results_.size() >= planned_)) return;  // finish() writes the whole report next
  const size_t failed = static_cast<size_t>(std::count_if(results_.begin(), results_.end(), [](const CaseResult& r) { return !r.ok; }));
  checkpoints_.update(results_.size(), "the cases so far",
                      {{"--json", o_.json, [&] { return json_text(json_doc(false, failed, 0)); }},
                       {"--markdown", o_.markdown, [&] { return markdown_doc(false, failed, 0); }}},
                      force);
}

}  // namespace ltt
