// compare_to_truth(): error, error/bound, non-finite classes.
#include "compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
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

// A 2-norm accumulated with a running scale (LAPACK's dlassq): adversarial
// rows reach 1e38, whose squares overflow double and made the ratio of two
// plain sums of squares read 4e-38 (or 0).
struct Norm2 {
  double scale = 0, ssq = 1;
  void add(double x) {
    const double a = std::fabs(x);
    if (a == 0) return;
    if (scale < a) {
      ssq = 1 + ssq * (scale / a) * (scale / a);
      scale = a;
    } else {
      ssq += (a / scale) * (a / scale);
    }
  }
  double value() const { return scale * std::sqrt(ssq); }
};

template <class Get>
ErrorStats compare_impl(Get y_at, size_t n, const MatD& truth, const MatD& bound, Mode mode) {
  ErrorStats s;
  s.n = n;
  std::vector<double> ratios;
  ratios.reserve(n);
  Norm2 err2, ref2;
  std::vector<double> mags;  // |truth| of the finite nonzero elements
  mags.reserve(n);
  for (size_t e = 0; e < n; ++e) {
    const double y = y_at(e);
    const double t = truth.data()[e];
    const double x = expected_value(t, mode);
    if (y != 0) ++s.nonzero;  // NaN is not zero: an all-NaN output fails as outside its sets, not as all zero
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
    if (std::fabs(t) <= b) ++s.zero_in_bound;
    const double ratio = err == 0 ? 0.0 : err / b;
    ratios.push_back(ratio);
    s.max_ratio = std::max(s.max_ratio, ratio);
    s.max_abs = std::max(s.max_abs, err);
    if (t != 0) s.max_rel = std::max(s.max_rel, err / std::fabs(t));
    err2.add(err);
    ref2.add(t);
    if (t != 0) mags.push_back(std::fabs(t));
    if (!(err <= b)) {
      ++s.over;
      if (s.first_over < 0) s.first_over = static_cast<long>(e);
    }
  }
  s.normwise = ref2.value() > 0 ? err2.value() / ref2.value() : err2.value();
  // Where the truth spans many decades (adversarial rows from 1e-37 to 1e38),
  // its norm is that of the largest rows alone, often computed exactly, and
  // the figure (4e-38) says nothing about the rest: not computed there.
  if (!mags.empty()) {
    std::nth_element(mags.begin(), mags.begin() + static_cast<std::ptrdiff_t>(mags.size() / 2), mags.end());
    const double median = mags[mags.size() / 2], top = *std::max_element(mags.begin(), mags.end());
    if (top > 1e8 * median) {
      s.normwise = std::nan("");
      s.normwise_note = cat("not computed: the truth spans ", static_cast<int>(std::log10(top / median)),
                            " decades (max |truth| ", top, ", median ", median, "), so its norm is that of the largest rows alone");
    }
  }
  if (ratios.empty() && n > 0) {
    s.normwise = std::nan("");
    s.normwise_note = "not computed: no element is finite in both the output and the truth";
  }
  // The percentile over every element judged, an element whose NaN/Inf
  // class differs from the truth's counted as an infinite ratio (max_ratio
  // stays the finite elements' own; max_ratio_text says "inf").
  if (const size_t judged = ratios.size() + s.nonfinite_mismatch; judged > 0) {
    const size_t k = std::min(judged - 1, static_cast<size_t>(std::ceil(0.999 * static_cast<double>(judged))) - 1);
    if (k >= ratios.size()) {
      s.p999_ratio = std::numeric_limits<double>::infinity();
    } else {
      std::nth_element(ratios.begin(), ratios.begin() + static_cast<std::ptrdiff_t>(k), ratios.end());
      s.p999_ratio = ratios[k];
    }
  }
  return s;
}

}  // namespace

std::string max_ratio_text(const ErrorStats& s) {
  if (s.nonfinite_mismatch > 0) return "inf";
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", s.max_ratio);
  return b;
}

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
