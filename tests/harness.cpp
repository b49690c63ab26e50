// The harness's own guarantees that a run's checks rest on: outputs are
// poisoned with a NaN that no arithmetic produces before every run, so an
// element a backend never writes cannot pass for a computed one. And what a
// long run says while it works: progress that shows it is alive without
// filling a log.
#include <doctest/doctest.h>

#include <omp.h>
#include <sys/resource.h>
#include <xmmintrin.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "backend.hpp"
#include "bf16.hpp"
#include "check.hpp"
#include "member.hpp"
#include "cuda_backend.hpp"
#include "outfile.hpp"
#include "report.hpp"
#include "table.hpp"
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

TEST_CASE("harness: the watchdog does not time the harness's own work") {
  // A check longer than --timeout is no hang: were it timed, the watchdog
  // would end this test binary with exit 1 while it sleeps.
  {
    const ltt::Watchdog dog(0.2, "the watchdog test");
    ltt::watchdog_own_work("tier 1 T 8 M 2048 realistic: checking");
    std::this_thread::sleep_for(std::chrono::milliseconds(900));
    CHECK(ltt::watchdog_current_stage() == "tier 1 T 8 M 2048 realistic: checking");
    {  // a wait inside it keeps its own timer, and gives the untimed stage back after
      const ltt::WatchdogWaiting waiting("waiting for process 0");
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    CHECK(ltt::watchdog_current_stage() == "tier 1 T 8 M 2048 realistic: checking");
  }
}

namespace {
double fake_now = 1000.0;
double fake_clock() { return fake_now; }

// What a Progress wrote to its file so far.
std::string written(FILE* f) {
  std::fflush(f);
  const long n = std::ftell(f);
  std::string s(static_cast<size_t>(n), '\0');
  std::rewind(f);
  CHECK(std::fread(s.data(), 1, s.size(), f) == s.size());
  std::fseek(f, 0, SEEK_END);
  return s;
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t i = s.find(what); i != std::string::npos; i = s.find(what, i + 1)) ++n;
  return n;
}
}  // namespace

TEST_CASE("harness: progress, in a log, a line at most once a minute, with the steps done and the time left") {
  FILE* f = std::tmpfile();
  REQUIRE(f != nullptr);
  fake_now = 1000.0;
  Progress p(10, f, false, fake_clock);
  // A long step's inner progress every second for three minutes: three lines, not 180.
  for (int s = 1; s <= 180; ++s) {
    fake_now = 1000.0 + s;
    p.within("variant " + std::to_string(s));
  }
  std::string out = written(f);
  CHECK(count(out, "\n") == 3);
  CHECK(out.find("ltt: [0/10] 60.0 s elapsed: variant 60\n") != std::string::npos);
  CHECK(out.find("ltt: [0/10] 180.0 s elapsed: variant 180\n") != std::string::npos);
  // Two steps end at 200 s: the second is within the minute of the last line, so not shown ...
  fake_now = 1200.0;
  p.step("case 1");
  p.step("case 2");
  CHECK(written(f) == out);
  // ... until a minute has passed: 3 of 10 done in 250 s, so the other 7 take ~583 s.
  fake_now = 1250.0;
  p.step("case 3");
  out = written(f);
  CHECK(out.find("ltt: [3/10] 250.0 s elapsed, ~583.3 s left: case 3\n") != std::string::npos);
  p.done();
  CHECK(written(f) == out);  // nothing to clear in a log
  std::fclose(f);
}

TEST_CASE("harness: progress, on a terminal, every step and at most four inner lines a second, each rewriting the last") {
  FILE* f = std::tmpfile();
  REQUIRE(f != nullptr);
  fake_now = 5.0;
  Progress p(4, f, true, fake_clock);
  for (int i = 1; i <= 100; ++i) {  // 100 calls in one second
    fake_now = 5.0 + 0.01 * i;
    p.within("algorithm " + std::to_string(i));
  }
  std::string out = written(f);
  const size_t inner = count(out, "\r\033[K");
  CHECK(inner >= 3);
  CHECK(inner <= 4);
  CHECK(count(out, "\n") == 0);
  fake_now = 6.0;
  p.step("case 1");
  p.step("case 2");  // steps are shown at once, however close
  out = written(f);
  CHECK(count(out, "\r\033[K") == inner + 2);
  CHECK(out.find("[2/4] 1.0 s elapsed, ~1.0 s left  case 2") != std::string::npos);
  p.done();
  CHECK(written(f).size() > out.size());  // the line cleared
  std::fclose(f);
}

