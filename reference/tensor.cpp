// Widening and narrowing between bf16 storage and float/double matrices.
#include "tensor.hpp"

namespace ltt {

template <class Real>
Mat<Real> widen(const MatrixB& b) {
  Mat<Real> m(b.rows, b.cols);
  const auto n = static_cast<std::ptrdiff_t>(b.size());
  Real* out = m.data();
  const bf16* in = b.v.data();
#pragma omp parallel for schedule(static) if (n > (1 << 16))
  for (std::ptrdiff_t i = 0; i < n; ++i) out[i] = static_cast<Real>(to_float(in[i]));
  return m;
}
template Mat<float> widen<float>(const MatrixB&);
template Mat<double> widen<double>(const MatrixB&);

template <class Real>
static MatrixB narrow_impl(const Mat<Real>& m) {
  MatrixB b(static_cast<int>(m.rows()), static_cast<int>(m.cols()));
  const auto n = static_cast<std::ptrdiff_t>(b.size());
  const Real* in = m.data();
  bf16* out = b.v.data();
#pragma omp parallel for schedule(static) if (n > (1 << 16))
  for (std::ptrdiff_t i = 0; i < n; ++i) out[i] = to_bf16(in[i]);
  return b;
}
MatrixB narrow(const Mat<float>& m) { return narrow_impl(m); }
MatrixB narrow(const Mat<double>& m) { return narrow_impl(m); }

void round_bf16_inplace(Mat<float>& m) {
  const auto n = static_cast<std::ptrdiff_t>(m.size());
  float* p = m.data();
#pragma omp parallel for schedule(static) if (n > (1 << 16))
  for (std::ptrdiff_t i = 0; i < n; ++i) p[i] = round_bf16(p[i]);
}

}  // namespace ltt
