// Problem shapes: every rejected shape fails as a usage error (exit code 2)
// whose message names the broken rule, and the shapes the tiers run on are
// accepted; parse_dims and the name/parse round trips; and the production
// runner's tier selection at its boundaries.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

#include "problem.hpp"
#include "support.hpp"

using namespace ltt;

namespace {

Problem shape(Dims d, int T, int M, Dist dist = Dist::realistic) { return test::problem(d, T, M, dist); }

// s is a usage error whose message contains every one of the fragments.
void check_usage(const Status& s, std::initializer_list<const char*> fragments) {
  REQUIRE_FALSE(s.ok());
  const Error& e = s.error();
  const std::string& msg = e.message;
  CAPTURE(msg);
  CHECK(e.code == Errc::usage);
  CHECK(e.exit_code() == 2);
  for (const char* f : fragments) {
    CAPTURE(f);
    CHECK(msg.find(f) != std::string::npos);
  }
}

// Rejected by validate() and so by validate_for_tier() for every tier.
void check_rejected(const Problem& p, std::initializer_list<const char*> fragments) {
  CAPTURE(p.describe());
  check_usage(validate(p), fragments);
  for (int tier = 0; tier < kNumTiers; ++tier) {
    CAPTURE(tier);
    check_usage(validate_for_tier(p, tier), fragments);
  }
}

void check_accepted(const Problem& p, int tier) {
  CAPTURE(p.describe());
  CAPTURE(tier);
  const Status s = validate_for_tier(p, tier);
  const std::string why = s.ok() ? std::string() : s.error().message;
  INFO(why);
  CHECK(s.ok());
  CHECK(validate(p).ok());
}

}  // namespace

TEST_CASE("problem: H and L must be divisible by T") {
  check_rejected(shape(kDimsK3, 3, 1), {"H = 7168 is not divisible by T = 3", "H % T == 0"});
  check_rejected(shape({256, 100}, 8, 1), {"L = 100 is not divisible by T = 8", "L % T == 0"});
  check_rejected(shape({1000, 512}, 16, 4), {"H = 1000 is not divisible by T = 16"});
}

TEST_CASE("problem: H, L, T and M must be positive") {
  for (int M : {0, -1}) {
    CAPTURE(M);
    check_rejected(shape(kDimsK3, 8, M), {"tokens: a batch needs M >= 1"});
  }
  for (int T : {0, -1, -8}) {
    CAPTURE(T);
    check_rejected(shape(kDimsK3, T, 1), {"TP size T = ", "must be >= 1"});
  }
  check_rejected(shape({0, 128}, 1, 1), {"must both be >= 1"});
  check_rejected(shape({256, 0}, 1, 1), {"must both be >= 1"});
}

TEST_CASE("problem: eps must be finite and positive") {
  const double inf = std::numeric_limits<double>::infinity();
  for (double eps : {0.0, -0.0, -1e-6, std::numeric_limits<double>::quiet_NaN(), inf, -inf}) {
    CAPTURE(eps);
    Problem p = shape(kDimsK3, 8, 1);
    p.eps = eps;
    check_rejected(p, {"must be a finite number > 0"});
  }
}

// Below L 2^-102, squares a member may flush to zero (up to L 2^-126 of the
// sum) can outweigh eps: the bound divides by ~0 there, and correct outputs
// failed (eps 1e-36 at L 128 gave NaN bounds), so such eps is bad input.
TEST_CASE("problem: eps below L 2^-102 is refused, at it accepted") {
  for (const Dims d : {kDimsK3, Dims{256, 128}}) {
    const double floor = d.L * std::ldexp(1.0, -102);
    Problem p = shape(d, 8, 1);
    p.eps = floor;
    CHECK(validate(p).ok());
    for (double eps : {std::nextafter(floor, 0.0), floor / 2, 1e-36, std::numeric_limits<double>::denorm_min()}) {
      CAPTURE(eps);
      p.eps = eps;
      check_rejected(p, {"is below L 2^-102"});
    }
  }
}

