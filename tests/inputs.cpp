// The input generator: addressable (a slice equals the same rows of the
// whole; a batch is the prefix of a larger one), keyed by seed, tensor and
// rank, stable across builds, and each distribution has its properties.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "support.hpp"

using namespace ltt;
using namespace ltt::test;

namespace {

uint64_t fnv1a(const MatrixB& m) {
  uint64_t h = 1469598103934665603ull;
  for (bf16 b : m.v)
    for (int s = 0; s < 16; s += 8) {
      h ^= (b.bits >> s) & 0xffu;
      h *= 1099511628211ull;
    }
  return h;
}

}  // namespace

TEST_CASE("inputs: a slice is the same rows of the whole, a batch the prefix of a larger one") {
  for (Dist dist : {Dist::realistic, Dist::exact, Dist::adversarial}) {
    CAPTURE(name(dist));
    const Problem big = problem(kDimsSmall, 8, 40, dist);
    const Problem small = problem(kDimsSmall, 8, 9, dist);
    const Inputs a = generate_inputs(big), b = generate_inputs(small);
    for (int r = 0; r < 8; ++r) {
      const MatrixB slice = generate(big, TensorId::shared, r, 17, 5);
      for (int i = 0; i < 5; ++i)
        for (int j = 0; j < big.H; ++j) CHECK(slice.at(i, j) == a.S[static_cast<size_t>(r)].at(17 + i, j));
      for (int i = 0; i < small.M; ++i)
        for (int j = 0; j < small.L; ++j) CHECK(b.R[static_cast<size_t>(r)].at(i, j) == a.R[static_cast<size_t>(r)].at(i, j));
    }
    CHECK(a.W == b.W);
    CHECK(a.g == b.g);
  }
}

TEST_CASE("inputs: seeds, tensors and ranks give different streams") {
  const Inputs a = generate_inputs(problem(kDimsSmall, 4, 8, Dist::realistic, 1));
  const Inputs b = generate_inputs(problem(kDimsSmall, 4, 8, Dist::realistic, 2));
  const Inputs c = generate_inputs(problem(kDimsSmall, 4, 8, Dist::realistic, 1ull << 40));
  CHECK_FALSE(a.R[0] == b.R[0]);
  CHECK_FALSE(a.R[0] == c.R[0]);  // the seed's high bits count too
  CHECK_FALSE(a.R[0] == a.R[1]);
  CHECK_FALSE(a.W == b.W);
}

TEST_CASE("inputs: the generator's bits are pinned (goldens depend on them)") {
  // Hashes of fixed tensors; a change here invalidates every golden file.
  const Problem p = problem(kDimsSmall, 8, 5, Dist::realistic, 42);
  CHECK(fnv1a(generate(p, TensorId::routed, 3, 0, 5)) == 0xe872166a5c190d52ull);
  CHECK(fnv1a(generate(p, TensorId::up_weight, 0, 0, p.H)) == 0xdbe0173fed461722ull);
  const Problem q = problem(kDimsSmall, 8, 8, Dist::adversarial, 42);
  CHECK(fnv1a(generate(q, TensorId::shared, 5, 0, 8)) == 0x58c3b442596b0220ull);
}

TEST_CASE("inputs: realistic moments") {
  const Problem p = problem(kDimsK3, 8, 64);
  const Inputs in = generate_inputs(p);
  const MatD R = widen<double>(in.R[0]), W = widen<double>(in.W), g = widen<double>(in.g), S = widen<double>(in.S[0]);
  auto stdev = [](const MatD& m) { return std::sqrt((m.array() - m.mean()).square().mean()); };
  CHECK(std::fabs(R.mean()) < 1e-4);
  CHECK(stdev(R) == doctest::Approx(0.01).epsilon(0.02));
  CHECK(stdev(W) * std::sqrt(3584.0) == doctest::Approx(1.0).epsilon(0.01));
  CHECK(g.mean() == doctest::Approx(1.0).epsilon(0.01));
  CHECK(stdev(S) * std::sqrt(8.0) == doctest::Approx(1.0).epsilon(0.02));
  // Irwin-Hall 4: bounded by 2 sqrt(3) sigma.
  CHECK(R.cwiseAbs().maxCoeff() <= 0.01 * 2 * std::sqrt(3.0) * 1.01);
}

TEST_CASE("inputs: the exact distribution is integers on a shared exponent") {
  for (int T : {1, 8, 16}) {
    const Problem p = problem(kDimsSmall, T, 16, Dist::exact);
    const Inputs in = generate_inputs(p);
    const double B = std::max(1, 256 / T);
    for (int r = 0; r < T; ++r) {
      const MatD R = widen<double>(in.R[static_cast<size_t>(r)]) * 128.0;  // units of 2^-7
      const MatD S = widen<double>(in.S[static_cast<size_t>(r)]) * 8.0;    // units of 2^-3
      CHECK((R.array() == R.array().round()).all());
      CHECK((S.array() == S.array().round()).all());
      CHECK(R.cwiseAbs().maxCoeff() <= B);
      CHECK(S.cwiseAbs().maxCoeff() <= B);
      CHECK(R.cwiseAbs().maxCoeff() > 0);
    }
  }
}

