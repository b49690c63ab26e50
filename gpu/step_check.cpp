// step_outside_bound(): step_check.hpp. Built with or without CUDA.
#include "step_check.hpp"

#include <cmath>
#include <sstream>

namespace ltt::gpu {

std::string step_outside_bound(const StepOperands& op) {
  const int M = op.M, n = op.n, K = op.K;
  const size_t MK = static_cast<size_t>(M) * K, nK = static_cast<size_t>(n) * K, Mn = static_cast<size_t>(M) * n;
  if (M < 1 || n < 1 || K < 1 || op.a.size() != MK || op.w.size() != nK || op.s.size() != Mn || op.y.size() != Mn ||
      (!op.g.empty() && op.g.size() != static_cast<size_t>(K)))
    return "step_outside_bound: operands of the wrong sizes";
  const double u32 = std::ldexp(1.0, -24), u16 = std::ldexp(1.0, -8);
  const auto gamma = [&](double k) { return k * u32 / (1 - k * u32); };
  const bool norm = !op.g.empty();
  const double e_r = gamma(K) / 2 + 6 * u32, e_n = u16 + 2 * u32 + e_r;
  std::vector<double> nrow(static_cast<size_t>(K));
  for (int m = 0; m < M; ++m) {
    const bf16* a = op.a.data() + static_cast<size_t>(m) * K;
    double rstd = 1;
    if (norm) {
      double ss = 0;
      for (int k = 0; k < K; ++k) ss += to_double(a[k]) * to_double(a[k]);
      rstd = 1 / std::sqrt(ss / K + static_cast<double>(op.eps));
    }
    for (int k = 0; k < K; ++k)
      nrow[static_cast<size_t>(k)] = norm ? to_double(a[k]) * rstd * to_double(op.g[static_cast<size_t>(k)]) : to_double(a[k]);
    for (int j = 0; j < n; ++j) {
      const bf16* w = op.w.data() + static_cast<size_t>(j) * K;
      double dot = 0, mag = 0;
      for (int k = 0; k < K; ++k) {
        const double p = nrow[static_cast<size_t>(k)] * to_double(w[k]);
        dot += p;
        mag += std::fabs(p);
      }
      const size_t e = static_cast<size_t>(m) * n + j;
      const double exact = dot + to_double(op.s[e]);
      const double E = gamma(2.0 * K) * (norm ? 2 : 1) * mag + (norm ? e_n * mag : 0);
      // The last term: a flushed fp32 subnormal an operation (the contract
      // allows FTZ) and bf16's half subnormal step.
      const double bound = (u16 + 2 * u32) * (std::fabs(exact) + E) + E + (2.0 * K + 4) * std::ldexp(1.0, -126);
      const double y = to_double(op.y[e]);
      // 1e-9 of the bound: room for the double sums' own rounding.
      if (!std::isfinite(y) || std::fabs(y - exact) > bound * (1 + 1e-9)) {
        std::ostringstream os;
        os.precision(9);
        os << "Y[" << m << ", " << j << "] = " << y << " (bits 0x" << std::hex << op.y[e].bits << std::dec
           << ") where the exact value is " << exact << " +- " << bound;
        return os.str();
      }
    }
  }
  return {};
}

}  // namespace ltt::gpu
