// Errors as values: a Status carries what went wrong, where (file, line) and on
// which TP rank, and travels up the stack; only main() turns it into an exit
// code (0 pass, 1 numerical failure, 2 bad input or usage).
#pragma once

#include <cstddef>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace ltt {

enum class Errc {
  usage = 2,      // bad flags, bad shapes, malformed files: the user can fix it
  numerical = 1,  // an implementation's output failed its check
  internal = 3,   // a broken invariant inside ltt, or a failed system call
};

struct Error {
  Errc code = Errc::internal;
  std::string message;
  const char* file = "";
  int line = 0;
  int rank = -1;  // TP rank the error arose on, -1 when not rank-specific
  int os_errno = 0;  // the OS's errno where an OS call failed (a write: ENOSPC), else 0

  // "rank 3: message (reference/x.cpp:12)"
  std::string describe() const;
  int exit_code() const { return code == Errc::numerical ? 1 : 2; }
};

// Concatenates its arguments through an ostream: cat("T = ", t, " is odd").
template <class... A>
std::string cat(const A&... a) {
  std::ostringstream os;
  (os << ... << a);
  return os.str();
}

// The shortest %g spelling of x that strtod reads back as x itself: a
// figure in a message or a command (reproduce) that means the very number
// used (cat's six digits do not: --ulp-frac 0.04218749 read 0.0421875).
std::string shortest(double x);

// s with its control characters written as escapes (\n, \t, \0, \xHH), so a
// name holding them (a file called "a\nb") stays on its one line of a report
// or message, and a NUL no longer cuts the rest of the line off; a byte that
// is no part of well-formed UTF-8 is written \xHH too (UTF-8 is kept).
std::string printable(const std::string& s);
// The length (1 to 4) of the well-formed UTF-8 sequence that starts at byte
// i of s, or 0 where none does (a stray or truncated byte, an overlong form,
// a surrogate, past U+10FFFF, or i past the end).
size_t utf8_length(const std::string& s, size_t i);

// A count and its noun: counted(1, "case") is "1 case", counted(3, "case") "3 cases",
// counted(2, "process") "2 processes".
inline std::string counted(size_t n, const char* noun) {
  const std::string_view w(noun);
  const auto ends = [&w](std::string_view e) { return w.size() >= e.size() && w.substr(w.size() - e.size()) == e; };
  const bool es = ends("s") || ends("x") || ends("ch") || ends("sh");
  return cat(n, " ", noun, n == 1 ? "" : es ? "es" : "s");
}

// Joins a range's elements with sep between them, each shown by show (by
// default as it streams): join(names) is "a, b, c", join(ranks, ",") "0,3",
// join(mutants(), ", ", [](const auto& m) { return m.name; }) names them.
struct AsStreamed {
  template <class T>
  const T& operator()(const T& x) const {
    return x;
  }
};
template <class Range, class Show = AsStreamed>
std::string join(const Range& r, const char* sep = ", ", Show show = {}) {
  std::ostringstream os;
  const char* between = "";
  for (const auto& x : r) {
    os << between << show(x);
    between = sep;
  }
  return os.str();
}

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error e) : err_(std::move(e)) {}  // NOLINT: implicit by design
  bool ok() const { return !err_.has_value(); }
  const Error& error() const { return *err_; }
  Error& error() { return *err_; }
  // Names the rank on an error that does not name one yet.
  Status& on_rank(int r) {
    if (err_ && err_->rank < 0) err_->rank = r;
    return *this;
  }

 private:
  std::optional<Error> err_;
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T v) : v_(std::move(v)) {}      // NOLINT
  Result(Error e) : v_(std::move(e)) {}  // NOLINT
  Result(Status s) : v_(std::move(s.error())) {}  // NOLINT: s must hold an error
  bool ok() const { return v_.index() == 0; }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  T* operator->() { return &value(); }
  const Error& error() const { return std::get<1>(v_); }
  Status status() const { return ok() ? Status{} : Status{error()}; }

 private:
  std::variant<T, Error> v_;
};

}  // namespace ltt

#define LTT_ERR(code, ...) ::ltt::Error{(code), ::ltt::cat(__VA_ARGS__), __FILE__, __LINE__, -1}
#define LTT_USAGE(...) LTT_ERR(::ltt::Errc::usage, __VA_ARGS__)
#define LTT_TRY(expr)                         \
  do {                                        \
    ::ltt::Status ltt_try_s_ = (expr);        \
    if (!ltt_try_s_.ok()) return ltt_try_s_;  \
  } while (0)
