// compare_to_truth(): error, error/bound, non-finite classes.
#include "compare.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "bf16.hpp"

namespace ltt {

double expected_value(double truth, Mode mode) {
  return mode == Mode::emulated ? to_double(to_bf16(truth)) : truth;
}

namespace {

bool same_class(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b;  // both infinite with the same sign
}

template <class Get>
ErrorStats compare_impl(Get y_at, size_t n, const MatD& truth, const MatD& bound, Mode mode) {
  ErrorStats s;
  s.n = n;
  std::vector<double> ratios;
  ratios.reserve(n);
  double err2 = 0, ref2 = 0;
  for (size_t e = 0; e < n; ++e) {
    const double y = y_at(e);
    const double t = truth.data()[e];
    const double x = expected_value(t, mode);
    if (y != 0 && !std::isnan(y)) ++s.nonzero;
    if (!std::isfinite(x) || !std::isfinite(y)) {
      if (!std::isfinite(x)) ++s.nonfinite_expected;
      if (!same_class(x, y)) {
        ++s.nonfinite_mismatch;
        if (s.first_over < 0) s.first_over = static_cast<long>(e);
      }
      continue;
    }
    const double err = std::fabs(y - t);
    const double b = bound.data()[e];
    const double ratio = err == 0 ? 0.0 : err / b;
    ratios.push_back(ratio);
    s.max_ratio = std::max(s.max_ratio, ratio);
    s.max_abs = std::max(s.max_abs, err);
    if (t != 0) s.max_rel = std::max(s.max_rel, err / std::fabs(t));
    err2 += err * err;
    ref2 += t * t;
    if (!(err <= b)) {
      ++s.over;
      if (s.first_over < 0) s.first_over = static_cast<long>(e);
    }
  }
  s.normwise = ref2 > 0 ? std::sqrt(err2 / ref2) : std::sqrt(err2);
  if (!ratios.empty()) {
    const size_t k = std::min(ratios.size() - 1, static_cast<size_t>(std::ceil(0.999 * static_cast<double>(ratios.size()))) - 1);
    std::nth_element(ratios.begin(), ratios.begin() + static_cast<std::ptrdiff_t>(k), ratios.end());
    s.p999_ratio = ratios[k];
  }
  return s;
}

}  // namespace

ErrorStats compare_to_truth(const MatD& y, const MatD& truth, const MatD& bound, Mode mode) {
  return compare_impl([&](size_t e) { return y.data()[e]; }, static_cast<size_t>(y.size()), truth, bound, mode);
}

ErrorStats compare_to_truth(const MatrixB& y, const MatD& truth, const MatD& bound, Mode mode) {
  return compare_impl([&](size_t e) { return to_double(y.v[e]); }, y.size(), truth, bound, mode);
}

size_t count_over_scale(const MatD& y, const MatD& truth, const MatD& scale, double rel) {
  size_t over = 0;
  for (Eigen::Index e = 0; e < y.size(); ++e) {
    const double a = y.data()[e], b = truth.data()[e];
    if (!std::isfinite(a) || !std::isfinite(b)) continue;
    if (!(std::fabs(a - b) <= rel * scale.data()[e])) ++over;
  }
  return over;
}

long first_bitwise_difference(const MatrixB& a, const MatrixB& b) {
  if (a.rows != b.rows || a.cols != b.cols) return 0;
  for (size_t e = 0; e < a.size(); ++e)
    if (a.v[e].bits != b.v[e].bits) return static_cast<long>(e);
  return -1;
}

}  // namespace ltt
