// Row checks (admissible.hpp, RowBound): two weighted sums per output row
// whose Z is ambiguous in a few elements, with the ranges every member's sums
// lie in.
//
// Why. An order probe's Z element is 0 or 1 by the order of the cross-rank
// sum, and that moves rstd, so every element of the row has a wide set: the
// sets span the row's correct outputs. A row set to 0, negated, or another
// token's row then passes element by element. A member's row is not free in
// that span: one rstd rho, one choice per ambiguous element.
//
// What. Row i of a member's output is y = D + S^ + E: D_j = sum_k N_k W_jk, the
// exact product of the member's N; S^ = sum_r S_r exact; E what the tier's
// roundings and fp32 operations add. Let P be the row's ambiguous columns of
// Z (an interval wider than 4 times the row's median |Z|), a = W_plain (g o
// z^) the product of Z's centre over the other columns, and w = a minus its
// projection on the columns W[J, P] (J: the hidden columns used, below), so
// w . W_c = 0 for c in P: w . D does not see P's elements, whatever they are.
// With c = W^T w:
//   w . D = sum_k c_k N_k, N_k = rho z_k g_k (1 + t_k) + f_k,
// |t_k| <= eta = (1 + 2^-8)^2 (1 + 2^-24)^2 - 1 (two bf16 roundings and two
// fp32 products, in either RMSNorm order), |f_k| <= 2^-125 (1 + |g_k|) +
// 2^-126 |g_k| rho_b (flushes, subnormals, a subnormal z read as 0 under
// DAZ), z_k in Z's admissible interval [z^ - zr, z^ + zr].
// So w . D / rho lies in mu -+ r, mu = sum_{k not in P} c_k g_k z^_k, r =
// sum_{k not in P} |c_k g_k| (zr_k + eta (|z^_k| + zr_k)) + sum_{k in P} |c_k
// g_k| max|z_k| (1 + eta) (c_k ~ 0 there: float64's leak), and rho in the
// row's rstd range [rho_a, rho_b] (rho_range, as RMSNorm's sets use it, with
// the sums of squares over P from the values each element can take: counted
// by few_sums() where it has at most 4 nonzero terms, as an order probe has;
// Z's interval there, gamma_{T-1} sum |terms| wide, would put rho_a ten
// times below every member's. An fp32 add of two bf16 values rounded to bf16
// is one rounding of the exact sum (24 >= 2 x 8 + 2 bits), so a ring that
// adds in bf16 natively, as NCCL's, gives the same set). Not anywhere in
// that range: rstd follows the sum of squares, whose part over P takes a few
// values (an order probe's L/16 0s and 1s: 0 to 8 at small sizes, L 128),
// so rho lies in one of a few ranges rho_q, one per range q of that part
// (every element's squares added to every range so far, ranges that overlap
// joined, at most 64 kept by joining the nearest; rho_range of the other
// columns' sums plus q). At k3 sizes E is wider than rstd's steps there, and
// the parts join into one.
//
// E: each output element passes through the tier's bf16 roundings, nD of
// values bounded by U_j (any partial sum of the latent shards' products and
// the S_r: sum over shards of rho_b |their plain part| + rho_b's radius part
// + the ambiguous columns' part, at most sqrt(L) F |(g o W_j)_P|_2 by
// Cauchy-Schwarz as norm_cap(), + sum_r |S_rj|) and nS of values bounded by
// sum_r |S_rj|. Under the model of admissible.hpp (rounding errors
// mean-independent, |delta| <= u = 2^-8) w . E's rounding part is a
// martingale sum over every rounding of the row: by Azuma-Hoeffding it is at
// most lambda u (1 + u)^(nD + nS) sqrt(sum_j w_j^2 (nD U_j^2 + nS (sum_r
// |S_rj|)^2)) except with probability 2 exp(-lambda^2 / 2), lambda the case's
// (its events count the M rows: the case's false-alarm bound holds). The fp32
// parts are bounded rigorously: the GEMM's accumulation gamma_{L+4} (A_j +
// sum_r |S_rj|) (A_j >= sum_k |N_k W_jk|; the addend may sit anywhere in the
// sum, and U_j holds this growth too), the adds (2T + 8) 2^-24 U_j, and
// (2L + 2T + 8) flushes of 2^-126. Hidden columns whose U_j is over 64 times
// the row's median (an order probe in S: partial sums of 2^24) are left out
// (w_j = 0), as are columns where S is not finite.
//
// The check: w . y in the union over q of rho_q x (mu -+ r) + w . S^ -+ E
// (joined where they overlap; a member's sum lies in its own q's part, so
// the events are those of one range). On the one-token probe case the hull
// passed RMSNorm's mean over L/T (rstd x sqrt(T)), between two parts.
// For another token's row, w . (y' - S^) is a sum with random signs, about
// |w| |y' - S^| / sqrt(H); a member's is at least rho |w|^2 (1 - r / mu):
// at k3 sizes the two are many times apart (tests/admissible.cpp).
//
// A second check per row, rstd-free: the same bounds for weights v along S^
// (over J), orthogonal to W[J, P] and to a as well. Then mu = v . a = 0 (up to
// float64's leak, in r), so the range is rho_b (-r -+ r): rstd's range no
// longer scales the row's own product, which on an order-probe row (rho_b /
// rho_a about 9) made the first range wide enough to hold a rank's S
// dropped or the row x 1.03 when the case had no other row to catch them
// (M 1, forty-fourth session). A bug in the shared path moves y along S^ or
// a rank's S_r, which v sees in full (|v . S_r| about |v| |S_r| / sqrt(T),
// not / sqrt(H)). The weights come from the inputs alone, not from any
// output, so the martingale bound E holds for them as for w.
#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "admissible.hpp"
#include "bf16.hpp"

