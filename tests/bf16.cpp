// bf16 conversions against known bit patterns: round to nearest even from
// float and directly from double (no double rounding through float), signed
// zeros, overflow to infinity, NaN, subnormals; exact widening of all 65536
// patterns; bf16_ulp and ulp_distance; and a property check of
// to_bf16(double) and to_bf16(float) against a slow exact reference.
#include <doctest/doctest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "bf16.hpp"

using namespace ltt;

namespace {

uint16_t bits_of(float f) { return to_bf16(f).bits; }
uint16_t bits_of(double d) { return to_bf16(d).bits; }
bf16 pattern(uint16_t b) { return bf16{b}; }

bool is_nan_bits(uint16_t b) { return (b & 0x7f80u) == 0x7f80u && (b & 0x007fu) != 0; }

double p2(int e) { return std::ldexp(1.0, e); }

// Slow exact reference: round finite or infinite d to bf16, nearest even.
// Positive patterns 0..0x7f80 are ordered like their values; 0x7f80 stands
// for 2^128 so that the midpoint between the largest finite value and it is
// the overflow threshold. Every pattern value and every midpoint between
// neighbours is exact in double, so comparing d with the midpoint is exact.
uint16_t reference_bf16(double d) {
  const uint16_t sign = std::signbit(d) ? 0x8000u : 0u;
  const double a = std::fabs(d);
  auto value = [](uint32_t p) { return p == 0x7f80u ? p2(128) : to_double(pattern(static_cast<uint16_t>(p))); };
  if (a >= p2(128)) return sign | 0x7f80u;
  // Largest pattern lo in [0, 0x7f7f] with value(lo) <= a.
  uint32_t lo = 0, hi = 0x7f80u;  // value(lo) <= a < value(hi)
  while (hi - lo > 1) {
    const uint32_t mid = (lo + hi) / 2;
    if (value(mid) <= a) lo = mid;
    else hi = mid;
  }
  if (value(lo) == a) return static_cast<uint16_t>(sign | lo);
  const double midpoint = (value(lo) + value(hi)) / 2;  // exact: both are bf16 values
  uint32_t r;
  if (a < midpoint) r = lo;
  else if (a > midpoint) r = hi;
  else r = (lo & 1u) ? hi : lo;
  return static_cast<uint16_t>(sign | r);
}

}  // namespace

TEST_CASE("bf16: simple values from float and double") {
  CHECK(bits_of(1.0f) == 0x3f80);
  CHECK(bits_of(1.0) == 0x3f80);
  CHECK(bits_of(-2.0f) == 0xc000);
  CHECK(bits_of(-2.0) == 0xc000);
  CHECK(bits_of(0.0f) == 0x0000);
  CHECK(bits_of(0.0) == 0x0000);
  CHECK(bits_of(-0.0f) == 0x8000);
  CHECK(bits_of(-0.0) == 0x8000);
  CHECK(to_float(pattern(0x3f80)) == 1.0f);
  CHECK(to_double(pattern(0xc000)) == -2.0);
  CHECK(std::signbit(to_float(pattern(0x8000))));
}

TEST_CASE("bf16: ties to even, and just above a tie") {
  struct Case {
    double x;
    uint16_t want;
  };
  const Case cases[] = {
      {1 + p2(-8), 0x3f80},              // tie between 0x3f80 and 0x3f81: even is 0x3f80
      {1 + 3 * p2(-8), 0x3f82},          // tie between 0x3f81 and 0x3f82: even is 0x3f82
      {1 + p2(-8) + p2(-20), 0x3f81},    // just above a tie: up
      {1 + 3 * p2(-8) - p2(-20), 0x3f81},  // just below a tie: down
  };
  for (const Case& c : cases) {
    for (double s : {1.0, -1.0}) {
      const double x = s * c.x;
      const uint16_t want = static_cast<uint16_t>(c.want | (s < 0 ? 0x8000u : 0u));
      CAPTURE(x);
      CAPTURE(want);
      REQUIRE(static_cast<double>(static_cast<float>(x)) == x);  // exact as float
      CHECK(bits_of(static_cast<float>(x)) == want);
      CHECK(bits_of(x) == want);
    }
  }
}

