// RMSNorm and the up-projection GEMM, in exact and emulated arithmetic.
#include "kernels.hpp"

#include <Eigen/Core>
#include <cmath>

namespace ltt {

namespace {

float sum_squares_fp32(const float* z, Eigen::Index L) {
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  Eigen::Index k = 0;
  for (; k + 8 <= L; k += 8)
    for (int l = 0; l < 8; ++l) acc[l] = acc[l] + z[k + l] * z[k + l];
  for (int l = 0; k < L; ++k, ++l) acc[l] = acc[l] + z[k] * z[k];
  return ((acc[0] + acc[4]) + (acc[2] + acc[6])) + ((acc[1] + acc[5]) + (acc[3] + acc[7]));
}

}  // namespace

template <>
Mat<float> rmsnorm<EmulatedArith>(const Mat<float>& Z, const Mat<float>& g, double eps, NormOrder order) {
  const Eigen::Index M = Z.rows(), L = Z.cols();
  Mat<float> N(M, L);
  const float epsf = static_cast<float>(eps);
  const float Lf = static_cast<float>(L);
#pragma omp parallel for schedule(static) if (M > 8)
  for (Eigen::Index i = 0; i < M; ++i) {
    const float* z = Z.data() + i * L;
    float* n = N.data() + i * L;
    const float rstd = 1.0f / std::sqrt(sum_squares_fp32(z, L) / Lf + epsf);
    if (order == NormOrder::round_then_weight)
      for (Eigen::Index k = 0; k < L; ++k) n[k] = round_bf16(round_bf16(z[k] * rstd) * g(0, k));
    else
      for (Eigen::Index k = 0; k < L; ++k) n[k] = round_bf16((z[k] * rstd) * g(0, k));
  }
  return N;
}

template <>
Mat<double> rmsnorm<ExactArith>(const Mat<double>& Z, const Mat<double>& g, double eps, NormOrder) {
  const Eigen::Index M = Z.rows(), L = Z.cols();
  Mat<double> N(M, L);
  for (Eigen::Index i = 0; i < M; ++i) {
    const double rstd = 1.0 / std::sqrt(Z.row(i).squaredNorm() / static_cast<double>(L) + eps);
    N.row(i) = (Z.row(i).array() * rstd * g.row(0).array()).matrix();
  }
  return N;
}

template <class Real>
Mat<Real> gemm_nt(const ConstRef<Real>& A, const ConstRef<Real>& B) {
  const Eigen::Index M = A.rows(), K = A.cols(), N = B.rows();
  if (M == 1) {
    Mat<Real> A2(2, K);
    A2.row(0) = A.row(0);
    A2.row(1) = A.row(0);
    Mat<Real> C2 = gemm_nt<Real>(A2, B);
    return C2.topRows(1);
  }
  Mat<Real> C = Mat<Real>::Zero(M, N);
  for (Eigen::Index k0 = 0; k0 < K; k0 += kGemmPanel) {
    const Eigen::Index kb = std::min<Eigen::Index>(kGemmPanel, K - k0);
    C.noalias() += A.middleCols(k0, kb) * B.middleCols(k0, kb).transpose();
  }
  return C;
}
template Mat<float> gemm_nt<float>(const ConstRef<float>&, const ConstRef<float>&);
template Mat<double> gemm_nt<double>(const ConstRef<double>&, const ConstRef<double>&);

template <class Real>
void no_neg_zero(Mat<Real>& m) {
  Real* p = m.data();
  for (Eigen::Index i = 0; i < m.size(); ++i)
    if (p[i] == Real(0)) p[i] = Real(0);
}
template void no_neg_zero<float>(Mat<float>&);
template void no_neg_zero<double>(Mat<double>&);

}  // namespace ltt