namespace ltt {

namespace {

constexpr double kU = kFp32Unit;
constexpr double kInf = std::numeric_limits<double>::infinity();
const double kFlush = std::ldexp(1.0, -126);  // what a flushed fp32 operation may lose
const double kSubB = std::ldexp(1.0, -134);   // half bf16's subnormal spacing

// Every value a reduction of these few terms (all nonzero terms of T bf16
// partials: adding a zero is exact) can give in the family: one-shot, any
// tree of fp32 adds and one bf16 rounding; ring, any order with an fp32 add
// and a bf16 rounding at every hop. A result below 2^-126 may also be 0
// (FTZ). At most 4 terms.
std::vector<double> few_sums(const std::vector<double>& t, Algo a) {
  const int n = static_cast<int>(t.size());
  if (n == 0) return {0.0};
  auto add = [](double x, double y, std::vector<double>& out, bool bf) {
    const double f = static_cast<double>(static_cast<float>(x) + static_cast<float>(y));
    const double v = bf ? to_double(to_bf16(f)) : f;
    out.push_back(v);
    if (std::fabs(f) < kFlush) out.push_back(0.0);
  };
  auto uniq = [](std::vector<double>& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  };
  std::vector<std::vector<double>> set(static_cast<size_t>(1) << n);
  for (int i = 0; i < n; ++i) set[static_cast<size_t>(1) << i] = {t[static_cast<size_t>(i)]};
  for (unsigned m = 1; m < (1u << n); ++m) {
    if ((m & (m - 1)) == 0) continue;
    std::vector<double>& out = set[m];
    if (a == Algo::ring) {  // the last term added at the last hop, each hop rounded
      for (int i = 0; i < n; ++i)
        if (m & (1u << i))
          for (double x : set[m & ~(1u << i)]) add(x, t[static_cast<size_t>(i)], out, true);
    } else {  // two subtrees, fp32 partials
      const unsigned low = m & (~m + 1);
      for (unsigned A = (m - 1) & m; A; A = (A - 1) & m) {
        if (!(A & low) || A == m) continue;
        for (double x : set[A])
          for (double y : set[m & ~A]) add(x, y, out, false);
      }
    }
    uniq(out);
  }
  std::vector<double> r = set[(1u << n) - 1];
  if (a != Algo::ring)
    for (double& v : r) v = to_double(to_bf16(v));
  uniq(r);
  return r;
}

// Sorts ranges and joins those that overlap; then, while there are more
// than cap, the two nearest (a join only widens: the union still holds every
// value it held).
void join_ranges(std::vector<std::pair<double, double>>& v, size_t cap) {
  std::sort(v.begin(), v.end());
  std::vector<std::pair<double, double>> out;
  for (const auto& x : v) {
    if (!out.empty() && x.first <= out.back().second)
      out.back().second = std::max(out.back().second, x.second);
    else
      out.push_back(x);
  }
  while (out.size() > cap) {
    size_t best = 0;
    for (size_t i = 1; i + 1 < out.size(); ++i)
      if (out[i + 1].first - out[i].second < out[best + 1].first - out[best].second) best = i;
    out[best].second = out[best + 1].second;
    out.erase(out.begin() + static_cast<std::ptrdiff_t>(best) + 1);
  }
  v = std::move(out);
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

}  // namespace

const std::vector<AdmCtx::RowData>& AdmCtx::row_data(Algo a) {
  const int key = static_cast<int>(a);
  auto it = rows_.find(key);
  if (it != rows_.end()) return *it->second;
  auto out = std::make_unique<std::vector<RowData>>();
  const Problem& p = in.p;
  if (p.eps > 0 && p.L % p.T == 0) {
    const Interval& Z = reduce_R(a);
    const int M = p.M, L = p.L, H = p.H, T = p.T, Ls = p.Ls();
    const MatD g = widen<double>(in.g);
    if (absWf_.size() == 0) absWf_ = W.cwiseAbs().cast<float>();
    const double eta = (1 + kBf16Unit) * (1 + kBf16Unit) * (1 + kU) * (1 + kU) - 1;
    const double F = norm_cap_factor();
    const double tiny = std::ldexp(1.0, -50) / std::sqrt(p.eps);  // norm_cap()'s flushed regime
    const double fsum = (1 + (L + 2) * std::ldexp(1.0, -23));      // a float GEMV of nonnegative terms, rounded up
    // float64's own rounding of the sums below (of at most H or L terms, and
    // c = W^T w's: its error times |N| is at most this times sum_j |w_j| A_j).
    const double f64 = 2 * gamma(std::max(H, L) + 16, std::ldexp(1.0, -53));
    const MatD* wd = w_daz();
    std::vector<std::vector<RowData>> rows(static_cast<size_t>(M));
    std::map<std::string, MatD> bases;  // orthonormal bases of W[J, P], by (P, J)
#pragma omp parallel for schedule(dynamic, 1)
    for (int i = 0; i < M; ++i) {
      // Z's row: its ambiguous columns P, the sums of squares' range.
      bool finite = true;
      std::vector<double> zmax(static_cast<size_t>(L));
      for (int k = 0; k < L && finite; ++k) {
        finite = std::isfinite(Z.lo(i, k)) && std::isfinite(Z.hi(i, k));
        zmax[static_cast<size_t>(k)] = std::max(std::fabs(Z.lo(i, k)), std::fabs(Z.hi(i, k)));
      }
      if (!finite) continue;
      const double zmed = median(zmax);
      std::string mask(static_cast<size_t>(L + H), '0');
      std::vector<int> P;
      double ss_lo = 0, ss_hi = 0;  // over the other columns first (a ring's probe interval squares to 1e11)
      for (int k = 0; k < L; ++k) {
        const double zl = Z.lo(i, k), zh = Z.hi(i, k);
        if (zh - zl > 4 * zmed && zh - zl > 0) {
          P.push_back(k);
          mask[static_cast<size_t>(k)] = '1';
          continue;
        }
        ss_lo += min_square(zl, zh);
        ss_hi += std::max(zl * zl, zh * zh);
      }
      if (P.empty() || static_cast<int>(P.size()) > L / 8) continue;
      // Z's set of an ambiguous element is a rigorous interval (gamma_{T-1}
      // of sum |terms|: [-14, 15] for an order probe at T 8), which would
      // take rstd's range far below any member's. Where the element has at
      // most 4 nonzero terms, its values are counted instead: 0 or 1 there.
      // The sums of squares over P are kept as ranges too (ssP: each
      // element's squares, or its interval's, added to every range so far),
      // since rstd follows the sum: a member's rstd lies in one of the ranges
      // they give, not anywhere in their hull (an order probe's 0s and 1s
      // move it in steps, a factor of 9 in all).
      const double np_lo = ss_lo, np_hi = ss_hi;
      std::vector<std::pair<double, double>> ssP{{0.0, 0.0}};
      std::vector<double> pmax(P.size());
      for (size_t x = 0; x < P.size(); ++x) {
        const int k = P[x];
        const double zl = Z.lo(i, k), zh = Z.hi(i, k);
        double lo2 = min_square(zl, zh), hi2 = std::max(zl * zl, zh * zh);
        std::vector<double> terms;
        bool few = true;
        for (int r = 0; r < T && few; ++r) {
          const double v = to_double(in.R[static_cast<size_t>(r)].at(i, k));
          few = std::isfinite(v);
          if (v != 0) terms.push_back(v);
          few = few && terms.size() <= 4;
        }
        std::vector<std::pair<double, double>> next;
        if (few) {
          lo2 = kInf;
          hi2 = 0;
          for (double v : few_sums(terms, a)) {
            lo2 = std::min(lo2, v * v);
            hi2 = std::max(hi2, v * v);
            for (const auto& q : ssP) next.emplace_back(q.first + v * v, q.second + v * v);
          }
        } else {
          for (const auto& q : ssP) next.emplace_back(q.first + lo2, q.second + hi2);
        }
        join_ranges(next, 64);
        ssP = std::move(next);
        ss_lo += lo2;
        ss_hi += hi2;
        pmax[x] = std::sqrt(hi2);
      }
      const double rho_b = rho_range(ss_lo, ss_hi).second;  // rstd's most, over every range below
      std::vector<std::pair<double, double>> rhos;
      for (const auto& q : ssP) rhos.push_back(rho_range(np_lo + q.first, np_hi + q.second));
      join_ranges(rhos, rhos.size());
      // Z's centre and radius over the other columns, with g.
      Eigen::VectorXd gz = Eigen::VectorXd::Zero(L);
      Eigen::VectorXf grad = Eigen::VectorXf::Zero(L), gabs = Eigen::VectorXf::Zero(L);
      for (int k = 0; k < L; ++k) {
        if (mask[static_cast<size_t>(k)] == '1') continue;
        const double zc = 0.5 * (Z.lo(i, k) + Z.hi(i, k)), zr = 0.5 * (Z.hi(i, k) - Z.lo(i, k));
        const double gk = std::fabs(g(0, k));
        gz(k) = g(0, k) * zc;
        // Rounded up to float: each ratio below 1 + 2^-23.
        grad(k) = static_cast<float>(gk * (zr + eta * (std::fabs(zc) + zr)) * (1 + std::ldexp(1.0, -23)));
        gabs(k) = static_cast<float>(gk * (std::fabs(zc) + zr) * (1 + eta) * (1 + std::ldexp(1.0, -23)));
      }
      // U_j and A_j (the header), per hidden column.
      Eigen::ArrayXd shards = Eigen::ArrayXd::Zero(H);
      Eigen::VectorXd a_full = Eigen::VectorXd::Zero(H);
      for (int r = 0; r < T; ++r) {
        const Eigen::VectorXd part = W.middleCols(r * Ls, Ls) * gz.segment(r * Ls, Ls);
        shards += part.array().abs();
        a_full += part;
      }
      const Eigen::ArrayXd rad = (absWf_ * grad).cast<double>().array() * fsum;
      const Eigen::ArrayXd plain_abs = (absWf_ * gabs).cast<double>().array() * fsum;
      Eigen::ArrayXd probe(H), absS = Eigen::ArrayXd::Zero(H), Shat = Eigen::ArrayXd::Zero(H);
      for (int j = 0; j < H; ++j) {
        double s2 = 0, s1 = 0;
        for (int c : P) {
          const double gw = g(0, c) * W(j, c);
          s2 += gw * gw;
          s1 += std::fabs(gw);
        }
        probe(j) = (std::sqrt(L * s2) * F + tiny * s1 * F) * (1 + f64);
      }
      for (int r = 0; r < T; ++r)
        for (int j = 0; j < H; ++j) {
          const double v = to_double(in.S[static_cast<size_t>(r)].at(i, j));
          Shat(j) += v;
          absS(j) += std::fabs(v);
        }
      // A_j bounds sum_k |N_k W_jk|; the GEMM's fp32 partials carry S too
      // (its addend anywhere in the sum), and so may what a rounding sees.
      const Eigen::ArrayXd A = (rho_b * plain_abs + probe) * (1 + f64);
      const Eigen::ArrayXd acc = gamma(L + 4, kU) * (A + absS);
      const Eigen::ArrayXd U = (rho_b * (shards + rad) + probe + absS + acc) * (1 + f64);
      std::vector<double> Uv;
      for (int j = 0; j < H; ++j)
        if (std::isfinite(U(j))) Uv.push_back(U(j));
      const double umed = median(Uv);
      std::vector<int> J;
      for (int j = 0; j < H; ++j)
        if (std::isfinite(U(j)) && std::isfinite(Shat(j)) && U(j) <= 64 * umed) {
          J.push_back(j);
          mask[static_cast<size_t>(L + j)] = '1';
        }
      if (static_cast<int>(J.size()) < 2 * static_cast<int>(P.size()) + 8) continue;
      // w: a over J, its projection on W[J, P] taken out.
      MatD Q;
#pragma omp critical(ltt_row_bases)
      {
        auto b = bases.find(mask);
        if (b == bases.end()) {
          MatD B(J.size(), P.size());
          for (size_t x = 0; x < J.size(); ++x)
            for (size_t y = 0; y < P.size(); ++y) B(static_cast<Eigen::Index>(x), static_cast<Eigen::Index>(y)) = W(J[x], P[y]);
          Eigen::HouseholderQR<MatD> qr(B);
          b = bases.emplace(mask, MatD(qr.householderQ() * MatD::Identity(B.rows(), B.cols()))).first;
        }
        Q = b->second;
      }
      Eigen::VectorXd aJ(J.size());
      for (size_t x = 0; x < J.size(); ++x) aJ(static_cast<Eigen::Index>(x)) = a_full(J[x]);
      const Eigen::VectorXd wJ = aJ - Q * (Q.transpose() * aJ);
      // One row check from weights over J.
      auto check = [&](const Eigen::VectorXd& vJ, bool rstd_free) {
        RowData d;
        d.row = i;
        d.free_cols = static_cast<int>(P.size());
        d.rstd_free = rstd_free;
        auto w = std::make_shared<Eigen::VectorXd>(Eigen::VectorXd::Zero(H));
        for (size_t x = 0; x < J.size(); ++x) (*w)(J[x]) = vJ(static_cast<Eigen::Index>(x));
        const Eigen::VectorXd c = W.transpose() * *w;
        d.w = std::move(w);
        double mu = 0, r = 0, absN = 0, scale = 0;
        for (int k = 0; k < L; ++k) {
          const double zl = Z.lo(i, k), zh = Z.hi(i, k), cg = c(k) * g(0, k);
          // (+ 2^-150 (1 + rho_b): the fused order's z g and its product with
          // rho rounded on the fp32 subnormal grid, admissible.cpp's norm())
          absN += std::fabs(c(k)) * (std::ldexp(1.0, -125) * (1 + std::fabs(g(0, k))) + kFlush * std::fabs(g(0, k)) * rho_b +
                                     std::ldexp(1.0, -150) * (1 + rho_b));
          scale += std::fabs(cg) * std::max(std::fabs(zl), std::fabs(zh));
          if (mask[static_cast<size_t>(k)] == '1') {
            const size_t x = static_cast<size_t>(std::lower_bound(P.begin(), P.end(), k) - P.begin());
            r += std::fabs(cg) * pmax[x] * (1 + eta);
            continue;
          }
          const double zc = 0.5 * (zl + zh), zr = 0.5 * (zh - zl);
          mu += cg * zc;
          r += std::fabs(cg) * (zr + eta * (std::fabs(zc) + zr));
        }
        r += f64 * scale;
        const double xl = mu - r, xh = mu + r;
        for (const auto& [ra, rb] : rhos)
          d.d.emplace_back(std::min(ra * xl, rb * xl) - absN, std::max(ra * xh, rb * xh) + absN);
        join_ranges(d.d, d.d.size());
        // Over J only: elsewhere w_j = 0, and U_j or S^_j may not be finite.
        d.varD = d.varS = d.fix = d.shift = 0;
        double f64sum = 0;
        for (int j : J) {
          const double wj = (*d.w)(j), aw = std::fabs(wj);
          d.varD += wj * wj * U(j) * U(j);
          d.varS += wj * wj * absS(j) * absS(j);
          d.fix += aw * (acc(j) + (2 * T + 8) * kU * U(j) + (2 * L + 2 * T + 8) * kFlush + (2 * T + 4) * kSubB);
          f64sum += aw * (A(j) + absS(j));
          d.shift += wj * Shat(j);
        }
        // A subnormal W read as 0 by a flushing member (DAZ) drops its
        // product N_k W_jk: w . D moves by at most sum_k max|N_k| (|W_daz|^T |w|)_k.
        if (wd) {
          const Eigen::VectorXd cw = wd->transpose() * d.w->cwiseAbs();
          for (int k = 0; k < L; ++k)
            if (cw(k) != 0)
              d.fix += cw(k) * (rho_b * std::fabs(g(0, k)) * zmax[static_cast<size_t>(k)] * (1 + eta) +
                                std::ldexp(1.0, -125) * (1 + std::fabs(g(0, k))));
        }
        d.fix = d.fix * (1 + f64) + f64 * f64sum;
        return d;
      };
      std::vector<RowData> found{check(wJ, false)};
      // The second: weights along the shared sum S^ (a bug in the shared
      // path, a rank's S dropped or doubled or S scaled, moves y along it),
      // orthogonal to a as well as to W[J, P], so that mu is 0 and rstd's
      // range scales only r: the first check's range spans rho_b / rho_a
      // times mu, which on an order-probe row can hide such a bug.
      const double wn = wJ.norm();
      if (wn > 0) {
        Eigen::VectorXd v(J.size());
        for (size_t x = 0; x < J.size(); ++x) v(static_cast<Eigen::Index>(x)) = Shat(J[x]);
        v -= Q * (Q.transpose() * v);
        v -= wJ * (wJ.dot(v) / (wn * wn));
        if (v.norm() > 0) found.push_back(check(v, true));
      }
      rows[static_cast<size_t>(i)] = std::move(found);
    }
    for (auto& r : rows)
      for (RowData& d : r) out->push_back(std::move(d));
  }
  return *rows_.emplace(key, std::move(out)).first->second;
}

std::shared_ptr<const RowBounds> AdmCtx::row_bounds(Algo a, int nD, int nS) {
  const std::vector<RowData>& data = row_data(a);
  if (data.empty()) return nullptr;
  const double lambda = a == Algo::ring ? lambda_ring_ : lambda_;
  const double grow = std::pow(1 + kBf16Unit, nD + nS);
  auto b = std::make_shared<RowBounds>();
  b->reserve(data.size());
  for (const RowData& d : data) {
    const double E = lambda * kBf16Unit * grow * std::sqrt(nD * d.varD + nS * d.varS) + d.fix;
    std::vector<std::pair<double, double>> parts;
    for (const auto& [lo, hi] : d.d) parts.emplace_back(lo + d.shift - E, hi + d.shift + E);
    join_ranges(parts, parts.size());
    const double lo = parts.front().first, hi = parts.back().second;  // the hull
    b->push_back(RowBound{d.row, d.w, lo, hi, std::move(parts), d.free_cols, d.rstd_free});
  }
  return b;
}

}  // namespace ltt
