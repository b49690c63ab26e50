// `ltt verify`: checks outputs made anywhere (another GPU, another
// framework) against a case file, exactly as `ltt check` checks its own
// backends: the same figures, bounds, cross-rank agreement, reports and exit
// codes. The outputs file holds `output` (one rank's [M, H], BF16 or F32, of
// the tier given by --tier or the case's only tier) or
// `output.tier{k}.rank{r}` tensors. Directories of cases and outputs (same
// file names) work too.
#pragma once

#include <optional>
#include <string>

#include "check.hpp"

namespace ltt {

struct VerifyOptions {
  std::string case_path, output_path;
  std::optional<int> tier;
  CheckOptions report;  // ulp_max, ulp_frac, json, markdown, command
};

Result<int> run_verify(const VerifyOptions& o);

}  // namespace ltt
