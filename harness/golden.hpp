// Golden tensors: `ltt golden` writes one case file per input set and a
// manifest.json (each file, its SHA-256, bytes, metadata); `ltt regress`
// regenerates every set of a manifest and compares bit for bit: whole files
// tensor by tensor, hash-only entries (k3 sizes) by their SHA-256.
#pragma once

#include <string>

#include "casefile.hpp"
#include "check.hpp"

namespace ltt {

struct GoldenOptions {
  CheckOptions sel;  // tp, tiers, tokens, dims, dists, seed, eps, algo
  std::optional<NormOrder> norm;
  std::string out;
  bool hash_only = false;  // record the files' hashes in the manifest, keep no file
};

Result<int> run_golden(const GoldenOptions& o);
Result<int> run_regress(const std::string& dir);

// The case file of one input set, built from nothing but its description.
Result<SafeTensors> build_case(const Problem& p, const std::vector<int>& tiers, const CaseContract& c,
                               const Inputs* weights = nullptr);
std::string case_file_name(const Problem& p, const CaseContract& c);

}  // namespace ltt
