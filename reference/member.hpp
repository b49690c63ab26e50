// Members of a tier's family, and planted bugs, for the cpu backend.
//
// Variant: a random correct member of the family (admissible.hpp): every
// collective sums the T partials in a random order and tree (one-shot) or
// in a random ring order, a random permutation of the ranks for each chunk
// (ring: NCCL's rings visit the ranks in permuted orders); every GEMM splits K at random points
// into fp32 partials computed with a random panel size and adds them (and
// the epilogue's addend, first or last) in a random order; RMSNorm's sum of
// squares uses a random number of interleaved accumulators combined in a
// random order, divides by L or multiplies by fl(1/L), perturbs 1/sqrt by
// -2..2 fp32 ULP and (fused order) multiplies z, rstd and g in a random
// order; FTZ/DAZ on or off for the whole run. Every choice comes from a
// counter-based generator keyed by (seed, call number), so a rerun of the
// same case gives the same bits, and every rank takes the same choice (the
// output must be the same on every rank).
//
// Mutant: one planted bug (mutants(), `ltt mutants`), to prove the checks
// catch what no member can produce. None is active in the reference.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensor.hpp"

namespace ltt {

struct Variant {
  uint64_t seed = 0;
  bool on = false;
  mutable uint64_t calls = 0;  // draws so far in this run (reset per run)
  // A fresh 64-bit draw for the next choice.
  uint64_t draw() const;
  // Uniform integer in [0, n).
  int pick(int n) const { return static_cast<int>(draw() % static_cast<uint64_t>(n)); }
  bool ftz() const;  // fixed per seed
};

enum class Mutant {
  none,
  shard_last_rank,     // the last rank up-projects shard 0's rows of W (tiers 0, 2)
  shard_offset_all,    // every rank's W shard starts one row late (tiers 0, 2)
  rs_next_shard,       // the reduce-scatter gives rank r the shard of r+1 (tier 0)
  drop_rank,           // the last rank's partial left out of every reduction
  double_rank,         // the last rank's partial counted twice in every reduction
  mean_l_over_t,       // RMSNorm's mean over L/T instead of L
  eps_missing,         // RMSNorm without eps
  eps_x10,             // eps ten times too large
  eps_outside_sqrt,    // 1 / (sqrt(mean) + eps)
  eps_one_rank,        // rank 1 uses 10 eps
  g_missing,           // RMSNorm without its weight
  g_twice,             // the weight applied twice
  gemm_bf16_acc,       // the up-projection accumulates in bf16
  gemm_round_then_add, // the up-projection's output rounded to bf16 before its addend is added (tiers 0, 2, 3, 4)
  ss_bf16,             // the sum of squares accumulates in bf16
  swap_shard_edge,     // W rows Hs - 1 and Hs swapped: two output columns across a shard edge
  lamport_stale,       // the Lamport all-gather never clears its buffers (tier 0)
  lamport_neg_zero,    // a real -0 published unsanitised: the reader waits forever (tier 0)
  last_row_unwritten,  // the last token row of Y never written
  tier1_own_s,         // tier 1 adds the rank's own unreduced S_r (the aux stream not awaited)
  tier3_split_off,     // tier 3 splits [R | S] one column off
  row_scaled,          // one token row scaled by 1.03
};

struct MutantDef {
  Mutant m;
  const char* name;
  const char* what;
  std::vector<int> tiers;  // where it applies
  // The least T at which it is a bug: below it the mutant is the correct code
  // (the last rank's shard is shard 0 at T 1) or names a rank that is not there.
  int min_tp = 1;
  // What cases can show it, where some correct-looking cases cannot: said
  // when a run misses it (nullptr: every case of its tiers can).
  const char* needs = nullptr;
};
const std::vector<MutantDef>& mutants();
const MutantDef* find_mutant(const std::string& name);

// What a pipeline runs as: the reference (neither), a variant, or a mutant.
struct Member {
  Variant var;
  Mutant mut = Mutant::none;
  bool is(Mutant m) const { return mut == m; }
};

// Sets FTZ and DAZ in the calling thread and every OpenMP worker while alive
// (a variant with ftz()); after, every one of them has the calling thread's
// mode from before (workers too that the runtime started meanwhile).
class FlushGuard {
 public:
  explicit FlushGuard(bool on);
  ~FlushGuard();
  FlushGuard(const FlushGuard&) = delete;
  FlushGuard& operator=(const FlushGuard&) = delete;

 private:
  bool on_;
  unsigned saved_ = 0;
};

}  // namespace ltt
