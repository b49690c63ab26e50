// The order-free contract (README, "The contract"): for every element of a
// tier's output, the set of bf16 values that SOME correct implementation of
// the tier can produce. The verdict of `ltt check` and `ltt verify` is
// membership in that set, so it passes every member of the family and fails
// what no member can produce.
//
// The family, per tier: the rounding points are fixed (the tier's contract
// table: where each bf16 rounding happens, the RMSNorm order, one-shot or
// ring); free are
//   1. cross-rank reductions: any order or tree of the T partials, fp32
//      accumulation, one bf16 rounding (one-shot); any ring order with a
//      bf16 rounding at every hop (ring);
//   2. GEMMs: any fp32 accumulation order over K, split-K into any number of
//      fp32 partials, FMA or not, the epilogue's addend anywhere in the sum;
//   3. RMSNorm: the sum of squares in fp32 in any order; 1/sqrt with up to
//      2 fp32 ULP of error; the fp32 products in any order;
//   4. fp32 subnormals flushed to zero, or not.
//
// How the sets are built. Every rounding point knows the exact pre-rounding
// value's range over the family, [lo, hi], and rounds both ends to bf16: the
// admissible set is every bf16 value in [RN(lo), RN(hi)] (RN is monotone), one
// value for most elements, two near a rounding boundary. The ranges are
// carried through the pipeline:
//   - a reduction of T bf16 terms: [sum lo_r - e, sum hi_r + e], e the
//     rigorous fp32 bound gamma_{T-1}(2^-24) sum |term| (ring: per hop fp32
//     add plus bf16 rounding, u' = 2^-8 + 2^-24 + 2^-32 of a partial sum of
//     k terms, each bounded whatever the order by ring_hops(); at most
//     gamma_{T-1}(u') sum |term|);
//     e = 0 where every partial sum of every order is exact: all terms are
//     multiples of q (>= 2^-126, no flush; the smallest lowest set bit of a
//     term, or an interval term's smallest spacing) and sum |term| < 2^24 q
//     (ring: 2^8 q; every partial sum, and every hop's bf16 rounding of
//     one, is then a multiple of q below 2^8 q: a bf16 value). Then the sum
//     is exact and its one rounding is RN's: a tie goes to even in every
//     order, not to both sides;
//   - an fp32 add (tier 1's Y' + S) is monotone: [fl(lo_a + lo_b), fl(hi_a + hi_b)];
//   - RMSNorm, per row: the range of the member's rstd from the range of the
//     sum of squares (probabilistic bound below, capped by the rigorous
//     gamma_{L-1}), fl(/L), fl(+eps), 2 ULP of rsqrt and the fp32 products.
//     Each N element is a monotone step function of rstd: fixed (one value
//     over the range), one step at a threshold, or (wider, or with an
//     ambiguous Z) an independent interval. One rstd per row drives all the
//     steps at once, so the dot product's range over the row's step path is
//     taken exactly (prefix sums in threshold order), not as the sum of the
//     steps' worst cases;
//   - a GEMM: the exact dot product of the admissible N over that path (a
//     float64 GEMM of the path's start, the path's min/max, the independent
//     elements' half-widths times |W|), capped by Cauchy-Schwarz (every
//     member's rstd |z|_2 <= sqrt(L), so |N W_j^T| <= sqrt(L) |g W_j|_2 with
//     N's roundings: norm_cap, for rows whose Z is ambiguous), then the fp32
//     accumulation error.
//     A rigorous bound (gamma_K ~ one bf16 ULP at K = 3584) would blunt the
//     check, so it is probabilistic (Higham and Mary, SIAM J. Sci. Comput.
//     41(5), 2019, model: the rounding errors of the additions are
//     mean-independent, |delta| <= 2^-24): the error is a martingale sum of
//     delta_i * (partial sum_i) over the n additions, every partial sum (of
//     any order or tree) is a subset sum, so |partial| <= B = max(sum of the
//     positive terms, sum of the negative ones) = (sum|x| + |sum x|)/2; by
//     Azuma-Hoeffding |error| <= lambda sqrt(n) 2^-24 (1+gamma_n)^2 B except
//     with probability 2 exp(-lambda^2/2). lambda is set so that the union
//     over every bounded event of the case (M rows' sums of squares, M*H*(T+2)
//     dot products) fails with probability at most p_false_alarm (1e-6). The
//     rigorous gamma_n sum|x| caps it;
//   - a ring's Z leaves every element free within its rigorous bound, and
//     the worst case over the L elements of a dot product is many ULPs of
//     Y (the box). The same model sharpens it (dot_ring in admissible.cpp):
//     the hops' roundings and N's own bf16 roundings are mean-independent,
//     so N W^T = rho (P + Q + F) with P the exact Z's product, Q a
//     martingale sum bounded by Azuma-Hoeffding and F (flushes, fp32
//     products) rigorous; rstd's range from the sum of squares the same
//     way. Intersected with the box. The ring's events double the case's
//     count, so a ring case's false-alarm probability is at most 2e-6;
//   - fp32 adds (tier 1's Y' + S): one rounding, 2^-24 relative;
//   - flushed subnormals: each fp32 operation may lose up to 2^-126;
//     a product or intermediate below 2^-126 may be 0;
//   - non-finite values propagate as IEEE does in any order: a definite NaN
//     or Inf term gives a definite class, a possible fp32 overflow of a
//     partial sum admits Inf; where a NaN is merely possible the element is
//     unbounded (counted and reported; never seen on ltt's inputs).
#pragma once