namespace {
std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream b;
  b << f.rdbuf();
  return b.str();
}
}  // namespace

TEST_CASE("harness: a not-finished note that cannot be written whole empties the earlier report, and the run goes on") {
  // A file-size limit makes every write past 64 bytes fail part way (EFBIG),
  // as a full disk would: the note (longer) cannot be written whole, so the
  // earlier passing report must not stay to be read as this run's.
  char dir[] = "/tmp/ltt-unfinished-XXXXXX";
  REQUIRE(::mkdtemp(dir) != nullptr);
  const std::string earlier = std::string(dir) + "/r.json", fresh = std::string(dir) + "/new.json";
  { std::ofstream(earlier) << "{\"finished\": true, \"pass\": true}\n"; }
  const std::string note(300, 'n');
  rlimit old{};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &old) == 0);
  auto* const was = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = old;
  small.rlim_cur = 64;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
  const Status a = mark_unfinished("--json", earlier, note);
  const Status b = mark_unfinished("--json", fresh, note);
  const Status whole = write_text_file("--json", fresh, note);  // a report's own write still fails, and says so
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, was);
  CHECK(a.ok());
  CHECK(b.ok());
  CHECK_FALSE(whole.ok());
  const std::string left = slurp(earlier);
  CHECK(left.find("pass") == std::string::npos);  // emptied, then as much of the note as the limit let in
  CHECK(left == note.substr(0, left.size()));
  CHECK_FALSE(std::ifstream(fresh).good());  // nothing made where nothing was
  std::remove(earlier.c_str());
  CHECK(::rmdir(dir) == 0);  // the folder held nothing else: no temporary left
}

TEST_CASE("harness: a count in a report takes its noun's plural (\"2 processes\", not \"2 processs\")") {
  CHECK(counted(1, "case") == "1 case");
  CHECK(counted(0, "case") == "0 cases");
  CHECK(counted(3, "element") == "3 elements");
  CHECK(counted(1, "process") == "1 process");
  CHECK(counted(2, "process") == "2 processes");
  CHECK(counted(8, "pass") == "8 passes");
  CHECK(counted(2, "box") == "2 boxes");
}

// A member with ftz() runs under a FlushGuard. A team larger than any
// before makes the runtime start workers inside it, as copies of the calling
// thread; the guard used to set the calling thread first, so those workers
// started flushing, saved that as their own mode and flushed for good: with
// 3 or more OpenMP threads the emulated reference then flushed subnormal
// rows after such a member, and sets held their wrong values (found on the
// GPU machine's 8 threads; ctest's 2 had made every worker earlier).
TEST_CASE("harness: a flush guard leaves no thread flushing, not even a worker started inside it") {
  const int n0 = omp_get_max_threads(), n = n0 + 17;  // a team size nothing else here asks for
  auto modes = [n] {
    std::set<unsigned> m;
#pragma omp parallel num_threads(n)
    {
      const unsigned c = _mm_getcsr() & 0x8040u;
#pragma omp critical(ltt_test_modes)
      m.insert(c);
    }
    return m;
  };
  const unsigned before = _mm_getcsr() & 0x8040u;
  REQUIRE(before == 0);
  omp_set_num_threads(n);
  std::set<unsigned> inside, after;
  {
    const FlushGuard guard(true);
    inside = modes();
  }
  after = modes();
  omp_set_num_threads(n0);
  CHECK(inside == std::set<unsigned>{0x8040u});
  CHECK(after == std::set<unsigned>{0u});
  CHECK((_mm_getcsr() & 0x8040u) == 0);
  {
    const FlushGuard off(false);  // a member without ftz(): nothing changes
    CHECK(modes() == std::set<unsigned>{0u});
  }
}
