// A problem: the sizes (H hidden, L latent), the TP size T, the token count M,
// RMSNorm's eps, and how the inputs are drawn (seed, distribution). Also the
// contract an implementation declares (reduction algorithm, RMSNorm rounding
// order), shape validation with messages that name the rule, and tier
// selection as the production runner does it (DESIGN.md section 2).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "status.hpp"

namespace ltt {

constexpr int kNumTiers = 5;

enum class Dist { realistic, exact, adversarial };
// How a collective sums T bf16 partials (DESIGN.md section 3).
//   one_shot: every rank reads all T inputs, sums in rank order 0..T-1 in
//             fp32, rounds once to bf16.
//   ring:     T-1 hops; chunk c of the buffer starts on rank c+1 and ends on
//             rank c, the partial rounded to bf16 at every hop.
enum class Algo { one_shot, ring };
// The family a collective of T ranks is judged by: a ring over T <= 2 ranks
// is one hop, one fp32 add and one bf16 rounding per element, which
// one-shot's family already holds (its sets, not the ring's wider ones).
constexpr Algo judged_algo(Algo a, int T) { return a == Algo::ring && T <= 2 ? Algo::one_shot : a; }
// Where RMSNorm rounds N = Z * rstd * g to bf16.
//   round_then_weight: t = bf16(Z * rstd), N = bf16(t * g)   (vLLM's rms_norm op)
//   fused:             N = bf16((Z * rstd) * g), fp32 until the one rounding
enum class NormOrder { round_then_weight, fused };
enum class Mode { exact, emulated };

const char* name(Dist d);
const char* name(Algo a);
const char* name(NormOrder o);
const char* name(Mode m);
std::optional<Dist> parse_dist(const std::string& s);
std::optional<Algo> parse_algo(const std::string& s);
std::optional<NormOrder> parse_norm_order(const std::string& s);

struct Contract {
  Algo algo = Algo::one_shot;
  NormOrder norm = NormOrder::round_then_weight;
};

struct Dims {
  int H = 0;
  int L = 0;
};
constexpr Dims kDimsK3{7168, 3584};  // Kimi-K3
constexpr Dims kDimsSmall{256, 128};
// "k3", "small" or "H,L" (e.g. "1024,512").
Result<Dims> parse_dims(const std::string& s);

struct Problem {
  int H = kDimsK3.H;
  int L = kDimsK3.L;
  int T = 8;  // TP size
  int M = 1;  // tokens
  double eps = 1e-6;
  uint64_t seed = 0;
  Dist dist = Dist::realistic;

  int Hs() const { return H / T; }  // hidden shard of one rank (tiers 0, 2)
  int Ls() const { return L / T; }  // latent shard of one rank (tier 4)
  std::string describe() const;     // "H 7168 L 3584 T 8 M 5 eps 1e-06 seed 0 realistic"
};

Problem make_problem(Dims d, int T, int M, Dist dist = Dist::realistic, uint64_t seed = 0, double eps = 1e-6);

// Rules every problem obeys; the message names the broken rule.
Status validate(const Problem& p);
// validate() plus the tier's own rules (tier 0: 1 <= M <= 128, T >= 2).
Status validate_for_tier(const Problem& p, int tier);
// Those rules in words, for the messages of runs that skip or refuse a tier.
inline constexpr const char* kTier0Applies = "tier 0 needs T >= 2 and M <= 128";

enum class DType { bf16, fp16, fp32 };

struct SelectionConfig {
  bool device_supports_tail_fusion = true;  // SM100-class device and a build with the fused kernel
  int shared_stream_token_threshold = 256;  // VLLM_SHARED_EXPERTS_STREAM_TOKEN_THRESHOLD
};

// The production runner's choice: tier 0 when supported, T in {8, 16}, bf16
// and 1 <= M <= 128; else tier 1 when M <= threshold; else tier 2.
int select_tier(int T, int M, DType dtype, const SelectionConfig& cfg = {});

}  // namespace ltt