#include <algorithm>
#include <map>
#include <memory>
#include <tuple>
#include <utility>
#include <vector>

#include "bounds.hpp"
#include "inputs.hpp"
#include "problem.hpp"
#include "tensor.hpp"

namespace ltt {

// A ring's T - 1 hops, whatever the order of its T terms: hop k (k = 2..T)
// rounds a sum of k terms, which lies in [-min(k mn, N), min(k mp, P)] with
// P, N the sums of the terms' positive and negative parts and mp, mn the
// largest of them. Sums these bounds b_k, and their squares, over the hops.
// Each b_k <= max(P, N); for terms of mixed signs the sum is about half of
// (T - 1) sum|term|, the bound without them.
struct HopBounds {
  double sum = 0, sumsq = 0;
};
HopBounds ring_hops(int T, double P, double N, double mp, double mn);

// What a correct implementation may choose that changes the check's width.
struct Family {
  double p_false_alarm = 1e-6;  // per case: the probabilistic bounds fail at most this often
  bool ftz = true;              // fp32 subnormals may be flushed to zero
  int rsqrt_ulps = 2;           // 1/sqrt(x) within this many fp32 ULPs
};

// Per element, an interval [lo, hi] of values. After a rounding point they
// are bf16 values and the admissible set is every bf16 value in [lo, hi].
// lo = hi = NaN: the element must be NaN. lo = -Inf, hi = +Inf and
// unbounded: anything (NaN included) is admissible.
// A row check (admissible_rows.cpp): every member's output row y satisfies
// lo <= sum_j w_j y_j <= hi. Made for rows whose per-element sets are wide
// because a few of Z's elements are (an order probe's 0 or 1 moves rstd):
// w is orthogonal to those columns' part of the product, so the sum sees
// what the order cannot move. Two a row: the second's w (along the shared
// sum) is orthogonal to the row's whole product, so rstd cannot move it.
// [lo, hi] is the hull of parts: a member's sum lies in one of them, one per
// range of rstd that the values of the ambiguous elements allow (an order
// probe's 0s and 1s give rstd a few narrow ranges, not their hull).
struct RowBound {
  int row = 0;
  std::shared_ptr<const Eigen::VectorXd> w;  // weights over the H hidden columns (0 where not used), shared by every tier
  double lo = 0, hi = 0;
  std::vector<std::pair<double, double>> parts;  // sorted, disjoint, within [lo, hi]
  int free_cols = 0;  // Z's ambiguous columns the weights are orthogonal to
  bool rstd_free = false;  // the weights are orthogonal to the row's own product too: rstd's range cannot move the sum
};
using RowBounds = std::vector<RowBound>;

struct Interval {
  MatD lo, hi;
  std::shared_ptr<const RowBounds> rows = nullptr;  // the tier's row checks, if any
};

// An element's verdict against its set.
bool admits(double lo, double hi, double y);
bool unbounded(double lo, double hi);
// Number of bf16 values in [lo, hi] (1 for a single value or NaN; 0 unbounded).
double set_size(double lo, double hi);
// The least z^2 over z in [lo, hi].
inline double min_square(double lo, double hi) { return lo <= 0 && hi >= 0 ? 0.0 : std::min(lo * lo, hi * hi); }
// bf16 steps from y to the nearest end of [lo, hi] (0 inside, inf for a
// NaN/Inf class mismatch).
double steps_outside(double lo, double hi, double y);

// The range of an exact dot product N~ W^T over the admissible N~.
struct DotRange {
  MatD lo, hi;  // exact range of sum_k N~_ik W_jk
  MatD A;       // upper bound on sum_k |N~_ik| |W_jk|
  int K = 0;    // terms in each dot product
  // Per element, where the row's N~ is one value per column: Q > 0 when
  // every product N~_ik W_jk is a multiple of Q >= 2^-126 and sum_k
  // |N~_ik W_jk| < 2^24 Q (lo = hi, the exact dot product, which every
  // order computes exactly); else 0. Empty where no row qualifies.
  MatD Q;
};

class AdmCtx {
 public:
  AdmCtx(const Inputs& in, const Truth& t, const MatD& W, Family f = {});
  const Inputs& in;
  const Truth& t;
  const MatD& W;
  const Family fam;

