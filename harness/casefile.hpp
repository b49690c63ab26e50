// Case files (DESIGN.md section 6): one safetensors file per input set, with
// every rank's inputs, the float64 truth, the emulated reference of each tier
// it covers and, in failure dumps or outputs to verify, implementations'
// outputs. Building one, and loading one back with every rule checked (the
// metadata must agree with the tensors; a message names the file, the tensor
// and the rule).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bounds.hpp"
#include "inputs.hpp"
#include "safetensors.hpp"

namespace ltt {

// The contract a case file's expected.tier{k} were made under: one reduction
// algorithm for the file, and an RMSNorm order that is either forced for
// every tier or "declared" (each tier's own: README, contracts table).
struct CaseContract {
  Algo algo = Algo::one_shot;
  std::optional<NormOrder> norm;  // nullopt: each tier's declared order
  Contract for_tier(int tier) const;
  std::string norm_name() const;  // "declared", "fused" or "round-then-weight"
};

SafeTensors make_case(const Inputs& in, const Truth& truth, const std::map<int, MatrixB>& expected, const CaseContract& c);

struct LoadedCase {
  Inputs in;
  CaseContract contract;
  std::vector<int> tiers;              // from the metadata
  std::map<int, MatrixB> expected;     // expected.tier{k} present in the file
  std::optional<MatD> expected_exact;  // when present
};

// Problem, contract and tiers from the metadata alone (no tensor read).
Result<LoadedCase> case_from_metadata(const SafeTensors& st, const std::string& file);
// All of it: the tensors must be there with the shapes the metadata give.
Result<LoadedCase> load_case(const SafeTensors& st, const std::string& file);

}  // namespace ltt
