// bfloat16 storage: 1 sign, 8 exponent, 7 stored mantissa bits (unit roundoff
// 2^-8). Conversions round to nearest, ties to even, from float and directly
// from double (no double rounding through float); NaN stays NaN (quieted,
// sign kept), -0 stays -0, overflow goes to infinity, subnormals are kept.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace ltt {

struct bf16 {
  uint16_t bits = 0;
  friend bool operator==(bf16 a, bf16 b) { return a.bits == b.bits; }
};

inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

inline bf16 to_bf16(float f) {
  uint32_t u = float_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return bf16{static_cast<uint16_t>((u >> 16) | 0x0040u)};
  u += 0x7fffu + ((u >> 16) & 1u);  // round to nearest even; carries into the exponent
  return bf16{static_cast<uint16_t>(u >> 16)};
}

// Direct from double: round to float *to odd* (24 bits, sticky in the last
// bit), then to bf16 to nearest even. Rounding to odd at >= p+2 bits and then
// to nearest at p bits equals one rounding to nearest at p bits.
// Fast path: rounding to float first changes the final result only when it
// lands exactly on a bf16 midpoint (low 16 bits 0x8000); rounding is
// monotonic and bf16 values and midpoints are floats, so anything else
// rounds the same way as d itself. NaN and overflow also take the fast path.
inline bf16 to_bf16(double d) {
  float f = static_cast<float>(d);
  if ((float_bits(f) & 0xffffu) != 0x8000u || std::isnan(d)) return to_bf16(f);
  // Slow path (f sits on a bf16 midpoint, so it is finite): truncate to odd.
  if (std::fabs(static_cast<double>(f)) > std::fabs(d)) f = std::nextafter(f, 0.0f);
  if (static_cast<double>(f) != d) f = bits_float(float_bits(f) | 1u);
  return to_bf16(f);
}

inline float to_float(bf16 b) { return bits_float(static_cast<uint32_t>(b.bits) << 16); }
inline double to_double(bf16 b) { return static_cast<double>(to_float(b)); }

// The value nearest f that bf16 can hold, as a float (the emulated rounding point).
inline float round_bf16(float f) { return to_float(to_bf16(f)); }

constexpr double kBf16Max = 3.3895313892515355e38;     // 0x7f7f
constexpr double kBf16MinSubnormal = 9.183549615799121e-41;  // 2^-133, 0x0001
constexpr double kBf16Unit = 0.00390625;              // u = 2^-8
constexpr double kFp32Unit = 5.9604644775390625e-08;  // u = 2^-24

// The spacing of bf16 numbers at magnitude |x|: 2^(e-7) where 2^e <= |x| < 2^(e+1),
// and 2^-133 in the subnormal range (and at 0).
double bf16_ulp(double x);

// Distance between two finite values in units of bf16_ulp(scale). Equal
// values (+0 and -0 included) are 0 apart.
double ulp_distance(double a, double b, double scale);

}  // namespace ltt
