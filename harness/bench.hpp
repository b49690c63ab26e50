// `ltt bench --backend cuda`: what the cuda backend's kernels and tiers cost on
// the GPU at hand, beside the memory roofline (bytes moved / the copy
// bandwidth measured in the same run): one RMSNorm, tier 0's per-rank compute,
// the full up-projection GEMM, and every tier end to end on fake ranks.
#pragma once

#include <string>
#include <vector>

#include "problem.hpp"
#include "status.hpp"

namespace ltt {

struct BenchOptions {
  Dims dims = kDimsK3;
  std::vector<int> tp = {8};
  std::vector<int> tokens = {1, 5, 33, 128, 256, 2048, 8192};
  std::vector<int> tiers = {0, 1, 2, 3, 4};
  int reps = 20;
  std::string backend = "cuda";
  std::string json;
  std::string machine_out;  // write the fitted timing-model calibration here (ltt simulate --machine)
  std::string command;
};

Result<int> run_bench(const BenchOptions& o);

}  // namespace ltt