  // A reduction over the T ranks of exact bf16 terms (R or S), rounded to bf16.
  const Interval& reduce_R(Algo a);
  const Interval& reduce_S(Algo a);
  // A reduction of T terms with admissible sets: term(r) gives rank r's
  // [lo, hi] matrices. Rounded to bf16.
  struct SumAcc {
    MatD lo, hi, A, P, N;  // sums of lo, hi, max|term|, max(term, 0), max(-term, 0)
    MatD mp, mn;           // the largest max(term, 0) and max(-term, 0) (ring_hops()), kept if ring
    bool ring = false;     // set before the first term: a ring's sum_finish() uses mp and mn
    MatD q;                // a power of two dividing every admissible value of every term (bf16 values)
    int terms = 0;
    void start(Eigen::Index rows, Eigen::Index cols);  // before each term: sized at the first
    void add(Eigen::Index e, double lo, double hi);    // element e of one term
  };
  void sum_add(SumAcc& s, const MatD& lo, const MatD& hi) const;
  Interval sum_finish(const SumAcc& s, Algo a) const;
  // What underflow can lose in a reduction of T terms, on top of its rounding.
  double flush_loss(int T, Algo a) const;

  // N W^T over hidden columns [j0, j0 + nj) and latent columns [k0, k0 + K).
  // The full product (j0 = k0 = 0) is cached per (algorithm, RMSNorm order).
  const DotRange& dot_full(Algo a, NormOrder o);
  DotRange dot(Algo a, NormOrder o, int k0, int K);

  // The fp32 accumulation of a dot product plus an addend C (an admissible
  // set, or nullptr), as an interval of exact pre-rounding values.
  Interval accumulate(const DotRange& d, const Interval* C) const;
  // |N W_j^T| over latent columns [k0, k0 + K) in every member, per hidden
  // column j (Cauchy-Schwarz on rstd z; admissible.cpp); empty if eps <= 0.
  Eigen::ArrayXd norm_cap(int k0, int K) const;
  // What the terms of accumulate_round_add() owe to their dot products:
  // the sum of their addends C and of their slacks (each term, the bf16
  // rounding of its fp32 accumulation, lies within slack of its exact dot
  // product plus C).
  struct DotShare {
    MatD C, slack;
  };
  // round(accumulate(d, {C, C})) added to the sum s as one more term, in
  // one pass (C: exact bf16 values, e.g. a rank's S_r); share, if given,
  // gathers C and the slack.
  void accumulate_round_add(const DotRange& d, const MatrixB& C, SumAcc& s, DotShare* share = nullptr) const;
  // Terms whose dot products are the latent shards of one product (tier 4):
  // their sum also lies within full + sum C +- sum slack; s's ends narrowed.
  void cap_by_full(SumAcc& s, const DotShare& share, const DotRange& full) const;
  // The row checks of a tier whose output elements pass through nD bf16
  // roundings of values bounded by the row's whole product plus sum_r |S_r|
  // and nS of values bounded by sum_r |S_r| (the tier's admissible() says
  // which; admissible_rows.cpp derives the bound). Null where no row has
  // ambiguous Z elements.
  std::shared_ptr<const RowBounds> row_bounds(Algo a, int nD, int nS);
  // The bf16 roundings a reduction puts on each element it sums, for the row
  // checks' counts: one-shot 1; ring its T - 1 hops and a last, counted as T.
  int reduce_roundings(Algo a) const { return a == Algo::ring ? in.p.T : 1; }
  // One fp32 addition of two admissible sets.
  Interval add(const Interval& a, const Interval& b) const;
  // The rounding point: both ends to bf16.
  Interval round(const Interval& x) const;

