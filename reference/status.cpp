// Error formatting: the one place that decides how an error reads.
#include "status.hpp"

#include <cstdio>
#include <cstdlib>

namespace ltt {

size_t utf8_length(const std::string& s, size_t i) {
  const auto at = [&](size_t k) { return k < s.size() ? static_cast<unsigned char>(s[k]) : 0u; };
  const unsigned b = at(i);
  if (i >= s.size()) return 0;
  if (b < 0x80) return 1;
  // The lead byte's length and the range its first continuation byte may take
  // (no overlong form, no surrogate, nothing past U+10FFFF).
  size_t n = 0;
  unsigned lo = 0x80, hi = 0xbf;
  if (b >= 0xc2 && b <= 0xdf) n = 2;
  else if (b == 0xe0) n = 3, lo = 0xa0;
  else if (b == 0xed) n = 3, hi = 0x9f;
  else if (b >= 0xe1 && b <= 0xef) n = 3;
  else if (b == 0xf0) n = 4, lo = 0x90;
  else if (b >= 0xf1 && b <= 0xf3) n = 4;
  else if (b == 0xf4) n = 4, hi = 0x8f;
  else return 0;
  if (at(i + 1) < lo || at(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if (at(i + k) < 0x80 || at(i + k) > 0xbf) return 0;
  return n;
}

std::string printable(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x80) {  // UTF-8 kept; a byte that is none of it escaped (a terminal or a report would garble it)
      if (const size_t n = utf8_length(s, i); n > 0) {
        out.append(s, i, n);
        i += n - 1;
        continue;
      }
    } else if (u >= 0x20 && u != 0x7f) {
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
