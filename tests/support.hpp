// Helpers shared by the tests: problems, and running a tier through the
// reference with its declared contract.
#pragma once

#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "compare.hpp"
#include "inputs.hpp"
#include "reference.hpp"

namespace ltt::test {

inline Problem problem(Dims d, int T, int M, Dist dist = Dist::realistic, uint64_t seed = 7) {
  return make_problem(d, T, M, dist, seed);
}

// Tiers that accept p (tier 0 needs T >= 2 and M <= 128), required to be
// exactly those: a loop over them must not pass having run fewer.
inline std::vector<int> tiers_for(const Problem& p) {
  std::vector<int> t;
  for (const auto& d : tier_table())
    if (validate_for_tier(p, d.id).ok()) t.push_back(d.id);
  std::vector<int> expected = {1, 2, 3, 4};
  if (p.T >= 2 && p.M <= 128) expected.insert(expected.begin(), 0);
  REQUIRE(t == expected);
  return t;
}

inline bool bitwise_equal(const MatD& a, const MatD& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<size_t>(a.size())) == 0;
}

}  // namespace ltt::test
