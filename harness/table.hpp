// A fixed-width results table: a header row, a units row, data rows, all
// right-aligned in their columns ('#' starts the header lines so that the
// table stays a valid comment-prefixed text file).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace ltt {

struct Column {
  std::string name;
  std::string unit;
  int width;
};

class Table {
 public:
  explicit Table(std::vector<Column> cols, FILE* out = stdout) : cols_(std::move(cols)), out_(out) {}
  void header() const;
  void row(const std::vector<std::string>& cells) const;

 private:
  std::vector<Column> cols_;
  FILE* out_;
};

std::string fmt(const char* f, double v);  // printf-style, one number

// Progress on stderr: on a terminal one line rewritten in place, "[12/40]
// 3.1 s elapsed, ~7.2 s left  tier 1 T 8 M 5 realistic"; elsewhere (a log, a
// pipe) a line of its own at most once a minute, so a long run shows it is
// alive without filling the log.
class Progress {
 public:
  using Clock = double (*)();  // seconds, monotonic
  explicit Progress(size_t total);
  // What the one above takes from the process (stderr, whether it is a
  // terminal, the steady clock), given: for tests.
  Progress(size_t total, FILE* out, bool tty, Clock clock);
  // One of the `total` steps is done.
  void step(const std::string& what);
  // Inside a long step (a case's variants or cuBLAS algorithms): what it is
  // doing now, e.g. "tier 1 T 8 M 5 realistic: variant 512 of 100000"; shown
  // at most 4 times a second on a terminal.
  void within(const std::string& what);
  void done();

 private:
  void show(const std::string& what, bool with_left, double min_gap);
  size_t total_, done_ = 0;
  FILE* out_;
  bool tty_;
  Clock clock_;
  double t0_, last_ = 0;
};

double now_seconds();

}  // namespace ltt