TEST_CASE("bf16: double path does not round twice") {
  // Each x rounds to float exactly onto a bf16 midpoint, so going through
  // float first would resolve a tie that x itself is not; the direct
  // conversion must see which side of the midpoint x lies on.
  struct Case {
    double x;
    uint16_t want;
    uint16_t via_float;  // what (float) x then bf16 would give
  };
  const Case cases[] = {
      {1 + p2(-8) + p2(-40), 0x3f81, 0x3f80},      // above the 0x3f80/0x3f81 midpoint
      {1 + p2(-8) - p2(-40), 0x3f80, 0x3f80},      // below it
      {1 + 3 * p2(-8) + p2(-40), 0x3f82, 0x3f82},  // above the 0x3f81/0x3f82 midpoint
      {1 + 3 * p2(-8) - p2(-40), 0x3f81, 0x3f82},  // below it
      {1 + p2(-8) + p2(-52), 0x3f81, 0x3f80},      // one double ulp above
      {std::nextafter(1 + 3 * p2(-8), 0.0), 0x3f81, 0x3f82},  // one double ulp below
      {p2(-134) + p2(-170), 0x0001, 0x0000},       // subnormal midpoint 0/0x0001, above
      {3 * p2(-134) - p2(-170), 0x0001, 0x0002},   // subnormal midpoint 0x0001/0x0002, below
  };
  for (const Case& c : cases) {
    for (double s : {1.0, -1.0}) {
      const double x = s * c.x;
      const uint16_t sign = s < 0 ? 0x8000u : 0u;
      CAPTURE(x);
      const float f = static_cast<float>(x);
      REQUIRE((float_bits(f) & 0xffffu) == 0x8000u);  // float lands on the midpoint
      CHECK(bits_of(f) == (c.via_float | sign));
      CHECK(bits_of(x) == (c.want | sign));
      CHECK(bits_of(x) == reference_bf16(x));
    }
  }
}

TEST_CASE("bf16: largest finite value and overflow") {
  CHECK(to_double(pattern(0x7f7f)) == kBf16Max);
  CHECK(bits_of(kBf16Max) == 0x7f7f);
  CHECK(bits_of(static_cast<float>(kBf16Max)) == 0x7f7f);
  CHECK(bits_of(-kBf16Max) == 0xff7f);

  // The overflow threshold: max + half an ulp = 2^128 - 2^119 ~ 3.39618e38;
  // the tie itself goes to the even neighbour 0x7f80 (infinity).
  const double mid = p2(128) - p2(119);
  CHECK(bits_of(mid) == 0x7f80);
  CHECK(bits_of(static_cast<float>(mid)) == 0x7f80);
  for (double x : {3.3962e38, mid + p2(90), std::nextafter(mid, 1e300)}) {
    CAPTURE(x);
    CHECK(bits_of(x) == 0x7f80);
    CHECK(bits_of(-x) == 0xff80);
    CHECK(bits_of(static_cast<float>(x)) == 0x7f80);
  }
  // Just below the threshold stays finite (3.3961e38 is below it too).
  for (double x : {3.3961e38, mid - p2(90), std::nextafter(mid, 0.0)}) {
    CAPTURE(x);
    CHECK(bits_of(x) == 0x7f7f);
    CHECK(bits_of(-x) == 0xff7f);
  }
  CHECK(bits_of(static_cast<float>(mid - p2(104))) == 0x7f7f);  // float just below

  CHECK(bits_of(FLT_MAX) == 0x7f80);
  CHECK(bits_of(-FLT_MAX) == 0xff80);
  CHECK(bits_of(static_cast<double>(FLT_MAX)) == 0x7f80);
  CHECK(bits_of(1e300) == 0x7f80);
  CHECK(bits_of(-1e300) == 0xff80);
  CHECK(bits_of(std::numeric_limits<float>::infinity()) == 0x7f80);
  CHECK(bits_of(-std::numeric_limits<float>::infinity()) == 0xff80);
  CHECK(bits_of(std::numeric_limits<double>::infinity()) == 0x7f80);
  CHECK(bits_of(-std::numeric_limits<double>::infinity()) == 0xff80);
}

