// Row-major matrices: bf16 storage (MatrixB) and Eigen views of widened values.
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <vector>

#include "bf16.hpp"

namespace ltt {

template <class Real>
using Mat = Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatF = Mat<float>;
using MatD = Mat<double>;
// A read-only view of a row-major block (a shard of rows or of columns).
template <class Real>
using ConstRef = Eigen::Ref<const Mat<Real>, 0, Eigen::OuterStride<>>;
template <class Real>
using MutRef = Eigen::Ref<Mat<Real>, 0, Eigen::OuterStride<>>;

struct MatrixB {
  int rows = 0;
  int cols = 0;
  std::vector<bf16> v;

  MatrixB() = default;
  MatrixB(int r, int c) : rows(r), cols(c), v(static_cast<size_t>(r) * static_cast<size_t>(c)) {}
  size_t size() const { return v.size(); }
  bf16& at(int i, int j) { return v[static_cast<size_t>(i) * static_cast<size_t>(cols) + static_cast<size_t>(j)]; }
  bf16 at(int i, int j) const { return v[static_cast<size_t>(i) * static_cast<size_t>(cols) + static_cast<size_t>(j)]; }
  friend bool operator==(const MatrixB& a, const MatrixB& b) {
    return a.rows == b.rows && a.cols == b.cols && a.v == b.v;
  }
};

// Widen bf16 values to float or double (exact).
template <class Real>
Mat<Real> widen(const MatrixB& b);
// Round every element to bf16 (nearest even).
MatrixB narrow(const Mat<float>& m);
MatrixB narrow(const Mat<double>& m);
// Round every element of m to the nearest bf16 value, in place.
void round_bf16_inplace(Mat<float>& m);

}  // namespace ltt
