// The results of `ltt check`: one fixed-width row per case on stdout (rank 0
// only) with a units row and a verdict footer, failure details under the
// failing row, and the same data as JSON (--json) and a Markdown summary
// (--markdown). The JSON schema is in README.md.
#pragma once

#include <array>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "check.hpp"
#include "admissible.hpp"
#include "bounds.hpp"
#include "compare.hpp"
#include "reference.hpp"
#include "table.hpp"

namespace ltt {

struct CaseResult {
  int tier = 0;
  Problem p;
  Contract contract;
  // The verdict: membership in the admissible sets of the order-free contract.
  size_t outside = 0;                  // elements outside their admissible set
  double steps_max = 0;                // bf16 steps from the farthest one to its set (inf: NaN/Inf class)
  size_t ambiguous = 0;                // elements with two or more admissible values
  size_t unbounded = 0;                // elements the contract cannot bound (NaN possible)
  // Row checks (admissible.hpp, RowBound: rows whose Z is ambiguous in a few
  // elements, such as an order probe's): rows judged, rows whose weighted sum
  // no member gives, and the first of those said in words.
  size_t rows_checked = 0;
  size_t rows_outside = 0;
  std::string row_outside_text;
  // Diagnostics, not the verdict.
  // Of the elements outside: those holding the float64 truth rounded once to
  // bf16. Nearly all of them so: the output skipped the contract's intermediate
  // roundings (missing_rounding_points()), a different contract, not noise.
  size_t outside_at_rounded_truth = 0;
  // Of the elements outside: those holding the emulated reference with the
  // up-projection's output rounded to bf16 before its addend is added (the
  // mutant gemm-round-then-add). Nearly all of them so: the product was
  // rounded first (product_rounded_first()), as cublasLtMatmul in place and
  // so torch.addmm compute it. -1: not looked at (the case passed or stopped,
  // fewer than 16 elements outside, or tier 1, whose contract rounds there
  // anyway).
  long outside_at_product_rounded = -1;
  ErrorStats vs_truth;                 // against the float64 truth and the rigorous bound
  std::array<size_t, 4> ulp_hist{};    // against the emulated reference: 0, 1, 2, 3+ ULPs
  double ulp_max = 0;
  double frac_differ = 0;              // elements not bitwise equal to the emulated reference
  size_t gate_fail = 0;                // elements failing the production gate
  // Rows differing from the emulated reference in more than half their
  // elements, and (adversarial inputs) how many of each row kind. A correct
  // member can move a row whole: an order probe's sum depends on the order
  // of the cross-rank sum, a subnormal row on flush-to-zero.
  size_t rows_moved = 0;
  std::map<std::string, size_t> rows_moved_kinds;
  // The other checks of the verdict.
  int bad_rank = -1;                   // first rank whose output differs from base_rank's
  int base_rank = 0;                   // the rank judged, the others compared with it (verify: the lowest given)
  long bad_rank_elem = -1;
  bool deterministic = true;
  bool reran = true;                   // false in verify: its outputs were made once, elsewhere
  std::string outputs_note;            // verify: ranks given, tensors or files not checked ("" when none)
  size_t poisoned = 0;                 // elements the backend never wrote
  bool all_zero = false;               // no nonzero element where some element's set is unbounded or lacks 0 (a failure)
  bool strict_fail = false;            // the optional emulated-reference ULP gate (--ulp-max/--ulp-frac) failed
  // --backend cuda over several processes: every rank's output against the
  // same case run on fake ranks in process 0 (-1: not compared). Where the
  // transport fixes the order (ipc), any difference fails ("fake-ranks");
  // NCCL chooses its own order, so there it is reported only.
  int fake_ranks_differ = -1;          // ranks whose output differs from the fake-rank run
  long fake_elems_differ = -1;         // elements of rank 0's output that differ from it
  bool fake_must_match = false;
  std::string stopped;                 // the backend ended without output (e.g. a Lamport reader would spin forever)
  // Every rank's output bits hashed together (0 when stopped): two runs of a
  // case gave the same outputs where these agree (ltt mutants: a mutant that
  // changed no output of a case, against the clean run's).
  unsigned long long digest = 0;
  size_t variants = 0, variants_failed = 0;  // --variant: members run, and how many failed (the row shows the worst)
  std::optional<uint64_t> variant_shown;      // --variant: the seed of the member the row shows
  struct GemmAlgoRun {                       // --gemm-algos: each cuBLASLt algorithm run, what it is, and its verdict
    int index;
    std::string algo;
    bool ok;
  };
  std::vector<GemmAlgoRun> gemm_algos;
  bool ok = false;
  double seconds = 0, backend_seconds = 0;
  std::string repro, dump, note;
  std::vector<std::string> first;      // first elements outside their sets, printed
  struct Outside {                     // the same, as figures (the JSON's first_outside)
    int row, col;
    double got, lo, hi, steps, truth, emulated;
  };
  std::vector<Outside> first_outside;  // up to 20
  // The element farthest from its set (the first of the farthest), with its
  // line as printed: the steps_max figure's element, which need not be among
  // the first. Steps across zero count every tiny bf16 value between, so the
  // line also gives the distance as a value.
  std::optional<Outside> farthest;
  std::string farthest_text;
  // Whether the farthest element lies past those listed (first): then it is
  // shown on a line of its own (the terminal's "farthest:", the HTML's).
  bool farthest_unlisted() const;
  // Heatmaps over (token x hidden column) for the HTML report, pooled to at
  // most 128 x 512 cells (each cell the largest value it covers); filled for
  // failing cases when an HTML report is asked for (every case with --html-all).
  struct Heat {
    int rows = 0, cols = 0;      // cells
    int M = 0, H = 0, shard = 0;  // the matrix pooled, and the hidden shard width (H / T) whose edges are marked
    std::vector<float> err_bound;  // |y - truth| / rigorous bound
    std::vector<float> steps;      // bf16 steps outside the admissible set (0 inside; 1e9: NaN/Inf class)
    std::vector<float> rank_diff;  // 1 where the first differing rank's output differs from rank 0's
  };
  Heat heat;
  // Names of the checks that failed: admissible, ranks, rerun, unwritten, all-zero, emulated-ulp, stopped,
  // fake-ranks.
  std::vector<std::string> failed_checks() const;
  // The figures the table, the Markdown and the HTML report show alike, "-"
  // where a stopped case (no output) has none: the farthest element's bf16
  // steps, the % of elements with 2+ admissible values, the largest
  // error/bound and the production gate's failures.
  std::string steps_shown() const;
  std::string ambiguous_shown() const;
  std::string max_ratio_shown() const;
  std::string gate_shown() const;
  std::string ranks_shown() const;  // "same", "rank N" (the first differing), "-" when stopped
  std::string rerun_shown() const;  // "same", "DIFF", "-" when stopped or not rerun (verify)
  // Enough elements outside (16 or more), and 90% or more of them at the truth
  // rounded once: the signature of an output computed with no intermediate
  // bf16 rounding (Z, N, S's sum or the GEMM's output kept in fp32), as
  // torch.compile's Inductor does when it drops an fp32 -> bf16 -> fp32 cast.
  bool missing_rounding_points() const;
  // What that signature means, one sentence for the reports ("" without it).
  std::string missing_rounding_note() const;
  // 16 or more elements outside, and 90% or more of them at the emulated
  // reference with the GEMM's output rounded before its addend is added.
  bool product_rounded_first() const;
  std::string product_rounded_note() const;
  // The moved rows, one sentence for the reports ("" when none): how many,
  // their kinds, and what a correct member's order probe or subnormal row does.
  std::string rows_moved_note() const;
};

// Fills `r`'s figures for rank 0's output y (values; F32 outputs are judged
// after rounding to bf16, the tier's last rounding point) against its
// admissible sets `adm`, and the diagnostics against the truth, its rigorous
// bound and the emulated reference `want`; r.ok from them and from what the
// caller already set (bad_rank, deterministic, poisoned, stopped).
void evaluate(const MatD& y, const MatrixB& want, const Truth& truth, const MatD& bound, const Interval& adm,
              const CheckOptions& o, CaseResult& r);

// For a failing case of a tier whose GEMM adds its addend (0, 2, 3, 4) with
// 16 or more elements outside: runs the emulated reference with the GEMM's
// output rounded before the add and counts the elements outside `adm` that
// equal it (r.outside_at_product_rounded). One more run of the reference,
// only where a case fails, kept in `twice` for the case's other runs (its
// variants, its cuBLASLt algorithms: the same tier, contract and inputs). A
// diagnosis: where that run cannot be made, the count stays -1 (not looked
// at) and the verdict is as it was.
void diagnose_product_rounded(Reference& ref, int tier, const Contract& c, const MatD& y, const Interval& adm, CaseResult& r,
                              std::optional<MatrixB>& twice);

// The differing rank's heatmap: where `other` (rank bad_rank's values) differs from y (rank 0's).
void heat_rank_diff(CaseResult& r, const MatD& y, const MatD& other);

// __metadata__ of a case file (DESIGN.md section 6).
std::map<std::string, std::string> case_metadata(const Problem& p, const std::vector<int>& tiers, const Contract& c);

// What the verdict requires beyond the contract, for every report's verdict
// line: ", and (--ulp-max/--ulp-frac) within ..." when either is given, else "".
std::string strict_gate_clause(const CheckOptions& o);
// The note of a report holding `ring` cases (of `total`) reduced by a ring:
// a pass there is a weaker claim than under one-shot (README, "Ring verdicts
// are weaker"); check, verify and mutants say it.
// A case judged by the ring's sets (a ring over T > 2 ranks: judged_algo()),
// wider than one-shot's.
bool weak_ring(const CaseResult& r);
std::string ring_note(size_t ring, size_t total);
// The verdict in one sentence, for the Markdown's and the HTML's legend (the
// terminal's header spells out the family's freedoms too); `reruns`: whether
// the run reran each case (check does, verify has nothing to rerun).
std::string verdict_sentence(bool reruns);

// The placeholder a report file holds while its run is on (mark_unfinished):
// the note, and the JSON {"ltt_version", "command", "finished": false, "note"}
// (no "cases", no "summary": a reader cannot take it for a verdict).
std::string unfinished_note(const std::string& title, const std::string& command);
// --json's placeholder written at `path` (nothing when `path` is empty).
Status claim_json(const std::string& path, const std::string& title, const std::string& command);
// The same for an HTML page (check's and verify's --html, regress --html).
Status claim_html(const std::string& path, const std::string& title, const std::string& command);
// The fields every finished JSON report of check, verify and mutants opens
// with: {"ltt_version", "command", "finished": true}.
nlohmann::json report_head(const std::string& command);

// When a report rewritten while its run is on (the items judged so far) is
// due: after the first item at once, then at most once a second and never
// more than a twentieth of the run in writing (each write is the whole report
// so far, synced), so that a killed run keeps every item judged a second
// before it.
class Checkpoints {
 public:
  struct File {
    const char* flag;  // e.g. "--json"
    const std::string& path;  // "" : none
    std::function<std::string()> text;  // the report so far, made only when due
  };
  // With `done` items judged: each file rewritten through update_unfinished
  // when due; a write that fails is said once on stderr ("... (`what`); the
  // report is tried again at the end"), and the run goes on.
  // `force`: now, whatever the pace (the run is leaving early).
  void update(size_t done, const char* what, std::initializer_list<File> files, bool force = false);

