// Tier 1 (ALLREDUCE_OVERLAP): the replicated up-projection is computed once
// per distinct input, never reused for a rank whose input differs; its
// declared order rounds N twice (vLLM's rms_norm), which is not tier 0's.
#include <doctest/doctest.h>

#include "kernels.hpp"
#include "support.hpp"

using namespace ltt;
using namespace ltt::test;

TEST_CASE("tier1: per-rank work is shared only between bitwise-equal inputs") {
  std::vector<MatF> in(4, MatF::Constant(2, 3, 1.0f));
  in[2](1, 1) = 2.0f;  // rank 2 differs
  int calls = 0;
  auto out = per_rank_dedup(in, [&](const MatF& m) {
    ++calls;
    return MatF(m * 10.0f);
  });
  CHECK(calls == 3);  // ranks 0, 2, and 3 (3 differs from 2)
  for (size_t i = 0; i < in.size(); ++i) CHECK(out[i] == in[i] * 10.0f);
}

TEST_CASE("tier1: the RMSNorm rounding order is visible in the bits") {
  const Problem p = problem(kDimsSmall, 8, 33);
  const Inputs in = generate_inputs(p);
  Reference ref(in);
  auto a = ref.emulated(1, {Algo::one_shot, NormOrder::round_then_weight});
  auto b = ref.emulated(1, {Algo::one_shot, NormOrder::fused});
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(first_bitwise_difference((*a)[0], (*b)[0]) >= 0);
}
