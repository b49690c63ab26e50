// Error formatting: the one place that decides how an error reads.
#include "status.hpp"

#include <cstdio>
#include <cstdlib>

namespace ltt {

std::string printable(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u != 0x7f) {
      out += c;
      continue;
    }
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '\0': out += "\\0"; break;
      default: {
        static const char hex[] = "0123456789abcdef";
        out += "\\x";
        out += hex[u >> 4];
        out += hex[u & 15];
      }
    }
  }
  return out;
}

std::string Error::describe() const {
  std::string s;
  if (rank >= 0) s += cat("rank ", rank, ": ");
  s += printable(message);
  if (file && *file) s += cat(" (", file, ":", line, ")");
  return s;
}

std::string shortest(double x) {
  char b[40];
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(b, sizeof b, "%.*g", prec, x);
    if (std::strtod(b, nullptr) == x) break;
  }
  return b;
}

}  // namespace ltt
