// Problem names, parsing, validation and tier selection.
#include "problem.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

namespace ltt {

const char* name(Dist d) {
  switch (d) {
    case Dist::realistic: return "realistic";
    case Dist::exact: return "exact";
    case Dist::adversarial: return "adversarial";
  }
  return "?";
}
const char* name(Algo a) { return a == Algo::one_shot ? "one-shot" : "ring"; }
const char* name(NormOrder o) { return o == NormOrder::fused ? "fused" : "round-then-weight"; }
const char* name(Mode m) { return m == Mode::exact ? "exact" : "emulated"; }

std::optional<Dist> parse_dist(const std::string& s) {
  for (Dist d : {Dist::realistic, Dist::exact, Dist::adversarial})
    if (s == name(d)) return d;
  return std::nullopt;
}
std::optional<Algo> parse_algo(const std::string& s) {
  for (Algo a : {Algo::one_shot, Algo::ring})
    if (s == name(a)) return a;
  return std::nullopt;
}
std::optional<NormOrder> parse_norm_order(const std::string& s) {
  for (NormOrder o : {NormOrder::round_then_weight, NormOrder::fused})
    if (s == name(o)) return o;
  return std::nullopt;
}

Result<Dims> parse_dims(const std::string& s) {
  if (s == "k3") return kDimsK3;
  if (s == "small") return kDimsSmall;
  auto comma = s.find(',');
  if (comma != std::string::npos) {
    char* end1 = nullptr;
    char* end2 = nullptr;
    std::string a = s.substr(0, comma), b = s.substr(comma + 1);
    long h = std::strtol(a.c_str(), &end1, 10);
    long l = std::strtol(b.c_str(), &end2, 10);
    // Digits alone, as every integer flag takes them (no sign, no space).
    auto digits = [](const std::string& x) {
      return !x.empty() && std::all_of(x.begin(), x.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
    };
    const bool numbers = digits(a) && digits(b) && *end1 == 0 && *end2 == 0;
    if (numbers && h > 0 && l > 0 && h <= (1 << 20) && l <= (1 << 20))
      return Dims{static_cast<int>(h), static_cast<int>(l)};
    if (numbers && h > 0 && l > 0)  // strtol saturates past long: still too large
      return LTT_USAGE("dims '", s, "': H and L are at most 1048576 each (k3 is 7168,3584)");
  }
  return LTT_USAGE("dims '", s, "' not understood: use k3 (H 7168, L 3584), small (H 256, L 128) or H,L with positive integers (e.g. 1024,512)");
}

std::string Problem::describe() const {
  return cat("H ", H, " L ", L, " T ", T, " M ", M, " eps ", eps, " seed ", seed, " ", name(dist));
}

Problem make_problem(Dims d, int T, int M, Dist dist, uint64_t seed, double eps) {
  Problem p;
  p.H = d.H;
  p.L = d.L;
  p.T = T;
  p.M = M;
  p.dist = dist;
  p.seed = seed;
  p.eps = eps;
  return p;
}

Status validate(const Problem& p) {
  if (p.H < 1 || p.L < 1) return LTT_USAGE("H = ", p.H, " and L = ", p.L, " must both be >= 1");
  if (p.T < 1) return LTT_USAGE("TP size T = ", p.T, " must be >= 1");
  if (p.M < 1) return LTT_USAGE("M = ", p.M, " tokens: a batch needs M >= 1");
  if (p.H % p.T != 0)
    return LTT_USAGE("H = ", p.H, " is not divisible by T = ", p.T,
                     ": every rank owns an equal hidden shard H/T (H % T == 0); give a --tp that divides both H and L");
  if (p.L % p.T != 0)
    return LTT_USAGE("L = ", p.L, " is not divisible by T = ", p.T,
                     ": every rank owns an equal latent shard L/T (L % T == 0); give a --tp that divides both H and L");
  if (!(p.eps > 0.0) || !std::isfinite(p.eps))
    return LTT_USAGE("eps = ", p.eps, " must be a finite number > 0 (RMSNorm divides by sqrt(mean + eps))");
  // A member may flush each square below 2^-126 to zero (FTZ is free in the
  // contract): the sum of squares can then lose up to L 2^-126, and the
  // rounding analysis holds only while that stays below eps's own rounding
  // (2^-24 eps). Below it no bound exists (the analysis divides by ~0).
  if (const double floor = p.L * std::ldexp(1.0, -102); p.eps < floor)
    return LTT_USAGE("eps = ", shortest(p.eps), " is below L 2^-102 = ", shortest(floor), " (L = ", p.L,
                     "): squares flushed to zero (FTZ) could then outweigh eps, and no error bound holds; use eps >= ",
                     shortest(floor));
  if (p.T > 256 && p.dist == Dist::exact)
    return LTT_USAGE("the exact distribution needs T <= 256 (its sums must fit bf16's 8-bit significand)");
  return {};
}

Status validate_for_tier(const Problem& p, int tier) {
  if (tier < 0 || tier >= kNumTiers) return LTT_USAGE("tier ", tier, " does not exist: tiers are 0..", kNumTiers - 1);
  LTT_TRY(validate(p));
  if (tier == 0) {
    if (p.T < 2)
      return LTT_USAGE("tier 0 (TAIL_FUSION) needs T >= 2: its reduce-scatter and Lamport all-gather span ranks (got T = ", p.T, ")");
    if (p.M > 128)
      return LTT_USAGE("tier 0 (TAIL_FUSION) is a decode tier: it needs 1 <= M <= 128 (got M = ", p.M, ")");
  }
  return {};
}

int select_tier(int T, int M, DType dtype, const SelectionConfig& cfg) {
  if (cfg.device_supports_tail_fusion && (T == 8 || T == 16) && dtype == DType::bf16 && M >= 1 && M <= 128) return 0;
  if (M <= cfg.shared_stream_token_threshold) return 1;
  return 2;
}

}  // namespace ltt
