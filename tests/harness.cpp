// The harness's own guarantees that a run's checks rest on: outputs are
// poisoned with a NaN that no arithmetic produces before every run, so an
// element a backend never writes cannot pass for a computed one.
#include <doctest/doctest.h>

#include <cmath>

#include "backend.hpp"
#include "bf16.hpp"

using namespace ltt;

TEST_CASE("harness: outputs start poisoned, every element, with a NaN no arithmetic produces") {
  const auto out = poisoned_outputs(3, 5, 16);
  REQUIRE(out.size() == 3);
  size_t n = 0;
  for (const auto& m : out) {
    CHECK(m.rows == 5);
    CHECK(m.cols == 16);
    for (bf16 v : m.v) n += v.bits == kPoison ? 1 : 0;
  }
  CHECK(n == 3 * 5 * 16);
  // A NaN (so never inside a finite admissible set) ...
  CHECK(std::isnan(to_double(bf16{kPoison})));
  // ... that rounding a NaN result does not give (the quiet NaN of arithmetic differs).
  CHECK(to_bf16(std::nanf("")).bits != kPoison);
  volatile float zero = 0.0f;
  CHECK(to_bf16(zero / zero).bits != kPoison);
}
