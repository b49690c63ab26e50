// RMSNorm and the up-projection GEMM, in exact and emulated arithmetic.
#include "kernels.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <numeric>

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

namespace ltt {

namespace {

// A GEMM over K in panels of `panel` (gemm_nt's scheme with another panel).
Mat<float> gemm_panel(const ConstRef<float>& A, const ConstRef<float>& B, int panel) {
  const Eigen::Index M = A.rows(), K = A.cols(), N = B.rows();
  Mat<float> C = Mat<float>::Zero(M, N);
  for (Eigen::Index k0 = 0; k0 < K; k0 += panel) {
    const Eigen::Index kb = std::min<Eigen::Index>(panel, K - k0);
    C.noalias() += A.middleCols(k0, kb) * B.middleCols(k0, kb).transpose();
  }
  return C;
}

// Sum of squares of a row: the reference's (8 accumulators, fixed tree), a
// variant's (a accumulators, combined sequentially or pairwise), or in bf16.
float sum_squares_member(const float* z, Eigen::Index L, const Member* m) {
  if (m && m->is(Mutant::ss_bf16)) {
    float acc = 0;
    for (Eigen::Index k = 0; k < L; ++k) acc = round_bf16(acc + z[k] * z[k]);
    return acc;
  }
  if (!m || !m->var.on) return sum_squares_fp32(z, L);
  const int a = 1 << m->var.pick(6);  // 1..32 interleaved accumulators
  const bool reversed = m->var.pick(2);
  std::vector<float> acc(static_cast<size_t>(a), 0.0f);
  for (Eigen::Index j = 0; j < L; ++j) {
    const Eigen::Index k = reversed ? L - 1 - j : j;
    float& s = acc[static_cast<size_t>(j % a)];
    s = s + z[k] * z[k];
  }
  if (m->var.pick(2)) {  // pairwise
    for (size_t w = 1; w < acc.size(); w *= 2)
      for (size_t i = 0; i + w < acc.size(); i += 2 * w) acc[i] = acc[i] + acc[i + w];
    return acc[0];
  }
  float s = 0;
  for (float x : acc) s = s + x;
  return s;
}

}  // namespace

template <>
Mat<float> rmsnorm_m<EmulatedArith>(const Mat<float>& Z, const Mat<float>& g, double eps, NormOrder order,
                                    const Member* m, int rank, int T) {
  const bool plain = !m || (!m->var.on && m->mut == Mutant::none);
  if (plain) return rmsnorm<EmulatedArith>(Z, g, eps, order);
  const Eigen::Index M = Z.rows(), L = Z.cols();
  Mat<float> N(M, L);
  double e = eps;
  if (m->is(Mutant::eps_missing)) e = 0;
  if (m->is(Mutant::eps_x10) || (m->is(Mutant::eps_one_rank) && rank == 1)) e = 10 * eps;
  const float epsf = static_cast<float>(e);
  const float Lf = static_cast<float>(m->is(Mutant::mean_l_over_t) ? L / T : L);
  for (Eigen::Index i = 0; i < M; ++i) {  // sequential: the variant's draws come in a fixed order
    const float* z = Z.data() + i * L;
    float* n = N.data() + i * L;
    const float ss = sum_squares_member(z, L, m);
    const float mean = (m->var.on && m->var.pick(2)) ? ss * (1.0f / Lf) : ss / Lf;
    float rstd = m->is(Mutant::eps_outside_sqrt) ? 1.0f / (std::sqrt(mean) + epsf) : 1.0f / std::sqrt(mean + epsf);
    if (m->var.on) {  // rsqrt within 2 ULP
      const int k = m->var.pick(5) - 2;
      for (int j = 0; j < std::abs(k); ++j) rstd = std::nextafter(rstd, k > 0 ? INFINITY : 0.0f);
    }
    const int prod = m->var.on ? m->var.pick(3) : 0;
    for (Eigen::Index k = 0; k < L; ++k) {
      const float gk = m->is(Mutant::g_missing) ? 1.0f : g(0, k);
      float v;
      if (order == NormOrder::round_then_weight) {
        v = round_bf16(round_bf16(z[k] * rstd) * gk);
      } else {
        const float x = prod == 0 ? (z[k] * rstd) * gk : prod == 1 ? z[k] * (rstd * gk) : (z[k] * gk) * rstd;
        v = round_bf16(x);
      }
      if (m->is(Mutant::g_twice)) v = round_bf16(v * gk);
      n[k] = v;
    }
  }
  return N;
}

template <>
Mat<double> rmsnorm_m<ExactArith>(const Mat<double>& Z, const Mat<double>& g, double eps, NormOrder order,
                                  const Member*, int, int) {
  return rmsnorm<ExactArith>(Z, g, eps, order);
}

template <>
Mat<float> gemm_m<float>(const ConstRef<float>& A, const ConstRef<float>& B, const Mat<float>* C, const Member* m) {
  if (m && m->is(Mutant::gemm_bf16_acc)) {
    // Row by row, all N outputs at once: acc = bf16(acc + a_ik B[:, k]).
    const Eigen::Index M = A.rows(), K = A.cols(), N = B.rows();
    const Mat<float> BT = B.transpose();
    Mat<float> out(M, N);
#pragma omp parallel for schedule(static)
    for (Eigen::Index i = 0; i < M; ++i) {
      Mat<float> acc = Mat<float>::Zero(1, N);
      for (Eigen::Index k = 0; k < K; ++k) {
        acc += A(i, k) * BT.row(k);
        round_bf16_inplace(acc);
      }
      out.row(i) = C ? Mat<float>(acc + C->row(i)) : acc;
    }
    return out;
  }
  if (m && m->is(Mutant::gemm_round_then_add)) {
    // bf16(A B^T), then + C (the caller rounds again): two roundings where the
    // contract has one, as cublasLtMatmul computes in place (C == D) with an
    // algorithm without split-K on the H200 (bench/lt_inplace.cu).
    Mat<float> out = gemm_nt<float>(A, B);
    round_bf16_inplace(out);
    if (C) out += *C;
    return out;
  }
  if (!m || !m->var.on) {
    if (!C) return gemm_nt<float>(A, B);
    Mat<float> out = gemm_nt<float>(A, B) + *C;
    return out;
  }
  // Split-K at random points, each split in random panels, the fp32 partials
  // (and C, first or last) added in a random order.
  const Eigen::Index K = A.cols();
  static const int kSplits[] = {1, 2, 3, 4, 8};
  static const int kPanels[] = {16, 32, 64, 128, 256};
  const int s = static_cast<int>(std::min<Eigen::Index>(kSplits[m->var.pick(5)], K));
  std::vector<Eigen::Index> cut = {0, K};
  while (static_cast<int>(cut.size()) < s + 1) {
    const Eigen::Index c = 1 + static_cast<Eigen::Index>(m->var.draw() % static_cast<uint64_t>(K - 1));
    if (std::find(cut.begin(), cut.end(), c) == cut.end()) cut.push_back(c);
  }
  std::sort(cut.begin(), cut.end());
  std::vector<int> order(static_cast<size_t>(s));
  std::iota(order.begin(), order.end(), 0);
  for (int i = s - 1; i > 0; --i) std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(m->var.pick(i + 1))]);
  const bool c_first = m->var.pick(2);
  Mat<float> acc;
  bool started = false;
  if (C && c_first) {
    acc = *C;
    started = true;
  }
  for (int j : order) {
    const Eigen::Index k0 = cut[static_cast<size_t>(j)], kb = cut[static_cast<size_t>(j) + 1] - k0;
    const int panel = kPanels[m->var.pick(5)];
    Mat<float> part;
    if (A.rows() == 1) {  // as gemm_nt: two equal rows, off Eigen's GEMV path
      Mat<float> A2(2, kb);
      A2.row(0) = A.middleCols(k0, kb).row(0);
      A2.row(1) = A2.row(0);
      part = gemm_panel(A2, B.middleCols(k0, kb), panel).topRows(1);
    } else {
      part = gemm_panel(A.middleCols(k0, kb), B.middleCols(k0, kb), panel);
    }
    if (!started) {
      acc = std::move(part);
      started = true;
    } else {
      acc += part;
    }
  }
  if (C && !c_first) acc += *C;
  return acc;
}

template <>
Mat<double> gemm_m<double>(const ConstRef<double>& A, const ConstRef<double>& B, const Mat<double>* C, const Member*) {
  if (!C) return gemm_nt<double>(A, B);
  Mat<double> out = gemm_nt<double>(A, B) + *C;
  return out;
}

}  // namespace ltt