TEST_CASE("inputs: the adversarial row kinds are what they say") {
  // Each kind's property is checked on its own rows, and the special values
  // (NaN, inf, bf16 max, subnormals, -0 in S) are checked to appear nowhere
  // else: a kind that lost its property, or leaked into another, fails.
  const Problem p = problem(kDimsSmall, 8, 16, Dist::adversarial, 3);
  const Inputs in = generate_inputs(p);
  auto subnormal = [](bf16 b) { return (b.bits & 0x7f80) == 0 && (b.bits & 0x7f) != 0; };
  auto R = [&](int r, int i, int j) { return in.R[static_cast<size_t>(r)].at(i, j); };
  auto S = [&](int r, int i, int j) { return in.S[static_cast<size_t>(r)].at(i, j); };
  int rows_of[kAdversarialKinds] = {};
  for (int i = 0; i < p.M; ++i) {
    const RowKind k = row_kind(p.seed, i);
    const std::string kind = name(k);
    CAPTURE(kind);
    CAPTURE(i);
    ++rows_of[static_cast<int>(k)];
    double zsum = 0, rsum = 0;
    long neg_zero_s = 0, pos_zero_s = 0, sub_r = 0, nonzero_r = 0;
    for (int j = 0; j < p.L; ++j) {
      double z = 0;
      for (int r = 0; r < p.T; ++r) {
        const bf16 b = R(r, i, j);
        z += to_double(b);
        rsum += std::fabs(to_double(b));
        sub_r += subnormal(b);
        nonzero_r += (b.bits & 0x7fff) != 0;
        if (k == RowKind::zero_routed) CHECK(b.bits == (r % 2 ? 0x8000 : 0x0000));
        if (k == RowKind::order_probe && j % 16 == 3) {
          const double sign = j % 32 == 19 ? -1.0 : 1.0;
          const double want = r == 0 ? 16777216.0 : r == 1 ? 1.0 : r == 2 ? -16777216.0 : 0.0;
          CHECK(to_double(b) == sign * want);
        }
      }
      zsum += std::fabs(z);
    }
    for (int r = 0; r < p.T; ++r)
      for (int j = 0; j < p.H; ++j) {
        const bf16 b = S(r, i, j);
        neg_zero_s += b.bits == 0x8000;
        pos_zero_s += b.bits == 0x0000;
        const bool special = std::isnan(to_double(b)) || std::isinf(to_double(b)) || (b.bits & 0x7fff) == 0x7f7f;
        if (k != RowKind::extremes) CHECK_FALSE(special);
        if (k != RowKind::subnormal) CHECK_FALSE(subnormal(b));
        // -0 in S: its own kind's, and tiny negatives that underflow in subnormal rows
        if (k != RowKind::signed_zeros && k != RowKind::subnormal) CHECK(b.bits != 0x8000);
      }
    if (k != RowKind::subnormal) CHECK(sub_r == 0);
    switch (k) {
      case RowKind::zero_routed: CHECK(zsum == 0.0); break;
      case RowKind::outlier: CHECK(zsum > 100.0); break;
      case RowKind::cancel:  // the pairs cancel to rank 0's 1e-4 perturbation
        CHECK(zsum > 0.0);
        CHECK(zsum < 0.05 * rsum);
        break;
      case RowKind::signed_zeros: {  // each about 1/16 of S
        const double n = static_cast<double>(p.T) * p.H;
        CHECK(neg_zero_s > n / 32);
        CHECK(neg_zero_s < n / 8);
        CHECK(pos_zero_s > n / 32);
        CHECK(pos_zero_s < n / 8);
        break;
      }
      case RowKind::subnormal: CHECK(sub_r > 0); CHECK(sub_r == nonzero_r); break;
      case RowKind::extremes: {
        CHECK(std::isnan(to_double(S(0, i, 41))));
        CHECK(S(0, i, 73).bits == 0xff80);
        CHECK(S(0, i, 9).bits == 0x7f7f);
        CHECK(S(1, i, 9).bits == 0x7f7f);
        CHECK(S(0, i, 5).bits == 0x7f7f);
        CHECK(S(0, i, 37).bits == 0xff7f);
        for (int r = 1; r < p.T; ++r) CHECK(S(r, i, 41).bits == 0x0000);
        break;
      }
      default: break;
    }
  }
  for (int k = 0; k < kAdversarialKinds; ++k) {
    const std::string kind = name(static_cast<RowKind>(k));
    CAPTURE(kind);
    CHECK(rows_of[k] >= 1);  // 16 rows hold every kind
  }
}
