// Rigorous componentwise error bounds (DESIGN.md section 3), built by
// propagating an absolute error bound through each rounding point.
//
// Model: a stored value rounds with relative error <= us (bf16: 2^-8) plus an
// absolute tiny_s where it underflows; an arithmetic operation with <= ua
// (fp32: 2^-24) plus tiny_a. In exact mode both are float64's 2^-53.
// Throughout, x is an exact quantity, e a bound on |computed - x|, so that
// |computed| <= |x| + e. gamma_n(u) = n u / (1 - n u) (Higham, Accuracy and
// Stability of Numerical Algorithms, 2nd ed., Lemma 3.1).
//
//   round to storage   e' = e + us (|x| + e) + tiny_s
//   add (acc. type)    e' = e1 + e2 + ua (|x1 + x2| + e1 + e2) + tiny_a
//   sum of k terms in a fixed order, accumulated:     Higham (4.4):
//                      e' = sum e_i + gamma_{k-1}(ua) sum (|x_i| + e_i)
//   ring, each hop rounded to storage: per hop (1+ua)(1+us), so the same with
//                      u' = ua + us + ua us and (k-1)(tiny_a + tiny_s) added;
//                      and, sharper when the exact terms and the ring's
//                      order are known (Higham (4.3) with exact partial sums
//                      s_2..s_k of the terms in the order the ring adds them):
//                      e' = sum e_i + (1 + gamma_k(u')) u' (sum_j |s_j| + (k-1) sum e_i)
//                      (the computed partial errs by E_j <= (1+u') E_{j-1} + u' (|s_j| + sum e_i));
//                      the smaller of the two is used
//   dot product of K bf16 products (exact in fp32) with exact weights W:
//                      e' = sum_k e_k |W_k| + gamma_K(ua) sum_k (|N_k| + e_k)|W_k|
//                      (gamma_K, not K-1: room for an accumulator that does
//                      not start from the first product)
// RMSNorm: see rmsnorm_error() in bounds.cpp.
#pragma once

#include <map>
#include <tuple>
#include <vector>
#include <utility>

#include "inputs.hpp"
#include "problem.hpp"
#include "tensor.hpp"

namespace ltt {

struct Units {
  double us;      // storage rounding
  double ua;      // accumulation rounding
  double tiny_s;  // absolute error of a storage rounding that underflows
  double tiny_a;  // same, accumulation type
  static Units of(Mode m);
};

double gamma(double n, double u);

// Where a reduction's elements sit in the buffer whose ring chunks decide
// their order (comm.hpp): columns [offset, offset + cols) of rows `width`
// wide (width 0: the matrix itself), or the column shards of a
// reduce-scatter.
struct RingPlace {
  int offset = 0;
  int width = 0;
  bool col_shards = false;
};

// A rigorous upper bound on A B^T for nonnegative A and B (B: bf16 values
// in fp32), computed in fp32 and corrected upward (bounds.cpp).
MatD nonneg_gemm_upper(const MatD& A, const ConstRef<float>& B);

// The float64 truth of an input set and the magnitudes the bounds need.
struct Truth {
  MatD Z;      // [M, L] sum_r R_r
  MatD N;      // [M, L] RMSNorm(Z)
  MatD NW;     // [M, H] N W^T
  MatD S;      // [M, H] sum_r S_r
  MatD Y;      // [M, H] NW + S: the layer's output
  MatD AR;     // [M, L] sum_r |R_r|
  MatD AS;     // [M, H] sum_r |S_r|
  MatD absNW;  // [M, H] an upper bound on |N| |W|^T (fp32, rounded up: bounds.cpp)
  // The element's magnitude scale: sum_k |N_ik||W_jk| + sum_r |S_r,ij|.
  MatD scale() const { return absNW + AS; }
};

// The monolithic formula in float64. W and absW are the widened weights.
Truth compute_truth(const Inputs& in, const MatD& W, const MatD& absW);

// Everything a tier's bound is assembled from, with caches: the latent
// reduction's error eZ and RMSNorm's eN, and E = eN |W|^T, depend only on
// (algorithm, RMSNorm order), so tiers that share them compute them once.
class BoundCtx {
 public:
  BoundCtx(const Inputs& inputs, const Truth& truth, const MatD& w, const MatD& abs_w, Mode mode)
      : in(inputs), t(truth), W(w), absW(abs_w), u(Units::of(mode)) {}
  const Inputs& in;
  const Truth& t;
  const MatD& W;
  const MatD& absW;
  const Units u;

  // The ranks' partials in float64, rank order.
  const std::vector<MatD>& R();
  const std::vector<MatD>& S();
  // The ranks' S as a reduction's exact terms: only the ring's bound needs
  // them (one-shot: null, and nothing widened).
  const std::vector<MatD>* S_terms(Algo a) { return a == Algo::ring ? &S() : nullptr; }

  struct Norm {
    MatD eZ;  // [M, L] bound on |Z~ - Z|
    MatD eN;  // [M, L] bound on |N~ - N|
    MatD E;   // [M, H] eN |W|^T
  };
  // `place`: where Z sits in the latent reduction's buffer.
  const Norm& norm(Algo algo, NormOrder order, RingPlace place = {});

  // Bound on a reduction over T ranks whose exact terms have absolute sum A,
  // whose inputs carry errors summing to Ein (nullptr: exact inputs), and
  // whose exact result is X. With the exact terms (rank order) and their
  // place, a ring's bound also uses the exact partial sums in ring order.
  MatD reduce(const MatD& X, const MatD& A, const MatD* Ein, Algo algo, const std::vector<MatD>* terms = nullptr,
              RingPlace place = {}) const;
  // Bound on a dot product over K of N~ with the exact W, given E and |N||W|^T
  // restricted to the same K terms.
  MatD dot(const MatD& E, const MatD& absNW, double K) const;
  // Storage rounding, and accumulation-type addition, of an erred quantity.
  MatD round(const MatD& X, const MatD& e) const;
  MatD add(const MatD& X, const MatD& e) const;  // e: sum of the operands' bounds

 private:
  std::map<std::tuple<int, int, int, int>, Norm> cache_;
  std::vector<MatD> R_, S_;
  MatF absWf_;
};

}  // namespace ltt