TEST_CASE("problem: the exact distribution needs T <= 256") {
  const Dims d{7168, 3584};  // divisible by 512
  check_rejected(shape(d, 512, 1, Dist::exact), {"the exact distribution needs T <= 256"});
  check_accepted(shape(d, 256, 1, Dist::exact), 1);
  check_accepted(shape(d, 512, 1, Dist::realistic), 1);
  check_accepted(shape(d, 512, 1, Dist::adversarial), 1);
}

TEST_CASE("problem: tier 0's own rules") {
  // Over 128 tokens: a decode tier.
  const Problem big = shape(kDimsK3, 8, 129);
  CAPTURE(big.describe());
  check_usage(validate_for_tier(big, 0), {"tier 0 (TAIL_FUSION) is a decode tier", "1 <= M <= 128", "got M = 129"});
  CHECK(validate(big).ok());
  for (int tier = 1; tier < kNumTiers; ++tier) check_accepted(big, tier);

  // A single rank: nothing to reduce-scatter.
  const Problem one = shape(kDimsK3, 1, 1);
  CAPTURE(one.describe());
  check_usage(validate_for_tier(one, 0), {"tier 0 (TAIL_FUSION) needs T >= 2", "got T = 1"});
  CHECK(validate(one).ok());
}

TEST_CASE("problem: tiers out of range") {
  const Problem p = shape(kDimsK3, 8, 1);
  for (int tier : {5, -1, kNumTiers, 100}) {
    CAPTURE(tier);
    check_usage(validate_for_tier(p, tier), {"does not exist", "tiers are 0..4"});
  }
  // The tier is checked before the shape.
  check_usage(validate_for_tier(shape(kDimsK3, 3, 0), 7), {"tier 7 does not exist"});
}

TEST_CASE("problem: accepted shapes") {
  for (int T : {8, 16})
    for (int tier = 0; tier < kNumTiers; ++tier) check_accepted(shape(kDimsK3, T, 128), tier);
  for (int T : {2, 4})
    for (int M : {1, 5, 128}) check_accepted(shape(kDimsSmall, T, M), 0);
  for (int tier = 1; tier < kNumTiers; ++tier)
    for (int M : {1, 129, 1000}) check_accepted(shape(kDimsK3, 1, M), tier);
}

TEST_CASE("problem: parse_dims") {
  struct Ok {
    const char* s;
    int H, L;
  };
  for (const Ok& c : {Ok{"k3", 7168, 3584}, Ok{"small", 256, 128}, Ok{"1024,512", 1024, 512}, Ok{"8,8", 8, 8}}) {
    CAPTURE(c.s);
    const Result<Dims> r = parse_dims(c.s);
    REQUIRE(r.ok());
    CHECK(r.value().H == c.H);
    CHECK(r.value().L == c.L);
  }
  CHECK(kDimsK3.H == 7168);
  CHECK(kDimsK3.L == 3584);
  for (const char* s : {"abc", "1024", "0,5", "-1,5", "12,x", "5,0", ",", "", "K3", "1024,512,8", " 256,128", "+256,128",
                        "256, 128", "256,+128", "256,128 "}) {  // digits alone, as every integer flag takes them
    CAPTURE(s);
    const Result<Dims> r = parse_dims(s);
    REQUIRE_FALSE(r.ok());
    check_usage(r.status(), {"k3", "not understood"});
    CHECK(r.error().message.find(std::string("'") + s + "'") != std::string::npos);  // echoes the input
  }
}

