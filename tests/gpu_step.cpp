// gpu_step: the check ltt bench puts on every tier 0 row's output
// (gpu/step_check.hpp), without a GPU. Steps computed here in fp32 in other
// orders than the check's (blocked and reversed sums, the fp32 RMSNorm of
// the fused order, every rounding to bf16 where the kernels round) pass;
// outputs with a planted fault fail: the next shard's rows of W, S left
// out, the weight g left out, an unwritten (poisoned) element, one element
// moved by half the row's RMS.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "step_check.hpp"

using namespace ltt;
using namespace ltt::gpu;

namespace {

constexpr uint16_t kPoison = 0x7fa5;

struct Case {
  int M, n, K;
  StepOperands op;
  std::vector<bf16> w_all;  // [2 n, K]: this shard's rows, then the next shard's
};

std::vector<bf16> randn(size_t count, double sd, std::mt19937_64& rng) {
  std::normal_distribution<double> d(0, sd);
  std::vector<bf16> v(count);
  for (bf16& x : v) x = to_bf16(d(rng));
  return v;
}

Case make(int M, int n, int K, bool norm, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Case c{M, n, K, {}, {}};
  c.op.M = M;
  c.op.n = n;
  c.op.K = K;
  c.op.a = randn(static_cast<size_t>(M) * K, norm ? 3.0 : 1.0, rng);
  if (norm) {
    std::uniform_real_distribution<double> u(0.5, 1.5);
    c.op.g.resize(static_cast<size_t>(K));
    for (bf16& x : c.op.g) x = to_bf16(u(rng));
    c.op.eps = 1e-6f;
  }
  c.w_all = randn(2 * static_cast<size_t>(n) * K, 0.02, rng);
  c.op.w.assign(c.w_all.begin(), c.w_all.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(n) * K));
  c.op.s = randn(static_cast<size_t>(M) * n, 0.5, rng);
  return c;
}

// Y as a kernel would make it: N (given, or the fused order's bf16 of
// z rstd g with the sum of squares in reverse order, all fp32), the dot
// product in fp32 over `blocks` interleaved partial sums added in order,
// then + S in fp32, then bf16.
std::vector<bf16> kernel_like(const StepOperands& op, const std::vector<bf16>& w, int blocks, bool with_s = true,
                              bool with_g = true) {
  const int M = op.M, n = op.n, K = op.K;
  std::vector<bf16> y(static_cast<size_t>(M) * n);
  std::vector<float> nrow(static_cast<size_t>(K));
  for (int m = 0; m < M; ++m) {
    const bf16* a = op.a.data() + static_cast<size_t>(m) * K;
    float rstd = 1;
    if (!op.g.empty()) {
      float ss = 0;
      for (int k = K - 1; k >= 0; --k) ss += to_float(a[k]) * to_float(a[k]);
      rstd = 1.0f / std::sqrt(ss / static_cast<float>(K) + op.eps);
    }
    for (int k = 0; k < K; ++k) {
      const float g = with_g && !op.g.empty() ? to_float(op.g[static_cast<size_t>(k)]) : 1.0f;
      nrow[static_cast<size_t>(k)] = op.g.empty() ? to_float(a[k]) : round_bf16((to_float(a[k]) * rstd) * g);
    }
    for (int j = 0; j < n; ++j) {
      std::vector<float> part(static_cast<size_t>(blocks), 0.0f);
      for (int k = 0; k < K; ++k)
        part[static_cast<size_t>(k % blocks)] += nrow[static_cast<size_t>(k)] * to_float(w[static_cast<size_t>(j) * K + k]);
      float acc = 0;
      for (float p : part) acc += p;
      const size_t e = static_cast<size_t>(m) * n + j;
      if (with_s) acc += to_float(op.s[e]);
      y[e] = to_bf16(acc);
    }
  }
  return y;
}

}  // namespace

TEST_CASE("gpu_step: steps made in other fp32 orders pass, N given and made from Z") {
  for (bool norm : {false, true})
    for (int blocks : {1, 16, 112}) {
      CAPTURE(norm);
      CAPTURE(blocks);
      Case c = make(5, 24, 3584, norm, 7 + static_cast<uint64_t>(blocks));
      c.op.y = kernel_like(c.op, c.op.w, blocks);
      CHECK(step_outside_bound(c.op).empty());
    }
}

TEST_CASE("gpu_step: planted faults fail") {
  for (bool norm : {false, true}) {
    CAPTURE(norm);
    Case c = make(4, 16, 1024, norm, 42);
    const std::vector<bf16> next(c.w_all.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(c.n) * c.K), c.w_all.end());
    c.op.y = kernel_like(c.op, next, 16);  // the next shard's rows of W
    CHECK_FALSE(step_outside_bound(c.op).empty());
    c.op.y = kernel_like(c.op, c.op.w, 16, false);  // S left out
    CHECK_FALSE(step_outside_bound(c.op).empty());
    c.op.y = kernel_like(c.op, c.op.w, 16);
    REQUIRE(step_outside_bound(c.op).empty());
    std::vector<bf16> good = c.op.y;
    c.op.y[good.size() - 1].bits = kPoison;  // the last element never written
    const std::string why = step_outside_bound(c.op);
    CHECK(why.find("Y[3, 15]") != std::string::npos);
    // One element moved by half its row's RMS.
    double ss = 0;
    for (int j = 0; j < c.n; ++j) ss += to_double(good[static_cast<size_t>(j)]) * to_double(good[static_cast<size_t>(j)]);
    c.op.y = good;
    c.op.y[3] = to_bf16(to_double(good[3]) + 0.5 * std::sqrt(ss / c.n));
    CHECK(step_outside_bound(c.op).find("Y[0, 3]") != std::string::npos);
  }
  // The weight g left out of the normalisation.
  Case c = make(4, 16, 1024, true, 43);
  c.op.y = kernel_like(c.op, c.op.w, 16, true, false);
  CHECK_FALSE(step_outside_bound(c.op).empty());
}

TEST_CASE("gpu_step: operands of the wrong sizes are refused, not judged") {
  Case c = make(2, 8, 64, false, 1);
  c.op.y = kernel_like(c.op, c.op.w, 1);
  c.op.s.pop_back();
  CHECK(step_outside_bound(c.op).find("wrong sizes") != std::string::npos);
}
