// The input generator: Philox4x32-10 per element, three distributions.
#include "inputs.hpp"

#include <Random123/philox.h>

#include <cmath>
#include <limits>

namespace ltt {

RowKind row_kind(uint64_t seed, int row) {
  return static_cast<RowKind>((seed + static_cast<uint64_t>(row)) % kAdversarialKinds);
}

const char* name(RowKind k) {
  static const char* names[] = {"signed-zeros", "outlier", "zero-routed", "cancel",
                                "order-probe",  "extremes", "subnormal",  "plain"};
  return names[static_cast<int>(k)];
}

std::array<uint32_t, 4> philox(uint64_t seed, TensorId t, int rank, uint32_t row, uint32_t col, uint32_t stream) {
  using G = r123::Philox4x32_R<10>;
  G gen;
  G::ctr_type c = {{col, row, static_cast<uint32_t>(seed >> 32), stream}};
  G::key_type k = {{static_cast<uint32_t>(seed), (static_cast<uint32_t>(t) << 16) | static_cast<uint32_t>(rank)}};
  G::ctr_type r = gen(c, k);
  return {r[0], r[1], r[2], r[3]};
}

double normal_from(const std::array<uint32_t, 4>& x) {
  // Each uniform is (x + 1/2) 2^-32; the sum of four is exact in double.
  const uint64_t s = uint64_t{x[0]} + x[1] + x[2] + x[3] + 2;
  const double sum = std::ldexp(static_cast<double>(s), -32);  // in (0, 4)
  return (sum - 2.0) * 1.7320508075688772;                     // variance 4/12 -> 1
}

namespace {

double normal(const Problem& p, TensorId t, int rank, int row, int col, uint32_t stream = 0) {
  return normal_from(philox(p.seed, t, rank, static_cast<uint32_t>(row), static_cast<uint32_t>(col), stream));
}

// Integer uniform in [-b, b] (multiply-shift on one 32-bit word).
int uniform_int(uint32_t x, int b) {
  return static_cast<int>((uint64_t{x} * static_cast<uint64_t>(2 * b + 1)) >> 32) - b;
}

// Uniform in [0, 1) from one word.
double uniform01(uint32_t x) { return std::ldexp(static_cast<double>(x), -32); }

double realistic(const Problem& p, TensorId t, int rank, int row, int col) {
  const double n = normal(p, t, rank, row, col);
  switch (t) {
    case TensorId::routed: return 0.01 * n;
    case TensorId::shared: return n / std::sqrt(static_cast<double>(p.T));
    case TensorId::norm_weight: return 1.0 + 0.1 * n;
    case TensorId::up_weight: return n / std::sqrt(static_cast<double>(p.L));
    default: return 0.0;
  }
}

double exact_value(const Problem& p, TensorId t, int rank, int row, int col) {
  const auto x = philox(p.seed, t, rank, static_cast<uint32_t>(row), static_cast<uint32_t>(col), 0);
  const int b = std::max(1, 256 / p.T);
  switch (t) {
    case TensorId::routed: return std::ldexp(uniform_int(x[0], b), -7);
    case TensorId::shared: return std::ldexp(uniform_int(x[0], b), -3);
    case TensorId::norm_weight: return 1.0 + uniform_int(x[0], 2) / 8.0;
    case TensorId::up_weight: {
      const int shift = 4 + static_cast<int>(std::ceil(0.5 * std::log2(static_cast<double>(p.L))));
      return std::ldexp(uniform_int(x[0], 16), -shift);
    }
    default: return 0.0;
  }
}

bf16 adversarial(const Problem& p, TensorId t, int rank, int row, int col) {
  const bool routed = t == TensorId::routed;
  auto plain = [&] { return to_bf16(realistic(p, t, rank, row, col)); };
  switch (row_kind(p.seed, row)) {
    case RowKind::signed_zeros: {
      if (routed) return plain();
      const double a = uniform01(philox(p.seed, t, rank, static_cast<uint32_t>(row), static_cast<uint32_t>(col), 1)[0]);
      if (a < 1.0 / 16) return bf16{0x8000};
      if (a < 2.0 / 16) return bf16{0x0000};
      return plain();
    }
    case RowKind::outlier: return to_bf16(1000.0 * realistic(p, t, rank, row, col));
    case RowKind::zero_routed:
      if (routed) return bf16{static_cast<uint16_t>(rank % 2 ? 0x8000 : 0x0000)};
      return plain();
    case RowKind::cancel: {
      if ((rank ^ 1) >= p.T) return plain();  // the odd one out when T is odd
      const TensorId base = routed ? TensorId::routed_pair : TensorId::shared_pair;
      const double scale = routed ? 0.01 : 1.0 / std::sqrt(static_cast<double>(p.T));
      double v = scale * normal(p, base, rank / 2, row, col);
      v = to_double(to_bf16(v));
      if (rank % 2) return to_bf16(-v);
      if (rank == 0) v += (routed ? 1e-4 : 1e-2) * normal(p, t, 0, row, col);
      return to_bf16(v);
    }
    case RowKind::order_probe: {
      if (col % 16 != 3) return plain();
      const double sign = (col % 32 == 19) ? -1.0 : 1.0;
      const double probe[3] = {16777216.0, 1.0, -16777216.0};
      return to_bf16(rank < 3 ? sign * probe[rank] : 0.0);
    }
    case RowKind::extremes: {
      if (routed) return plain();
      if (col % 256 == 9 && p.T >= 2) return to_bf16(rank < 2 ? kBf16Max : 0.0);
      if (col % 256 == 41) return rank == 0 ? bf16{0x7fc0} : to_bf16(0.0);
      if (col % 256 == 73) return rank == 0 ? bf16{0xff80} : to_bf16(0.0);
      if (col % 32 == 5) return to_bf16(rank == 0 ? ((col / 32) % 2 ? -kBf16Max : kBf16Max) : 0.0);
      return plain();
    }
    case RowKind::subnormal:
      if (routed || col % 8 == 1) return to_bf16(std::ldexp(normal(p, t, rank, row, col), -130));
      return plain();
    case RowKind::plain: return plain();
  }
  return plain();
}

}  // namespace

bf16 element(const Problem& p, TensorId t, int rank, int row, int col) {
  const bool replicated = t == TensorId::norm_weight || t == TensorId::up_weight;
  if (replicated) rank = 0;
  switch (p.dist) {
    case Dist::realistic: return to_bf16(realistic(p, t, rank, row, col));
    case Dist::exact: return to_bf16(exact_value(p, t, rank, row, col));
    case Dist::adversarial: return replicated ? to_bf16(realistic(p, t, rank, row, col)) : adversarial(p, t, rank, row, col);
  }
  return bf16{};
}

MatrixB generate(const Problem& p, TensorId t, int rank, int row0, int rows) {
  int cols = 0;
  switch (t) {
    case TensorId::routed: cols = p.L; break;
    case TensorId::shared: cols = p.H; break;
    case TensorId::norm_weight: cols = p.L; break;
    case TensorId::up_weight: cols = p.L; break;
    default: break;
  }
  MatrixB m(rows, cols);
#pragma omp parallel for schedule(static) if (static_cast<long>(rows) * cols > (1 << 14))
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) m.at(i, j) = element(p, t, rank, row0 + i, j);
  return m;
}

Inputs generate_inputs(const Problem& p, const Inputs* weights_from) {
  Inputs in;
  in.p = p;
  in.R.reserve(static_cast<size_t>(p.T));
  in.S.reserve(static_cast<size_t>(p.T));
  for (int r = 0; r < p.T; ++r) {
    in.R.push_back(generate(p, TensorId::routed, r, 0, p.M));
    in.S.push_back(generate(p, TensorId::shared, r, 0, p.M));
  }
  // g and W are realistic in the adversarial distribution too.
  auto wdist = [](Dist d) { return d == Dist::exact ? Dist::exact : Dist::realistic; };
  const bool reuse = weights_from && weights_from->p.seed == p.seed && wdist(weights_from->p.dist) == wdist(p.dist) &&
                     weights_from->p.H == p.H && weights_from->p.L == p.L;
  if (reuse) {
    in.g = weights_from->g;
    in.W = weights_from->W;
  } else {
    in.g = generate(p, TensorId::norm_weight, 0, 0, 1);
    in.W = generate(p, TensorId::up_weight, 0, 0, p.H);
  }
  return in;
}

}  // namespace ltt
