// The two arithmetics a pipeline runs in (DESIGN.md section 3).
//   ExactArith     float64 throughout, nothing rounded to bf16: with bf16
//                  inputs this is the mathematical truth up to float64's own
//                  roundoff (2^-53).
//   EmulatedArith  bf16 storage, fp32 arithmetic: values live in floats that
//                  hold bf16 numbers; round() is the bf16 rounding point.
#pragma once

#include "bf16.hpp"
#include "problem.hpp"
#include "tensor.hpp"

namespace ltt {

struct ExactArith {
  using Real = double;
  static constexpr Mode mode = Mode::exact;
  static double round(double x) { return x; }
  static void round(Mat<double>&) {}
};

struct EmulatedArith {
  using Real = float;
  static constexpr Mode mode = Mode::emulated;
  static float round(float x) { return round_bf16(x); }
  static void round(Mat<float>& m) { round_bf16_inplace(m); }
};

}  // namespace ltt
