// The harness's own guarantees that a run's checks rest on: outputs are
// poisoned with a NaN that no arithmetic produces before every run, so an
// element a backend never writes cannot pass for a computed one.
#include <doctest/doctest.h>

#include <cmath>

#include "backend.hpp"
#include "bf16.hpp"
#include "check.hpp"
#include "cuda_backend.hpp"
#include "report.hpp"
#include "watchdog.hpp"

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

TEST_CASE("harness: ranks in several processes must give the fake-rank bits where ltt's transport fixes the order") {
  CaseResult r;
  CHECK(r.failed_checks().empty());  // not compared (-1): nothing to say
  r.fake_ranks_differ = 0;
  r.fake_elems_differ = 0;
  r.fake_must_match = true;
  CHECK(r.failed_checks().empty());
  r.fake_ranks_differ = 1;  // one rank's output not the fake-rank run's: a failure of the ipc transport
  r.fake_elems_differ = 3;
  CHECK(r.failed_checks() == std::vector<std::string>{"fake-ranks"});
  r.fake_must_match = false;  // NCCL's own order: reported, not failed
  CHECK(r.failed_checks().empty());
}

TEST_CASE("harness: --gemm-algos selects the heuristic's algorithms, the split-K forms, or indices within the list") {
  const std::string split = gpu::kGemmSplitForm;
  const std::vector<std::string> list = {"id 66, tile 10, split-K 1", "id 66, tile 12, split-K 2",
                                         split + "id 66, tile 10, split-K 4", split + "id 66, tile 12, split-K 8"};
  CHECK(*select_gemm_algos("all", list) == std::vector<int>{0, 1, 2, 3});
  CHECK(*select_gemm_algos("listed", list) == std::vector<int>{0, 1});
  CHECK(*select_gemm_algos("split-k", list) == std::vector<int>{2, 3});
  CHECK(*select_gemm_algos("1,3-9", list) == std::vector<int>{1, 3});  // past the list: left out
  CHECK(select_gemm_algos("5-9", list)->empty());
  CHECK(select_gemm_algos("all", {})->empty());  // a path with no cuBLAS GEMM
  for (const char* bad : {"heuristic", "", "3-1", "-1"}) {
    auto r = select_gemm_algos(bad, list);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == Errc::usage);
    CHECK(r.error().message.find("--gemm-algos") != std::string::npos);
  }
}

TEST_CASE("harness: a wait on the other processes is the watchdog's stage for its length only") {
  // A hang after the wait must be reported where it is, not as the wait.
  ltt::watchdog_stage("tier 1 T 8 M 5: backend run 1");
  {
    const ltt::WatchdogWaiting waiting("waiting for the other processes in MPI_Barrier");
    CHECK(ltt::watchdog_current_stage() == "waiting for the other processes in MPI_Barrier");
  }
  CHECK(ltt::watchdog_current_stage() == "tier 1 T 8 M 5: backend run 1");
}
