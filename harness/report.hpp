// The results of `ltt check`: one fixed-width row per case on stdout (rank 0
// only) with a units row and a verdict footer, failure details under the
// failing row, and the same data as JSON (--json) and a Markdown summary
// (--markdown). The JSON schema is in README.md.
#pragma once

#include <array>
#include <map>
#include <string>
#include <vector>

#include "check.hpp"
#include "bounds.hpp"
#include "compare.hpp"
#include "table.hpp"

namespace ltt {

struct CaseResult {
  int tier = 0;
  Problem p;
  Contract contract;
  ErrorStats vs_truth;                 // against the float64 truth and the bound
  std::array<size_t, 4> ulp_hist{};    // against the emulated reference: 0, 1, 2, 3+ ULPs
  double ulp_max = 0;
  double frac_differ = 0;              // elements not bitwise equal to the emulated reference
  int bad_rank = -1;                   // first rank whose output differs from rank 0's
  long bad_rank_elem = -1;
  bool deterministic = true;
  size_t poisoned = 0;                 // elements the backend never wrote
  size_t gate_fail = 0;                // elements failing the production gate
  bool ok = false;
  double seconds = 0, backend_seconds = 0;
  std::string repro, dump, note;
  std::vector<std::string> first;      // first mismatches, printed
};

// Fills `r`'s figures for rank 0's output y (values) against the truth and
// its bound and against the emulated reference `want`, and r.ok from them and
// from what the caller already set (bad_rank, deterministic, poisoned).
void evaluate(const MatD& y, const MatrixB& want, const Truth& truth, const MatD& bound, const CheckOptions& o,
              CaseResult& r);

// __metadata__ of a case file (DESIGN.md section 6).
std::map<std::string, std::string> case_metadata(const Problem& p, const std::vector<int>& tiers, const Contract& c);

class Report {
 public:
  Report(const CheckOptions& o, int processes, std::string title = "ltt check");
  void header();
  void add(const CaseResult& r);
  Status finish(double wall_seconds);  // footer, then the JSON and Markdown files

 private:
  const CheckOptions& o_;
  int processes_;
  std::string title_;
  Table table_;
  std::vector<CaseResult> results_;
};

}  // namespace ltt