 private:
  double last_ = 0, cost_ = 0;  // when the last write ended, and what it took (s)
  bool lost_said_ = false;
};

// The note of a report rewritten while its run is on: `done` of `planned`
// (0: not known) `what`s are in it so far; no verdict.
std::string so_far_note(const std::string& title, size_t done, size_t planned, const std::string& what, const std::string& command);

// Text as a Markdown code span (`text`, fenced by more backticks than any
// run inside it), and as Markdown text: control characters and bytes that
// are no UTF-8 escaped (printable()), '<' and '&' as entities (no raw HTML).
std::string markdown_code(const std::string& text);
std::string markdown_text(const std::string& text);

class Report {
 public:
  Report(const CheckOptions& o, int processes, std::string title = "ltt check");
  // A run that leaves before finish() (refused part way: an error returned)
  // writes the cases judged so far once more, whatever the checkpoints' pace,
  // so the reports keep every case the terminal showed.
  ~Report();
  Report(const Report&) = delete;
  Report& operator=(const Report&) = delete;
  // Each report file (--json, --markdown, --html) replaced by the note that
  // the run has not finished (mark_unfinished), before the first case runs:
  // finish() writes the reports over it. While the run is on, after a case
  // (checkpoint(): the first at once, then as Checkpoints allows), each
  // claimed JSON and Markdown file holds the cases judged so far, still
  // "finished": false with no summary; the HTML keeps the note. A run killed,
  // ended by the watchdog or crashed leaves the note or those cases.
  Status claim();
  // How many cases the run will add (0: not known): the reports written
  // while it is on say "k of n".
  void planned(size_t n) { planned_ = n; }
  void header();
  void add(const CaseResult& r);
  void keep(const CaseResult& r) { results_.push_back(r); }  // recorded, not printed
  // A line about the whole run (ltt verify: output files with no case),
  // printed under the table's header as "# not checked: ..." when added
  // before header(), at once when added after it, and kept in every
  // report (JSON "notes", Markdown, HTML).
  // A file's name in it keeps the note on its line: control characters and
  // bytes that are no UTF-8 are written as escapes (printable()).
  void note(const std::string& line) {
    notes_.push_back(printable(line));
    if (header_shown_) std::printf("# %s\n", notes_.back().c_str());
  }
  const std::vector<std::string>& notes() const { return notes_; }
  Status finish(double wall_seconds);  // footer, then the JSON and Markdown files

 private:
  bool reruns() const { return title_ != "ltt verify"; }  // verify judges outputs made elsewhere: nothing reruns
  const CheckOptions& o_;
  int processes_;
  std::string title_;
  Table table_;
  std::vector<CaseResult> results_;
  std::vector<std::string> notes_;
  bool header_shown_ = false;  // notes added after the header are printed as they come
  // The reports while the run is on (claim(), add()).
  nlohmann::json json_doc(bool finished, size_t failed, double wall_seconds) const;
  std::string markdown_doc(bool finished, size_t failed, double wall_seconds) const;
  void checkpoint(bool force = false);
  bool claimed_ = false, finished_ = false;
  size_t planned_ = 0;
  Checkpoints checkpoints_;
};

}  // namespace ltt
