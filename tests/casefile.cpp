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
  const SafeTensors st = small_case();
  auto c = load_case(st, "x.safetensors");
  REQUIRE(c.ok());
  CHECK(c->in.p.T == 4);
  CHECK(c->in.p.M == 3);
  CHECK(c->in.p.H == 256);
  CHECK(c->tiers == std::vector<int>{1});
  CHECK(c->expected.count(1) == 1);
  CHECK_FALSE(c->contract.norm.has_value());  // "declared"
  const Inputs again = generate_inputs(c->in.p);
  CHECK(again.R[3] == c->in.R[3]);
  CHECK(again.W == c->in.W);
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
