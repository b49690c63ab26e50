// Element-wise comparison of an output against the float64 truth and its
// bound: the figures every report prints.
#pragma once

#include <cstddef>
#include <string>

#include "problem.hpp"
#include "tensor.hpp"

namespace ltt {

struct ErrorStats {
  size_t n = 0;                    // elements compared
  size_t over = 0;                 // finite elements with |y - truth| > bound
  size_t nonfinite_expected = 0;   // elements whose expected value is NaN or +-Inf
  size_t nonfinite_mismatch = 0;   // ...and y is not the same NaN / +Inf / -Inf (or y is, unexpectedly)
  size_t nonzero = 0;              // elements of y that are not zero
  size_t zero_in_bound = 0;        // elements whose truth is finite and within its bound of 0 (0 would be right there)
  double max_ratio = 0;            // max |y - truth| / bound
  double p999_ratio = 0;           // 99.9th percentile of the same, a NaN/Inf class mismatch counted as +inf
  double max_abs = 0;              // max |y - truth|
  double max_rel = 0;              // max |y - truth| / |truth| (truth != 0)
  double normwise = 0;             // ||y - truth||_F / ||truth||_F (NaN where not meaningful: see normwise_note)
  std::string normwise_note;       // why normwise is not computed, or ""
  long first_over = -1;            // flat index of the first element over its bound
  // An all-zero output fails (an unwritten output must not pass) unless 0
  // is right everywhere: a case whose truth lies within its bound of 0.
  bool all_zero() const { return n == 0 || (nonzero == 0 && zero_in_bound < n); }
  bool ok() const { return over == 0 && nonfinite_mismatch == 0 && !all_zero(); }
};
// The figures above but n, the counts and first_over are over the elements
// finite in both y and the truth. For a table: max_ratio ("0.53"), or "inf"
// where an element's non-finite class differs from the truth's (a NaN or an
// infinity where the truth has a number or another class: no finite error).
std::string max_ratio_text(const ErrorStats& s);

// The value an output must have where it cannot be finite: in emulated mode
// the truth rounded to bf16 (a sum past bf16's maximum is +-Inf), in exact
// mode the truth itself.
double expected_value(double truth, Mode mode);

ErrorStats compare_to_truth(const MatD& y, const MatD& truth, const MatD& bound, Mode mode);
ErrorStats compare_to_truth(const MatrixB& y, const MatD& truth, const MatD& bound, Mode mode);

// Finite elements with |y - truth| > rel * scale (exact mode promises
// rel = 1e-12 of sum_k |N_ik||W_jk| + sum_r |S_r,ij|). Non-finite elements
// are left to compare_to_truth's class check.
size_t count_over_scale(const MatD& y, const MatD& truth, const MatD& scale, double rel);

// Index of the first element at which two outputs differ bitwise, or -1.
long first_bitwise_difference(const MatrixB& a, const MatrixB& b);

}  // namespace ltt
