// Tier 0 (TAIL_FUSION): the Lamport all-gather publishes no -0, tier 0 is
// refused outside 1 <= M <= 128 and T >= 2, and forced by hand it runs at any
// T >= 2 that divides H and L.
#include <doctest/doctest.h>

#include "support.hpp"

using namespace ltt;
using namespace ltt::test;

TEST_CASE("tier0: no -0 reaches the output, even from -0 inputs") {
  // Adversarial inputs at seed 0 (row 0: signed zeros in S, row 2: -0 routed
  // partials on odd ranks). With eps = 1e3 the subnormal row 6 gives
  // N ~ 2^-133 and N W^T below half of it in places: negative ones round to -0, a real -0
  // that only the Lamport writer's canonicalisation keeps off the wire.
  Problem p = problem(kDimsSmall, 8, 8, Dist::adversarial, 0);
  p.eps = 1e3;
  Inputs in = generate_inputs(p);
  for (auto& S : in.S)
    for (int j = 0; j < p.H; ++j) S.at(6, j) = bf16{0x8000};
  Reference ref(in);
  auto y0 = ref.emulated(0, tier_def(0).contract);
  auto y3 = ref.emulated(3, tier_def(0).contract);  // same contract, no Lamport
  REQUIRE(y0.ok());
  REQUIRE(y3.ok());
  size_t neg0_tier0 = 0, neg0_tier3 = 0;
  for (size_t e = 0; e < (*y0)[0].size(); ++e) {
    neg0_tier0 += (*y0)[0].v[e].bits == 0x8000;
    neg0_tier3 += (*y3)[0].v[e].bits == 0x8000;
  }
  CHECK(neg0_tier0 == 0);
  CHECK(neg0_tier3 > 0);  // the case does produce -0 where nothing prevents it
}

TEST_CASE("tier0: refused outside its range, with the rule named") {
  for (auto [T, M] : {std::pair{1, 5}, std::pair{8, 129}, std::pair{16, 300}}) {
    const Problem p = problem(kDimsSmall, T, M);
    const Inputs in = generate_inputs(p);
    Reference ref(in);
    auto y = ref.emulated(0, tier_def(0).contract);
    REQUIRE_FALSE(y.ok());
    CHECK(y.error().code == Errc::usage);
    CHECK(y.error().message.find("tier 0") != std::string::npos);
  }
}

TEST_CASE("tier0: forced at T 2 and 4 it is still right") {
  for (int T : {2, 4}) {
    const Problem p = problem(kDimsSmall, T, 33);
    const Inputs in = generate_inputs(p);
    Reference ref(in);
    auto y = ref.emulated(0, tier_def(0).contract);
    REQUIRE(y.ok());
    const ErrorStats st = compare_to_truth((*y)[0], ref.truth().Y, ref.bound(0, Mode::emulated, tier_def(0).contract), Mode::emulated);
    CHECK(st.ok());
  }
}
