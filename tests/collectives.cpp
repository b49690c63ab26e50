// The collectives: on the exact distribution every algorithm and every order
// gives bit-identical sums equal to the float64 sum; on realistic data the
// orders differ (so the check above can fail); the ring follows its chunk
// order as comm.hpp states it.
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "comm.hpp"
#include "kernels.hpp"
#include "support.hpp"

using namespace ltt;
using namespace ltt::test;

namespace {

std::vector<MatF> widen_all(const std::vector<MatrixB>& v) {
  std::vector<MatF> out;
  for (const auto& m : v) out.push_back(widen<float>(m));
  return out;
}

MatD exact_sum(const std::vector<MatrixB>& v) {
  MatD s = MatD::Zero(v[0].rows, v[0].cols);
  for (const auto& m : v) s += widen<double>(m);
  return s;
}

// Same shape, not empty, every element equal: an output left empty or cut
// short is not equal.
bool equals(const MatF& a, const MatD& b) {
  if (a.size() == 0 || a.rows() != b.rows() || a.cols() != b.cols()) return false;
  for (Eigen::Index e = 0; e < a.size(); ++e)
    if (static_cast<double>(a.data()[e]) != b.data()[e]) return false;
  return true;
}

}  // namespace

TEST_CASE("collectives: exact distribution, every algorithm and order, bit-identical sums") {
  std::mt19937 rng(1);
  for (int T : {1, 2, 3, 8, 16}) {
    // Odd T (3) needs H, L divisible: use H 96, L 48.
    const Problem p = problem(T == 3 ? Dims{96, 48} : kDimsSmall, T, 33, Dist::exact);
    const Inputs in = generate_inputs(p);
    for (const auto* tensor : {&in.R, &in.S}) {
      CAPTURE(T);
      const MatD truth = exact_sum(*tensor);
      LocalComm<EmulatedArith> comm(T);
      for (Algo algo : {Algo::one_shot, Algo::ring}) {
        auto buf = widen_all(*tensor);
        REQUIRE(comm.allreduce(ptrs(buf), algo).ok());
        for (const auto& b : buf) CHECK(equals(b, truth));
      }
      // Reduce-scatter over column shards, both algorithms, then all-gather.
      for (Algo algo : {Algo::one_shot, Algo::ring}) {
        auto in_f = widen_all(*tensor);
        std::vector<MatF> shards(static_cast<size_t>(T)), full(static_cast<size_t>(T));
        REQUIRE(comm.reduce_scatter_cols(cptrs(in_f), ptrs(shards), algo).ok());
        // Rank r's shard: columns [r w, (r + 1) w) of the sum.
        const Eigen::Index w = truth.cols() / T;
        for (int r = 0; r < T; ++r) CHECK(equals(shards[static_cast<size_t>(r)], truth.middleCols(r * w, w)));
        REQUIRE(comm.allgather_cols(cptrs(shards), ptrs(full)).ok());
        for (const auto& f : full) CHECK(equals(f, truth));
      }
      // Any order, rounded per hop or not.
      auto in_f = widen_all(*tensor);
      std::vector<int> order(static_cast<size_t>(T));
      std::iota(order.begin(), order.end(), 0);
      for (int trial = 0; trial < 6; ++trial) {
        std::shuffle(order.begin(), order.end(), rng);
        std::vector<const float*> src;
        for (int q : order) src.push_back(in_f[static_cast<size_t>(q)].data());
        for (Algo algo : {Algo::one_shot, Algo::ring}) {
          MatF out(in_f[0].rows(), in_f[0].cols());
          ordered_sum<EmulatedArith>(src, out.data(), static_cast<size_t>(out.size()), algo);
          CHECK(equals(out, truth));
        }
      }
    }
  }
}

TEST_CASE("collectives: on realistic data the algorithms differ (the exact check can fail)") {
  const Problem p = problem(kDimsSmall, 16, 33, Dist::realistic);
  const Inputs in = generate_inputs(p);
  LocalComm<EmulatedArith> comm(16);
  auto a = widen_all(in.S), b = widen_all(in.S);
  REQUIRE(comm.allreduce(ptrs(a), Algo::one_shot).ok());
  REQUIRE(comm.allreduce(ptrs(b), Algo::ring).ok());
  CHECK_FALSE(a[0] == b[0]);
  CHECK_FALSE(equals(a[0], exact_sum(in.S)));
}

TEST_CASE("collectives: the ring's order, chunk by chunk") {
  // An order probe: T = 3,
  // values {2^24, 1, -2^24} on ranks {0, 1, 2}. One-shot (0, 1, 2) in fp32
  // gives (2^24 + 1) - 2^24 = 0. Ring chunk c starts at rank c+1:
  // chunk 0 sums ranks 1, 2, 0: (1 - 2^24) + 2^24 -> bf16(1 - 2^24) = -2^24, so 0;
  // chunk 1 sums ranks 2, 0, 1: (-2^24 + 2^24) + 1 = 1;
  // chunk 2 sums ranks 0, 1, 2: bf16(2^24 + 1) = 2^24, - 2^24 = 0.
  const int T = 3;
  std::vector<MatF> buf(T, MatF(1, 3));
  const float v[3] = {16777216.0f, 1.0f, -16777216.0f};
  for (int q = 0; q < T; ++q) buf[static_cast<size_t>(q)].setConstant(v[q]);
  LocalComm<EmulatedArith> comm(T);
  auto ring = buf;
  REQUIRE(comm.allreduce(ptrs(ring), Algo::ring).ok());
  CHECK(ring[0](0, 0) == 0.0f);
  CHECK(ring[0](0, 1) == 1.0f);
  CHECK(ring[0](0, 2) == 0.0f);
  auto one = buf;
  REQUIRE(comm.allreduce(ptrs(one), Algo::one_shot).ok());
  for (int j = 0; j < 3; ++j) CHECK(one[2](0, j) == 0.0f);
  CHECK(chunk_begin(10, 3, 0) == 0);
  CHECK(chunk_begin(10, 3, 1) == 3);
  CHECK(chunk_begin(10, 3, 2) == 6);
  CHECK(chunk_begin(10, 3, 3) == 10);
}
