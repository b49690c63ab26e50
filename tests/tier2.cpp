// Tier 2 (COLUMN_PARALLEL): the one reduce stitches the routed shards, and a
// rank that up-projects the wrong shard (r+1, an off-by-one) is caught by the
// bound.
#include <doctest/doctest.h>

#include "kernels.hpp"
#include "support.hpp"

using namespace ltt;
using namespace ltt::test;

namespace {

// tier2::run with the shard index shifted by one: the planted bug.
Status run_off_by_one(Ctx<EmulatedArith>& c) {
  const Problem& p = c.p;
  std::vector<MatF> Z = c.R;
  LTT_TRY(c.comm.allreduce(ptrs(Z), c.contract.algo));
  c.Y = c.S;
  for (size_t i = 0; i < c.n_local(); ++i) {
    const MatF N = rmsnorm<EmulatedArith>(Z[i], c.g, p.eps, c.contract.norm);
    const int col = c.rank(i) * p.Hs();
    const int wrong = ((c.rank(i) + 1) % p.T) * p.Hs();
    auto shard = c.Y[i].middleCols(col, p.Hs());
    MatF acc = gemm_nt<float>(N, c.W.middleRows(wrong, p.Hs())) + shard;
    round_bf16_inplace(acc);
    shard = acc;
  }
  return c.comm.allreduce(ptrs(c.Y), c.contract.algo);
}

}  // namespace

TEST_CASE("tier2: an off-by-one shard exceeds the bound") {
  const Problem p = problem(kDimsSmall, 8, 300);
  const Inputs in = generate_inputs(p);
  Reference ref(in);
  const MatF W = widen<float>(in.W), g = widen<float>(in.g);
  LocalComm<EmulatedArith> comm(p.T);
  Ctx<EmulatedArith> c{p, tier_def(2).contract, comm, {}, {}, g, W, {}};
  for (int r = 0; r < p.T; ++r) {
    c.R.push_back(widen<float>(in.R[static_cast<size_t>(r)]));
    c.S.push_back(widen<float>(in.S[static_cast<size_t>(r)]));
  }
  REQUIRE(run_off_by_one(c).ok());
  const ErrorStats st = compare_to_truth(narrow(c.Y[0]), ref.truth().Y, ref.bound(2, Mode::emulated, tier_def(2).contract), Mode::emulated);
  CHECK(st.over > 0);
  // ... while the real pipeline holds.
  auto y = ref.emulated(2, tier_def(2).contract);
  REQUIRE(y.ok());
  CHECK(compare_to_truth((*y)[0], ref.truth().Y, ref.bound(2, Mode::emulated, tier_def(2).contract), Mode::emulated).ok());
}