TEST_CASE("bf16: NaN stays NaN with its sign") {
  const float qf = std::numeric_limits<float>::quiet_NaN();
  const double qd = std::numeric_limits<double>::quiet_NaN();
  const float payload_low = bits_float(0x7f800001u);  // mantissa only in the dropped bits
  const float neg_payload_low = bits_float(0xff800001u);
  struct Case {
    uint16_t got;
    bool negative;
    const char* what;
  };
  const Case cases[] = {
      {bits_of(qf), false, "float qNaN"},
      {bits_of(-qf), true, "float -qNaN"},
      {bits_of(qd), false, "double qNaN"},
      {bits_of(-qd), true, "double -qNaN"},
      {bits_of(payload_low), false, "float NaN 0x7f800001"},
      {bits_of(neg_payload_low), true, "float NaN 0xff800001"},
      {bits_of(static_cast<double>(qf)), false, "double from float qNaN"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    CAPTURE(c.got);
    CHECK(is_nan_bits(c.got));
    CHECK(((c.got & 0x8000u) != 0) == c.negative);
    CHECK(std::isnan(to_float(pattern(c.got))));
  }
}

TEST_CASE("bf16: subnormals and underflow") {
  CHECK(p2(-133) == kBf16MinSubnormal);
  CHECK(to_double(pattern(0x0001)) == kBf16MinSubnormal);
  struct Case {
    double x;
    uint16_t want;
  };
  const Case cases[] = {
      {p2(-133), 0x0001},
      {p2(-134), 0x0000},      // tie between 0 and 2^-133: even is 0
      {3 * p2(-134), 0x0002},  // tie between 0x0001 and 0x0002: even is 0x0002
      {5 * p2(-134), 0x0002},  // tie between 0x0002 and 0x0003: even is 0x0002
      {p2(-134) + p2(-149), 0x0001},  // just above the tie, still a float
      {p2(-126), 0x0080},      // smallest normal
      {127 * p2(-133), 0x007f},  // largest subnormal
      {p2(-149), 0x0000},      // float's smallest subnormal
  };
  for (const Case& c : cases) {
    for (double s : {1.0, -1.0}) {
      const double x = s * c.x;
      const uint16_t want = static_cast<uint16_t>(c.want | (s < 0 ? 0x8000u : 0u));
      CAPTURE(x);
      CAPTURE(want);
      REQUIRE(static_cast<double>(static_cast<float>(x)) == x);
      CHECK(bits_of(static_cast<float>(x)) == want);
      CHECK(bits_of(x) == want);
    }
  }
  // Below float's subnormal range: a signed zero.
  CHECK(bits_of(1e-50) == 0x0000);
  CHECK(bits_of(-1e-50) == 0x8000);
  CHECK(bits_of(p2(-151)) == 0x0000);
  CHECK(bits_of(-p2(-151)) == 0x8000);
  CHECK(bits_of(std::numeric_limits<double>::denorm_min()) == 0x0000);
  CHECK(bits_of(-std::numeric_limits<double>::denorm_min()) == 0x8000);
}

TEST_CASE("bf16: every pattern widens exactly and converts back") {
  int nan_patterns = 0;
  for (uint32_t b = 0; b < 0x10000u; ++b) {
    const bf16 x = pattern(static_cast<uint16_t>(b));
    if (is_nan_bits(x.bits)) {
      ++nan_patterns;
      // NaN comes back as NaN, quieted, sign kept.
      const uint16_t want = static_cast<uint16_t>(b | 0x0040u);
      if (to_bf16(to_float(x)).bits != want || !std::isnan(to_double(x))) {
        CAPTURE(b);
        CHECK(to_bf16(to_float(x)).bits == want);
        CHECK(std::isnan(to_double(x)));
      }
      continue;
    }
    // Only report failures, to keep the assertion count readable.
    if (to_bf16(to_float(x)) == x && to_bf16(to_double(x)) == x &&
        static_cast<double>(to_float(x)) == to_double(x) && round_bf16(to_float(x)) == to_float(x))
      continue;
    CAPTURE(b);
    CHECK(to_bf16(to_float(x)).bits == b);
    CHECK(to_bf16(to_double(x)).bits == b);
    CHECK(static_cast<double>(to_float(x)) == to_double(x));
    CHECK(round_bf16(to_float(x)) == to_float(x));
  }
  CHECK(nan_patterns == 2 * 127);
}

TEST_CASE("bf16: bf16_ulp") {
  CHECK(bf16_ulp(1.0) == p2(-7));
  CHECK(bf16_ulp(-1.0) == p2(-7));
  CHECK(bf16_ulp(1.5) == p2(-7));
  CHECK(bf16_ulp(std::nextafter(2.0, 0.0)) == p2(-7));
  CHECK(bf16_ulp(2.0) == p2(-6));
  CHECK(bf16_ulp(0.75) == p2(-8));
  CHECK(bf16_ulp(kBf16Max) == p2(120));
  CHECK(bf16_ulp(p2(-126)) == p2(-133));  // smallest normal: same spacing as subnormals
  CHECK(bf16_ulp(p2(-130)) == p2(-133));
  CHECK(bf16_ulp(kBf16MinSubnormal) == p2(-133));
  CHECK(bf16_ulp(0.0) == p2(-133));
  CHECK(bf16_ulp(-0.0) == p2(-133));
  // The ulp is the distance to the next pattern up, for normal values.
  for (int b : {0x0080, 0x3f80, 0x3fc0, 0x4000, 0x3f40, 0x7f00, 0x0001}) {
    CAPTURE(b);
    CHECK(bf16_ulp(to_double(pattern(static_cast<uint16_t>(b)))) == to_double(pattern(static_cast<uint16_t>(b + 1))) - to_double(pattern(static_cast<uint16_t>(b))));
  }
}

TEST_CASE("bf16: ulp_distance") {
  CHECK(ulp_distance(1.0, 1.0, 1.0) == 0.0);
  CHECK(ulp_distance(0.0, -0.0, 1.0) == 0.0);
  CHECK(ulp_distance(-0.0, 0.0, 0.0) == 0.0);
  CHECK(ulp_distance(3.5, 3.5, 0.0) == 0.0);
  CHECK(ulp_distance(1.0, 1.0 + p2(-7), 0.0) == 1.0);
  CHECK(ulp_distance(1.0 + p2(-7), 1.0, 1.0) == 1.0);
  CHECK(ulp_distance(-1.0, -1.0 - p2(-7), 0.0) == 1.0);
  CHECK(ulp_distance(2.0, 2.0 + 3 * p2(-6), 1.0) == 3.0);
  // The error scale: a small difference measured in ulps of the scale.
  CHECK(ulp_distance(0.01, 0.01 + p2(-7), 1.0) == doctest::Approx(1.0).epsilon(1e-12));
  CHECK(ulp_distance(0.25, 0.25 + p2(-7), 1.0) == 1.0);
  CHECK(ulp_distance(0.25, 0.25 + p2(-7), -1.0) == 1.0);
  CHECK(ulp_distance(0.25, 0.25 + p2(-9), 0.0) == 1.0);  // scale 0: the operands set it
}

TEST_CASE("bf16: to_bf16 matches a slow exact reference on random values") {
  std::mt19937_64 rng(0x5eed'bf16u);
  std::uniform_int_distribution<int> exp_dist(-160, 128);  // below subnormals to above max
  std::uniform_int_distribution<uint64_t> mant_dist(0, (uint64_t{1} << 52) - 1);
  std::uniform_int_distribution<int> pattern_dist(0, 0x7f7f);
  std::uniform_int_distribution<int> kind_dist(0, 3);
  std::uniform_int_distribution<int> shift_dist(9, 60);

  constexpr int kSamples = 1'000'000;
  int mismatches_d = 0, mismatches_f = 0, near_ties = 0;
  for (int i = 0; i < kSamples; ++i) {
    double x;
    const int kind = kind_dist(rng);
    if (kind <= 1) {
      // Log-uniform magnitude with a full 53-bit significand.
      x = std::ldexp(1.0 + static_cast<double>(mant_dist(rng)) * p2(-52), exp_dist(rng));
    } else {
      // A bf16 midpoint, exactly or nudged by a relative 2^-9..2^-60 either way.
      const auto p = static_cast<uint16_t>(pattern_dist(rng));
      const double lo = to_double(pattern(p));
      const double hi = p == 0x7f7f ? p2(128) : to_double(pattern(static_cast<uint16_t>(p + 1)));
      const double mid = (lo + hi) / 2;
      ++near_ties;
      if (kind == 2) x = mid;
      else {
        const double nudge = std::max(mid * p2(-shift_dist(rng)), std::numeric_limits<double>::denorm_min());
        x = (rng() & 1) ? mid + nudge : mid - nudge;
      }
    }
    if (rng() & 1) x = -x;

    const uint16_t want = reference_bf16(x);
    const uint16_t got = bits_of(x);
    if (got != want) {
      if (++mismatches_d <= 10) {
        CAPTURE(x);
        CAPTURE(want);
        CAPTURE(got);
        CHECK(got == want);
      }
    }
    // The float path, on values that are floats.
    const auto f = static_cast<float>(x);
    if (std::isfinite(f)) {
      const uint16_t want_f = reference_bf16(static_cast<double>(f));
      if (bits_of(f) != want_f && ++mismatches_f <= 10) {
        CAPTURE(f);
        CAPTURE(want_f);
        CHECK(bits_of(f) == want_f);
      }
    }
  }
  CAPTURE(near_ties);
  CHECK(mismatches_d == 0);
  CHECK(mismatches_f == 0);
}
