// `ltt check --invariance`: does a token's output depend on what else runs?
//   batch      each token's row bitwise identical across M (a batch of M
//              tokens is the prefix of any larger one), per tier and T;
//   switch     how far the rows drift where the production selection
//              switches tiers (M 128 -> 129, 256 -> 257): a ULP histogram;
//   tp         T 8 against T 16 on the same sums: the T 16 partials are an
//              exact split of the T 8 ones (x = bf16(x/2) + rest), so only
//              the decomposition differs: a ULP histogram per tier;
//   rerun      every run repeated: the same bits (else exit 1).
// Fake ranks (one process).
#pragma once

#include "check.hpp"

namespace ltt {

Result<int> run_invariance(const CheckOptions& o);

}  // namespace ltt
