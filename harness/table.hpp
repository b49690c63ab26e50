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

// Progress on stderr when it is a terminal: "[12/40] 3.1 s elapsed, ~7.2 s left".
class Progress {
 public:
  explicit Progress(size_t total);
  void step(const std::string& what);
  void done();

 private:
  size_t total_, done_ = 0;
  double t0_;
  bool tty_;
};

double now_seconds();

}  // namespace ltt
