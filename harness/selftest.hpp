// `ltt selftest`: the reference checks itself against the float64 truth.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "problem.hpp"
#include "status.hpp"

namespace ltt {

struct SelftestOptions {
  Dims dims = kDimsK3;
  std::vector<int> tp = {8, 16};
  std::vector<int> tokens = {1, 33, 128};
  std::vector<Dist> dists = {Dist::realistic, Dist::adversarial, Dist::exact};
  uint64_t seed = 0;
  double eps = 1e-6;
  std::optional<Algo> algo;  // override every tier's declared reduction algorithm
  bool bench = false;
};

// Returns the exit code: 0 every case within bounds, 1 otherwise.
Result<int> run_selftest(const SelftestOptions& o);

}  // namespace ltt