  // Set sizes of RMSNorm's output, for the report: elements with more than
  // one admissible N value, and rows whose rstd range spans steps.
  struct NormStats {
    size_t fixed = 0, stepped = 0, free = 0;
  };
  NormStats norm_stats(Algo a, NormOrder o);

 private:
  struct Step {
    double theta;  // rstd at which the element moves from base to base + delta
    int k;
    double delta;
  };
  struct NormSet {
    MatD base;                             // N~ at the low end of the rstd range (midpoint if free)
    MatD rad;                              // half-width of free elements, else 0
    MatD amax;                             // max |N~| over the set
    std::vector<std::vector<Step>> steps;  // per row, by threshold
    std::vector<char> nan_row;             // the row is NaN whatever the order
    // The fused order's rstd g or z g (a member may form either first) can
    // pass FLT_MAX: such a member's N is Inf there (NaN where z is 0), and
    // the whole row of its output Inf or NaN. The row's sets are unbounded.
    std::vector<char> overflow_row;
    NormStats stats;
  };
  const NormSet& norm(Algo a, NormOrder o);
  // The ring's N W^T, sharper than the box (ring_dot() in admissible.cpp).
  struct RingZ {
    MatD V;    // per Z element: sum over its hops of the squared bound on a hop's rounding error
    MatD e;    // a rigorous bound on |z - Z|, z the ring's bf16 result
    MatD fix;  // absolute errors that need not average out (flushes, float64's Z), bounded rigorously
  };
  const RingZ& ring_z();
  // What a row check needs, per row with ambiguous Z elements, whatever the
  // tier (admissible_rows.cpp): w; d, the ranges of w . (N W^T), one per
  // range of rstd (sorted and disjoint, never empty); the sums of w_j^2
  // times the squared bounds of the two kinds of rounding;
  // fix, the rigorous part; shift, w . sum_r S_r.
  struct RowData {
    int row;
    std::shared_ptr<const Eigen::VectorXd> w;
    double varD, varS, fix, shift;
    std::vector<std::pair<double, double>> d;
    int free_cols;
    bool rstd_free;
  };
  const std::vector<RowData>& row_data(Algo a);
  // The Cauchy-Schwarz factor of norm_cap(): every member's rstd |z|_2 <= sqrt(L) F.
  double norm_cap_factor() const;
  DotRange dot_box(Algo a, NormOrder o, int k0, int K);
  std::pair<double, double> rho_range(double ss_lo, double ss_hi, bool ss_exact = false) const;
  DotRange dot_ring(NormOrder o, int k0, int K);
  Interval reduce_exact(const std::vector<MatrixB>& x, Algo a) const;
  double acc_error(double n, double A, double absX) const;
  static bool exact_sum(const DotRange& d, Eigen::Index e, double cl, double ch, double A);

  double lambda_;
  double lambda_ring_;  // the ring's own events counted too (ring_dot())
  std::unique_ptr<RingZ> ring_z_;
  MatF WT_;     // W^T [L, H], for the row-wise step paths
  MatF absWf_;  // |W| [H, L]
  // |W| where a flushing member (DAZ) reads W as 0, its subnormal
  // elements, else 0 [H, L]; null where W has none or no member flushes.
  const MatD* w_daz();
  MatD wdaz_;
  bool wdaz_known_ = false;
  std::map<int, Interval> Z_, S_;
  std::map<std::pair<int, int>, std::unique_ptr<NormSet>> norm_;
  std::map<std::pair<int, int>, std::unique_ptr<DotRange>> dot_;
  std::map<int, std::unique_ptr<std::vector<RowData>>> rows_;
};

}  // namespace ltt
