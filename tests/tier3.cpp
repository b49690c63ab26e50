// Tier 3 (SINGLE_REDUCTION): one reduction of the concatenated [R | S]
// rows; under a ring its bits differ from one-shot's and both hold the
// tier's bound; at T 1 it is tier 4.
#include <doctest/doctest.h>

#include "support.hpp"

using namespace ltt;
using namespace ltt::test;

TEST_CASE("tier3: its ring and one-shot outputs differ, and both hold the bound") {
  const Problem p = problem(kDimsSmall, 8, 33);
  const Inputs in = generate_inputs(p);
  Reference ref(in);
  // Same rounding of N and the same epilogue as tier 0 but a replicated GEMM:
  // compare tier 3 against itself under two algorithms, and check both hold.
  auto ring = ref.emulated(3, {Algo::ring, NormOrder::round_then_weight});
  auto one = ref.emulated(3, {Algo::one_shot, NormOrder::round_then_weight});
  REQUIRE(ring.ok());
  REQUIRE(one.ok());
  CHECK(first_bitwise_difference((*ring)[0], (*one)[0]) >= 0);
  for (Algo a : {Algo::ring, Algo::one_shot}) {
    const Contract c{a, NormOrder::round_then_weight};
    auto y = a == Algo::ring ? *ring : *one;
    CHECK(compare_to_truth(y[0], ref.truth().Y, ref.bound(3, Mode::emulated, c), Mode::emulated).ok());
  }
}

TEST_CASE("tier3: at T 1 it is tier 4 (one epilogue, K = L)") {
  const Problem p = problem(kDimsSmall, 1, 17);
  const Inputs in = generate_inputs(p);
  Reference ref(in);
  auto a = ref.emulated(3, tier_def(3).contract);
  auto b = ref.emulated(4, tier_def(4).contract);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(first_bitwise_difference((*a)[0], (*b)[0]) == -1);
}
