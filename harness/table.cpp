// Table and progress printing.
#include "table.hpp"

#include <unistd.h>

#include <chrono>

namespace ltt {

void Table::header() const {
  std::string a = "#", b = "#";
  for (const auto& c : cols_) {
    char buf[128];
    std::snprintf(buf, sizeof buf, " %*s", c.width, c.name.c_str());
    a += buf;
    std::snprintf(buf, sizeof buf, " %*s", c.width, c.unit.c_str());
    b += buf;
  }
  std::fprintf(out_, "%s\n%s\n", a.c_str(), b.c_str());
}

void Table::row(const std::vector<std::string>& cells) const {
  std::string s = " ";
  for (size_t i = 0; i < cols_.size(); ++i) {
    char buf[256];
    std::snprintf(buf, sizeof buf, " %*s", cols_[i].width, i < cells.size() ? cells[i].c_str() : "");
    s += buf;
  }
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

Progress::Progress(size_t total) : total_(total), t0_(now_seconds()), tty_(isatty(STDERR_FILENO) != 0) {}

void Progress::step(const std::string& what) {
  ++done_;
  if (!tty_) return;
  const double el = now_seconds() - t0_;
  const double left = done_ ? el / static_cast<double>(done_) * static_cast<double>(total_ - done_) : 0;
  std::fprintf(stderr, "\r\033[K[%zu/%zu] %.1f s elapsed, ~%.1f s left  %s", done_, total_, el, left, what.c_str());
  std::fflush(stderr);
}

void Progress::done() {
  if (tty_) std::fprintf(stderr, "\r\033[K");
}

}  // namespace ltt
