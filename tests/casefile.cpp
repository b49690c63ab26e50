// Case files: what make_case() writes, load_case() reads back whole, and
// metadata that contradict the tensors are refused with the file, the tensor
// and the rule named.
#include <doctest/doctest.h>

#include "casefile.hpp"
#include "support.hpp"

using namespace ltt;
using namespace ltt::test;

namespace {

SafeTensors small_case() {
  const Problem p = problem(kDimsSmall, 4, 3);
  const Inputs in = generate_inputs(p);
  Reference ref(in);
  auto y = ref.emulated(1, tier_def(1).contract);
  REQUIRE(y.ok());
  return make_case(in, ref.truth(), {{1, (*y)[0]}}, CaseContract{});
}

std::string load_error(const SafeTensors& st) {
  auto c = load_case(st, "x.safetensors");
  REQUIRE_FALSE(c.ok());
  CHECK(c.error().code == Errc::usage);
  return c.error().message;
}

}  // namespace

TEST_CASE("casefile: round trip of a case, metadata and tensors") {
  const Problem p = problem(kDimsSmall, 4, 3);
  const Inputs in = generate_inputs(p);
  Reference ref(in);
  auto y = ref.emulated(1, tier_def(1).contract);
  REQUIRE(y.ok());
  const SafeTensors st = make_case(in, ref.truth(), {{1, (*y)[0]}}, CaseContract{});
  auto c = load_case(st, "x.safetensors");
  REQUIRE(c.ok());
  // Every metadata field and every tensor comes back as written.
  CHECK(c->in.p.T == p.T);
  CHECK(c->in.p.M == p.M);
  CHECK(c->in.p.H == p.H);
  CHECK(c->in.p.L == p.L);
  CHECK(c->in.p.eps == p.eps);
  CHECK(c->in.p.seed == p.seed);
  CHECK(c->in.p.dist == p.dist);
  CHECK(c->tiers == std::vector<int>{1});
  CHECK(c->contract.algo == Algo::one_shot);
  CHECK_FALSE(c->contract.norm.has_value());  // "declared"
  REQUIRE(c->in.R.size() == in.R.size());
  REQUIRE(c->in.S.size() == in.S.size());
  for (size_t r = 0; r < in.R.size(); ++r) {
    CAPTURE(r);
    CHECK(c->in.R[r] == in.R[r]);
    CHECK(c->in.S[r] == in.S[r]);
  }
  CHECK(c->in.g == in.g);
  CHECK(c->in.W == in.W);
  REQUIRE(c->expected.count(1) == 1);
  CHECK(c->expected.at(1) == (*y)[0]);
  REQUIRE(c->expected_exact.has_value());
  CHECK(bitwise_equal(*c->expected_exact, ref.truth().Y));
}

TEST_CASE("casefile: metadata that contradict the tensors") {
  SafeTensors st = small_case();
  st.metadata["tokens"] = "4";
  CHECK(load_error(st).find("routed.rank0") != std::string::npos);
  st = small_case();
  st.metadata["tp"] = "8";
  CHECK(load_error(st).find("routed.rank4") != std::string::npos);
  st = small_case();
  st.metadata["tp"] = "2";
  CHECK(load_error(st).find("'routed.rank2' exists but __metadata__ 'tp' = 2") != std::string::npos);
  st = small_case();
  st.metadata["hidden"] = "128";
  CHECK(load_error(st).find("shared.rank0") != std::string::npos);
  st = small_case();
  st.metadata.erase("eps");
  CHECK(load_error(st).find("'eps'") != std::string::npos);
  st = small_case();
  st.metadata["dist"] = "gaussian";
  CHECK(load_error(st).find("'dist' = 'gaussian'") != std::string::npos);
  st = small_case();
  st.metadata["tiers"] = "1,7";
  CHECK(load_error(st).find("'tiers' = '1,7'") != std::string::npos);
  st = small_case();
  st.metadata["latent"] = "100";  // 100 % 4 == 0 but the tensors are 128 wide
  CHECK(load_error(st).find("routed.rank0") != std::string::npos);
  st = small_case();
  st.metadata["tokens"] = "0";
  CHECK(load_error(st).find("'tokens' = '0'") != std::string::npos);
}
