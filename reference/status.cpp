// Error formatting: the one place that decides how an error reads.
#include "status.hpp"

namespace ltt {

std::string Error::describe() const {
  std::string s;
  if (rank >= 0) s += cat("rank ", rank, ": ");
  s += message;
  if (file && *file) s += cat(" (", file, ":", line, ")");
  return s;
}

}  // namespace ltt
