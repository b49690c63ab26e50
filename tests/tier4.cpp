// Tier 4 (ROW_PARALLEL): each rank's partial up-projection covers only its
// latent shard; the shards must add up to the whole (exact mode), and its
// bound (K = L/T dot products, then a reduce) differs from tier 1's.
#include <doctest/doctest.h>

#include "support.hpp"

using namespace ltt;
using namespace ltt::test;

TEST_CASE("tier4: latent shards add up to the full product") {
  for (int T : {2, 8, 16}) {
    const Problem p = problem(kDimsSmall, T, 9);
    const Inputs in = generate_inputs(p);
    Reference ref(in);
    auto y = ref.exact(4, tier_def(4).contract);
    REQUIRE(y.ok());
    // Element by element, against its own scale (the sum of its terms'
    // magnitudes): float64's reordering error is at most gamma_{L+T} of it,
    // about 2e-14 here; 1e-12 leaves room, a wrong shard does not fit.
    const MatD d = (*y)[0] - ref.truth().Y;
    CHECK((d.array().abs() <= 1e-12 * ref.truth().scale().array()).all());
  }
}

TEST_CASE("tier4: its bound is not tier 1's (K = L/T dot products, then a reduce)") {
  const Problem p = problem(kDimsSmall, 8, 9);
  const Inputs in = generate_inputs(p);
  Reference ref(in);
  const MatD b4 = ref.bound(4, Mode::emulated, tier_def(4).contract);
  const MatD b1 = ref.bound(1, Mode::emulated, tier_def(1).contract);
  CHECK((b4.array() != b1.array()).any());
  CHECK((b4.array() > 0).all());
}
