// Tier 2 (COLUMN_PARALLEL): the one reduce stitches the routed shards, and a
// rank that up-projects the wrong shard (r+1, an off-by-one) is caught by the
// bound.
#include <doctest/doctest.h>

#include "support.hpp"

using namespace ltt;
using namespace ltt::test;

TEST_CASE("tier2: an off-by-one shard exceeds the bound") {
  const Problem p = problem(kDimsSmall, 8, 300);
  const Inputs in = generate_inputs(p);
  Reference ref(in);
  const MatF W = widen<float>(in.W), g = widen<float>(in.g);
  LocalComm<EmulatedArith> comm(p.T);
  Ctx<EmulatedArith> c{p, tier_def(2).contract, comm, {}, {}, g, W, {}};
  c.fault_shard_rank = 3;  // rank 3 up-projects shard 4
  for (int r = 0; r < p.T; ++r) {
    c.R.push_back(widen<float>(in.R[static_cast<size_t>(r)]));
    c.S.push_back(widen<float>(in.S[static_cast<size_t>(r)]));
  }
  REQUIRE(tier_def(2).run_emulated(c).ok());
  const ErrorStats st = compare_to_truth(narrow(c.Y[0]), ref.truth().Y, ref.bound(2, Mode::emulated, tier_def(2).contract), Mode::emulated);
  CHECK(st.over > 0);
  // ... while the real pipeline holds.
  auto y = ref.emulated(2, tier_def(2).contract);
  REQUIRE(y.ok());
  CHECK(compare_to_truth((*y)[0], ref.truth().Y, ref.bound(2, Mode::emulated, tier_def(2).contract), Mode::emulated).ok());
}
