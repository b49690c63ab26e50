// gpu_mma: tier 0's MMA kernel (gpu/shard_mma.cu) on integer operands, whose
// products and sums fp32 holds exactly in any order, so that every element
// of Y must be exactly the bf16 of the exact N W^T + S: a misplaced
// swizzle, fragment, slice, stride or token edge shows as a wrong element,
// with no tolerance to hide it. Every product width (mma_width(): 16 ..
// 128 tokens, and M off them), every cluster size along K, one to eight
// chunks a block at every width, the most chunks that fit the shared memory
// at each width (22 at n 16 .. 8 at 128), and k3's shards. Needs a GPU of
// compute capability 9.0: elsewhere it says it is skipped (the ctest entry
// gpu.mma_exact reports the skip).
#include <doctest/doctest.h>

#include <cstdio>

#include "cuda_backend.hpp"
#include "shard_plan.hpp"

using namespace ltt;
using namespace ltt::gpu;

TEST_CASE("gpu_mma: integer operands give the exact product at every width and cluster size") {
  struct Shape {
    int M, n, K, ck;
  };
  std::vector<Shape> shapes;
  for (int M : {1, 5, 8, 16, 17, 31, 32, 33, 48, 64, 65, 90, 96, 100, 127, 128})
    for (int ck : {1, 2, 4, 8}) shapes.push_back({M, 128, 512, ck});  // 8 .. 1 chunks a slice
  for (int M : {1, 16, 17, 64, 128}) {
    shapes.push_back({M, 896, 3584, 8});  // k3, T 8
    shapes.push_back({M, 448, 3584, 8});  // k3, T 16
    shapes.push_back({M, 64, 4096, 8});   // eight chunks a block
  }
  // The most chunks a block at each width (one block a cluster): 22 at n 16,
  // 18 at 32, 13 at 64, 11 at 80, 10 at 96, 8 at 112 and 128.
  for (const Shape& s : {Shape{16, 64, 1408, 1}, Shape{32, 64, 1152, 1}, Shape{64, 128, 832, 1}, Shape{80, 64, 704, 1},
                         Shape{96, 64, 640, 1}, Shape{112, 64, 512, 1}, Shape{128, 64, 512, 1}}) {
    shapes.push_back(s);
    CHECK_FALSE(mma_takes(1, s.M, s.n, s.K + 64));  // one chunk more does not fit
  }
  for (const Shape& s : shapes) {
    CAPTURE(s.M);
    CAPTURE(s.n);
    CAPTURE(s.K);
    CAPTURE(s.ck);
    REQUIRE(mma_takes(s.ck, s.M, s.n, s.K));
    auto r = mma_exact(s.M, s.n, s.K, s.ck);
    if (!r.ok() && r.error().code == Errc::usage) {
      std::printf("gpu_mma: skipped: %s\n", r.error().message.c_str());
      return;
    }
    REQUIRE_MESSAGE(r.ok(), r.error().describe());
    CHECK_MESSAGE(r->empty(), *r);
  }
  std::printf("gpu_mma: %zu shapes exact\n", shapes.size());
}