TEST_CASE("problem: names parse back") {
  for (Dist d : {Dist::realistic, Dist::exact, Dist::adversarial}) {
    CAPTURE(name(d));
    REQUIRE(parse_dist(name(d)).has_value());
    CHECK(*parse_dist(name(d)) == d);
  }
  for (Algo a : {Algo::one_shot, Algo::ring}) {
    CAPTURE(name(a));
    REQUIRE(parse_algo(name(a)).has_value());
    CHECK(*parse_algo(name(a)) == a);
  }
  for (NormOrder o : {NormOrder::round_then_weight, NormOrder::fused}) {
    CAPTURE(name(o));
    REQUIRE(parse_norm_order(name(o)).has_value());
    CHECK(*parse_norm_order(name(o)) == o);
  }
  CHECK(std::string(name(Algo::one_shot)) == "one-shot");
  CHECK(std::string(name(NormOrder::round_then_weight)) == "round-then-weight");
  CHECK(std::string(name(Mode::exact)) != name(Mode::emulated));
  CHECK_FALSE(parse_dist("bogus").has_value());
  CHECK_FALSE(parse_dist("").has_value());
  CHECK_FALSE(parse_algo("one_shot").has_value());
  CHECK_FALSE(parse_norm_order("Fused").has_value());
}

TEST_CASE("problem: select_tier at its boundaries") {
  for (int T : {8, 16}) {
    CAPTURE(T);
    CHECK(select_tier(T, 1, DType::bf16) == 0);
    CHECK(select_tier(T, 128, DType::bf16) == 0);
    CHECK(select_tier(T, 129, DType::bf16) == 1);
    CHECK(select_tier(T, 256, DType::bf16) == 1);
    CHECK(select_tier(T, 257, DType::bf16) == 2);
    CHECK(select_tier(T, 0, DType::bf16) != 0);  // M 0 is never tier 0
    CHECK(select_tier(T, -1, DType::bf16) != 0);
  }
  // Tier 0 only at T 8 and 16.
  for (int T : {1, 2, 4, 32}) {
    CAPTURE(T);
    CHECK(select_tier(T, 1, DType::bf16) == 1);
    CHECK(select_tier(T, 256, DType::bf16) == 1);
    CHECK(select_tier(T, 257, DType::bf16) == 2);
  }
  // Tier 0 only in bf16.
  for (DType dt : {DType::fp32, DType::fp16}) {
    CHECK(select_tier(8, 1, dt) == 1);
    CHECK(select_tier(16, 128, dt) == 1);
    CHECK(select_tier(8, 257, dt) == 2);
  }
  // Without the fused kernel.
  SelectionConfig no_fusion;
  no_fusion.device_supports_tail_fusion = false;
  CHECK(select_tier(8, 1, DType::bf16, no_fusion) == 1);
  CHECK(select_tier(16, 128, DType::bf16, no_fusion) == 1);
  CHECK(select_tier(8, 257, DType::bf16, no_fusion) == 2);
}

TEST_CASE("problem: select_tier's threshold and aux stream") {
  SelectionConfig cfg;
  cfg.shared_stream_token_threshold = 64;
  CHECK(select_tier(4, 64, DType::bf16, cfg) == 1);
  CHECK(select_tier(4, 65, DType::bf16, cfg) == 2);
  CHECK(select_tier(8, 64, DType::fp32, cfg) == 1);
  CHECK(select_tier(8, 65, DType::fp32, cfg) == 2);
  CHECK(select_tier(8, 65, DType::bf16, cfg) == 0);  // tier 0 still wins where it applies
  CHECK(select_tier(8, 129, DType::bf16, cfg) == 2);
  CHECK(select_tier(4, 0, DType::bf16, cfg) == 1);
}

TEST_CASE("problem: the selected tier accepts the problem") {
  for (int T : {1, 2, 4, 8, 16})
    for (int M : {1, 2, 127, 128, 129, 256, 257, 8192}) {
      const Problem p = shape(kDimsK3, T, M);
      const int tier = select_tier(T, M, DType::bf16);
      CAPTURE(p.describe());
      CAPTURE(tier);
      CHECK(validate_for_tier(p, tier).ok());
    }
}
