// The HTML report (--html): one self-contained file (inline CSS and script, no
// network) with the summary table and, for each failing case (every case with
// --html-all), heatmaps over (token x hidden column) of error/bound, of the
// distance to the admissible set and of where ranks differ, shard edges marked,
// the ULP histogram and the reproduce command. A bug at a shard edge shows as a
// stripe at the edge.
#pragma once

#include <string>
#include <vector>

#include "report.hpp"

namespace ltt {

// s with & < > " written as HTML entities.
std::string html_escape(const std::string& s);

// notes: lines about the whole run, under the summary line; verdict: the
// verdict's sentence (verdict_sentence and strict_gate_clause), without its full stop.
Status write_html(const std::string& path, const std::string& title, const std::string& command,
                  const std::vector<CaseResult>& results, const std::vector<std::string>& notes,
                  const std::string& verdict, double wall_seconds);

// A table-only page (ltt regress): the header and the rows, and lines of notes.
Status write_html_table(const std::string& path, const std::string& title, const std::string& command,
                        const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                        const std::vector<std::string>& notes, bool pass);

}  // namespace ltt
