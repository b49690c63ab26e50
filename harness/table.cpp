// Table and progress printing.
#include "table.hpp"

#include <unistd.h>

#include <chrono>

namespace ltt {

namespace {

// " " and s right-aligned in width characters; a longer s is kept whole.
void cell(std::string& line, const std::string& s, int width) {
  line += ' ';
  if (static_cast<int>(s.size()) < width) line.append(static_cast<size_t>(width) - s.size(), ' ');
  line += s;
}

}  // namespace

void Table::header() const {
  std::string a = "#", b = "#";
  for (const auto& c : cols_) {
    cell(a, c.name, c.width);
    cell(b, c.unit, c.width);
  }
  std::fprintf(out_, "%s\n%s\n", a.c_str(), b.c_str());
}

void Table::row(const std::vector<std::string>& cells) const {
  std::string s = " ";
  for (size_t i = 0; i < cols_.size(); ++i) cell(s, i < cells.size() ? cells[i] : std::string(), cols_[i].width);
  std::fprintf(out_, "%s\n", s.c_str());
  std::fflush(out_);
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

Progress::Progress(size_t total) : Progress(total, stderr, isatty(STDERR_FILENO) != 0, now_seconds) {}

Progress::Progress(size_t total, FILE* out, bool tty, Clock clock)
    : total_(total), out_(out), tty_(tty), clock_(clock), t0_(clock()), last_(t0_) {}

void Progress::show(const std::string& what, bool with_left, double min_gap) {
  const double t = clock_();
  if (t - last_ < min_gap) return;
  last_ = t;
  const double el = t - t0_;
  const double left = done_ ? el / static_cast<double>(done_) * static_cast<double>(total_ - done_) : 0;
  char head[96];
  if (with_left && done_) std::snprintf(head, sizeof head, "[%zu/%zu] %.1f s elapsed, ~%.1f s left", done_, total_, el, left);
  else std::snprintf(head, sizeof head, "[%zu/%zu] %.1f s elapsed", done_, total_, el);
  if (tty_) std::fprintf(out_, "\r\033[K%s  %s", head, what.c_str());
  else std::fprintf(out_, "ltt: %s: %s\n", head, what.c_str());
  std::fflush(out_);
}

void Progress::step(const std::string& what) {
  ++done_;
  show(what, true, tty_ ? 0.0 : 60.0);
}

void Progress::within(const std::string& what) { show(what, false, tty_ ? 0.25 : 60.0); }

void Progress::done() {
  if (tty_) std::fprintf(out_, "\r\033[K");
}

}  // namespace ltt
