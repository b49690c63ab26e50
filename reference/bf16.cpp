// bf16 spacing and ULP distances, the units of the emulated-reference contract.
#include "bf16.hpp"

#include <algorithm>

namespace ltt {

double bf16_ulp(double x) {
  x = std::fabs(x);
  if (!(x >= 1.1754943508222875e-38)) return kBf16MinSubnormal;  // subnormal, 0 (and NaN)
  int e;
  std::frexp(x, &e);  // x = m * 2^e, 0.5 <= m < 1
  return std::ldexp(1.0, e - 1 - 7);
}

double ulp_distance(double a, double b, double scale) {
  if (a == b) return 0.0;
  return std::fabs(a - b) / bf16_ulp(std::max({std::fabs(scale), std::fabs(a), std::fabs(b)}) );
}

}  // namespace ltt
