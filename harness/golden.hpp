// Golden tensors: `ltt golden` writes one case file per input set and a
// manifest.json (each file, its SHA-256, bytes, metadata); `ltt regress`
// regenerates every set of a manifest and compares bit for bit: whole files
// tensor by tensor, hash-only entries (k3 sizes) by their SHA-256.
// The folder is consistent at every instant: a file's name determines its
// contents (a manifest entry of the same name with other metadata is
// refused), each file lands (temporary, hash, rename) before the manifest is
// rewritten atomically to list it, and SIGINT, SIGTERM or SIGHUP remove the
// temporaries being written and hold off until a landed file is listed.
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
// html: also write the table as an HTML page there ("" for none).
Result<int> run_regress(const std::string& dir, const std::string& html = "", const std::string& command = "");

// The case file of one input set, built from nothing but its description.
Result<SafeTensors> build_case(const Problem& p, const std::vector<int>& tiers, const CaseContract& c,
                               const Inputs* weights = nullptr);
// H{H}_L{L}_T{T}_M{M}_{dist}_seed{seed}_{algo}_{norm}[_eps{eps}][_tiers{k...}].safetensors:
// _eps only when eps is not 1e-6 (the shortest %g spelling that reads back as
// the same double, e.g. _eps1e-05), _tiers only when `tiers` is not every
// tier that applies to the shape (the digits in order, e.g. _tiers2, _tiers13).
std::string case_file_name(const Problem& p, const std::vector<int>& tiers, const CaseContract& c);

}  // namespace ltt
