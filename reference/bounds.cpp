// The float64 truth and the error-propagation rules of bounds.hpp.
#include "bounds.hpp"

#include <cmath>
#include <limits>

#include "arith.hpp"
#include "comm.hpp"
#include "kernels.hpp"

namespace ltt {

Units Units::of(Mode m) {
  if (m == Mode::exact) {
    const double u = std::ldexp(1.0, -53);
    return {u, u, std::ldexp(1.0, -1075), std::ldexp(1.0, -1075)};
  }
  // A rounding that underflows loses at most 2^-126: the implementation may
  // flush fp32 (and so bf16) subnormals to zero (the contract's FTZ freedom);
  // without flushing it would be half the subnormal spacing.
  return {kBf16Unit, kFp32Unit, std::ldexp(1.0, -126), std::ldexp(1.0, -126)};
}

double gamma(double n, double u) {
  const double nu = n * u;
  return nu < 1.0 ? nu / (1.0 - nu) : std::numeric_limits<double>::infinity();
}

// A rigorous upper bound on A B^T for nonnegative A (float64) and B (fp32
// holding bf16 values, exact), computed in fp32 at 2.5x the speed of a
// float64 GEMM. A's rounding to fp32 lowers each product by at most a factor
// (1 - 2^-24), the fp32 sum of K nonnegative terms by (1 - gamma_K(2^-24));
// dividing by both restores an upper bound. Values of A below fp32's
// subnormal range flush to 0: K 2^-149 max(B) covers them and underflowing
// products.
MatD nonneg_gemm_upper(const MatD& A, const ConstRef<float>& B) {
  const double K = static_cast<double>(A.cols());
  const MatF Af = A.cast<float>();
  const MatF C = gemm_nt<float>(Af, B);
  const double scale = 1.0 / ((1 - kFp32Unit) * (1 - gamma(K, kFp32Unit)));
  const double floor = K * std::ldexp(1.0, -149) * (1.0 + static_cast<double>(B.maxCoeff()));
  return (C.cast<double>() * scale).array() + floor;
}

Truth compute_truth(const Inputs& in, const MatD& W, const MatD& absW) {
  const Problem& p = in.p;
  Truth t;
  t.Z = MatD::Zero(p.M, p.L);
  t.AR = MatD::Zero(p.M, p.L);
  t.S = MatD::Zero(p.M, p.H);
  t.AS = MatD::Zero(p.M, p.H);
  for (int r = 0; r < p.T; ++r) {
    const MatD R = widen<double>(in.R[static_cast<size_t>(r)]);
    t.Z += R;
    t.AR += R.cwiseAbs();
    const MatD S = widen<double>(in.S[static_cast<size_t>(r)]);
    t.S += S;
    t.AS += S.cwiseAbs();
  }
  t.N = rmsnorm<ExactArith>(t.Z, widen<double>(in.g), p.eps, NormOrder::fused);
  t.NW = gemm_nt<double>(t.N, W);
  t.Y = t.NW + t.S;
  t.absNW = nonneg_gemm_upper(t.N.cwiseAbs(), absW.cast<float>());
  return t;
}

namespace {

// Sum over the ring's hops of |exact partial sum|: for each element, the
// terms in the order the ring adds them (chunk c starts at rank c+1).
MatD ring_partials(const std::vector<MatD>& x, const RingPlace& place) {
  const int T = static_cast<int>(x.size());
  const Eigen::Index rows = x[0].rows(), cols = x[0].cols();
  const size_t width = static_cast<size_t>(place.width ? place.width : cols);
  const size_t n = static_cast<size_t>(rows) * width;
  MatD P = MatD::Zero(rows, cols);
  for (Eigen::Index i = 0; i < rows; ++i)
    for (Eigen::Index j = 0; j < cols; ++j) {
      int c;
      if (place.col_shards) {
        c = static_cast<int>(j / (cols / T));
      } else {
        const size_t e = static_cast<size_t>(i) * width + static_cast<size_t>(place.offset + j);
        c = static_cast<int>(e * static_cast<size_t>(T) / n);
        while (c + 1 < T && chunk_begin(n, T, c + 1) <= e) ++c;
        while (c > 0 && chunk_begin(n, T, c) > e) --c;
      }
      double s = x[static_cast<size_t>((c + 1) % T)](i, j), acc = 0;
      for (int k = 1; k < T; ++k) {
        s += x[static_cast<size_t>((c + 1 + k) % T)](i, j);
        acc += std::fabs(s);
      }
      P(i, j) = acc;
    }
  return P;
}

}  // namespace

const std::vector<MatD>& BoundCtx::R() {
  if (R_.empty())
    for (const auto& r : in.R) R_.push_back(widen<double>(r));
  return R_;
}

const std::vector<MatD>& BoundCtx::S() {
  if (S_.empty())
    for (const auto& s : in.S) S_.push_back(widen<double>(s));
  return S_;
}

MatD BoundCtx::reduce(const MatD& X, const MatD& A, const MatD* Ein, Algo algo, const std::vector<MatD>* terms,
                      RingPlace place) const {
  const double T = in.p.T;
  const MatD E = Ein ? *Ein : MatD::Zero(X.rows(), X.cols());
  if (algo == Algo::one_shot) {
    // One rank's bf16 input (no Ein) is its own sum, already a bf16 value:
    // no add, and its rounding to storage is exact (the ring's figure too).
    if (T == 1 && !Ein) return MatD::Zero(X.rows(), X.cols());
    // fp32 sum in rank order (Higham 4.4), then one rounding to storage.
    const MatD s = E + gamma(T - 1, u.ua) * (A + E);
    return round(X, s);
  }
  // Ring: every hop adds in fp32 and rounds to bf16.
  const double up = u.ua + u.us + u.ua * u.us;
  const double tiny = (T - 1) * (u.tiny_a + u.tiny_s);
  MatD e = (E + gamma(T - 1, up) * (A + E)).array() + tiny;
  if (terms && T > 1) {
    const MatD P = ring_partials(*terms, place);
    const MatD sharp = (E + (1 + gamma(T, up)) * up * (P + (T - 1) * E)).array() + tiny;
    e = e.cwiseMin(sharp);
  }
  return e;
}

MatD BoundCtx::dot(const MatD& E, const MatD& absNW, double K) const {
  const double gk = gamma(K, u.ua);
  return ((1 + gk) * E + gk * absNW).array() + K * u.tiny_a;
}

MatD BoundCtx::round(const MatD& X, const MatD& e) const {
  return (e + u.us * (X.cwiseAbs() + e)).array() + u.tiny_s;
}

MatD BoundCtx::add(const MatD& X, const MatD& e) const {
  return (e + u.ua * (X.cwiseAbs() + e)).array() + u.tiny_a;
}

// RMSNorm's error, for Z~ = Z + dZ with |dZ| <= eZ, per row (L terms):
//   D = mean(Z^2) + eps, r = D^-1/2, N = g Z r.
// 1. The perturbation of Z moves the mean square by at most
//      dm = (1/L) sum_k eZ_k (2|Z_k| + eZ_k),
//    so r(Z~) = r (1 + ez) with |ez| <= (1 - dm/D)^-1/2 - 1 when dm < D.
// 2. Computing D~ (L squares and L-1 additions, the division by L, the
//    addition of eps and eps's own rounding to fp32) errs relatively by at
//    most eta = gamma_{L+4}(ua) (plus L tiny_a / D where squares underflow);
//    D^-1/2 then errs by (1 - eta)^-1/2 - 1, and the reciprocal square root
//    itself by up to 2 fp32 ulps (CUDA's rsqrtf; 1/sqrtf is within 1.5),
//    i.e. 4 ua: er = (1 - eta)^-1/2 (1 + 4 ua) - 1.
// 3. The products and their roundings: round-then-weight rounds twice to
//    fp32 and twice to bf16, dN = (1+ua)^2 (1+us)^2 - 1; fused once to bf16,
//    dN = (1+ua)^2 (1+us) - 1.
// With rho = (1+ez)(1+er)(1+dN) - 1:
//   |N~_k - N_k| <= |g_k| r (eZ_k (1 + rho) + |Z_k| rho)   (+ underflow terms).
// Whatever Z~ is, |Z~_k| r~ <= sqrt(L) (a square is at most the sum of
// squares) and r~ <= eps^-1/2, up to the same rounding factors, so also
//   |N~_k - N_k| <= |N_k| + |g_k| (1+dN)(1+4ua)(1-eta)^-1/2
//                            min(sqrt(L), (|Z_k| + eZ_k) / sqrt(eps (1-eta))),
// the bound used where step 1 fails (dm >= D: cancellation wiped out the row).
const BoundCtx::Norm& BoundCtx::norm(Algo algo, NormOrder order, RingPlace place) {
  const auto key = std::make_tuple(static_cast<int>(algo), static_cast<int>(order), place.offset, place.width);
  auto it = cache_.find(key);
  if (it != cache_.end()) return it->second;
  Norm n;
  n.eZ = reduce(t.Z, t.AR, nullptr, algo, &R(), place);
  const Problem& p = in.p;
  const MatD g = widen<double>(in.g);
  const double L = p.L;
  const double dN = order == NormOrder::round_then_weight ? std::pow(1 + u.ua, 2) * std::pow(1 + u.us, 2) - 1
                                                          : std::pow(1 + u.ua, 2) * (1 + u.us) - 1;
  const double underflow = 2 * (u.tiny_s + u.tiny_a);
  n.eN.resize(p.M, p.L);
  for (int i = 0; i < p.M; ++i) {
    const auto z = t.Z.row(i).array();
    const auto ez = n.eZ.row(i).array();
    const double D = z.square().mean() + p.eps;
    const double r = 1.0 / std::sqrt(D);
    const double dm = (ez * (2 * z.abs() + ez)).mean();
    const double eta = gamma(L + 4, u.ua) + L * u.tiny_a / D;
    const double er = (1 + 4 * u.ua) / std::sqrt(1 - eta) - 1;
    const double capf = (1 + dN) * (1 + 4 * u.ua) / std::sqrt(1 - eta);
    const double zcap = 1.0 / std::sqrt(p.eps * (1 - eta));
    for (int k = 0; k < p.L; ++k) {
      const double gk = std::fabs(g(0, k)), zk = std::fabs(t.Z(i, k)), ek = n.eZ(i, k);
      double e = std::numeric_limits<double>::infinity();
      if (dm < D) {
        const double ezr = 1.0 / std::sqrt(1 - dm / D) - 1;
        const double rho = (1 + ezr) * (1 + er) * (1 + dN) - 1;
        e = gk * r * (ek * (1 + rho) + zk * rho);
      }
      const double cap = std::fabs(t.N(i, k)) + gk * capf * std::min(std::sqrt(L), (zk + ek) * zcap);
      n.eN(i, k) = std::min(e, cap) + (1 + gk) * underflow;
    }
  }
  if (absWf_.size() == 0) absWf_ = absW.cast<float>();
  n.E = nonneg_gemm_upper(n.eN, absWf_);
  return cache_.emplace(key, std::move(n)).first->second;
}

}  // namespace ltt
