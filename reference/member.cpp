// Variants' random choices, the mutant table, FTZ/DAZ.
#include "member.hpp"

#include <omp.h>
#include <xmmintrin.h>

namespace ltt {

namespace {

uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

uint64_t Variant::draw() const { return splitmix(splitmix(seed) ^ (calls++ * 0xd6e8feb86659fd93ull)); }

bool Variant::ftz() const { return on && (splitmix(seed ^ 0x5ca1ab1eull) & 1); }

const std::vector<MutantDef>& mutants() {
  static const std::vector<MutantDef> table = {
      {Mutant::shard_last_rank, "shard-last-rank", "the last rank up-projects shard 0's rows of W", {0, 2}, 2},
      {Mutant::shard_offset_all, "shard-offset", "every rank's W shard starts one row late", {0, 2}},
      {Mutant::rs_next_shard, "rs-next-shard", "the reduce-scatter gives rank r the shard of rank r+1", {0}, 2},
      {Mutant::drop_rank, "drop-rank", "the last rank's partial left out of every reduction", {0, 1, 2, 3, 4}, 2},
      {Mutant::double_rank, "double-rank", "the last rank's partial counted twice in every reduction", {0, 1, 2, 3, 4}},
      {Mutant::mean_l_over_t, "mean-l-over-t", "RMSNorm's mean taken over L/T instead of L", {0, 1, 2, 3, 4}, 2},
      {Mutant::eps_missing, "eps-missing", "RMSNorm without eps", {0, 1, 2, 3, 4}},
      {Mutant::eps_x10, "eps-x10", "eps ten times too large", {0, 1, 2, 3, 4}},
      {Mutant::eps_outside_sqrt, "eps-outside-sqrt", "rstd = 1 / (sqrt(mean) + eps)", {0, 1, 2, 3, 4}},
      {Mutant::eps_one_rank, "eps-one-rank", "rank 1 uses ten times the eps", {0, 1, 2, 3, 4}, 2},
      {Mutant::g_missing, "g-missing", "RMSNorm without its weight g", {0, 1, 2, 3, 4}},
      {Mutant::g_twice, "g-twice", "RMSNorm's weight applied twice", {0, 1, 2, 3, 4}},
      {Mutant::gemm_bf16_acc, "gemm-bf16-acc", "the up-projection accumulates in bf16", {0, 1, 2, 3, 4}},
      {Mutant::gemm_round_then_add, "gemm-round-then-add",
       "the up-projection's output rounded to bf16 before its addend is added (cuBLASLt in place; torch.addmm)", {0, 2, 3, 4}},
      {Mutant::ss_bf16, "ss-bf16", "the sum of squares accumulates in bf16", {0, 1, 2, 3, 4}},
      {Mutant::swap_shard_edge, "swap-shard-edge", "two output columns swapped across a shard edge (Hs-1, Hs)", {0, 1, 2, 3, 4}, 2},
      {Mutant::lamport_stale, "lamport-stale", "the Lamport all-gather never clears its buffers", {0}, 2,
       "tier-0 cases of one shape whose data differ, in one run (two or more distributions or seeds): a reader then finds another case's values in a buffer nobody cleared"},
      {Mutant::lamport_neg_zero, "lamport-neg-zero", "a real -0 published unsanitised (the reader waits forever)", {0}, 2,
       "inputs that hold -0, which a writer must turn into +0 (the adversarial distribution's -0 rows, which a small M may lack)"},
      {Mutant::last_row_unwritten, "last-row-unwritten", "the last token row of Y never written", {0, 1, 2, 3, 4}},
      {Mutant::tier1_own_s, "tier1-own-s", "tier 1 adds its own unreduced S_r (the aux stream's reduce not awaited)", {1}, 2},
      {Mutant::tier3_split_off, "tier3-split-off", "tier 3 splits [R | S] one column off", {3}},
      {Mutant::row_scaled, "row-scaled", "one token row scaled by 1.03", {0, 1, 2, 3, 4}},
  };
  return table;
}

const MutantDef* find_mutant(const std::string& name) {
  for (const auto& d : mutants())
    if (name == d.name) return &d;
  return nullptr;
}

// The destructor gives every thread, workers and the calling thread alike,
// the calling thread's mode from before, not a mode each saved itself: a
// worker the runtime starts for the constructor's region (the first team of
// this size) is a copy of the calling thread, and one that saved its mode
// there could save a flushing one and flush for good (forty-fifth session:
// ltt_tests with 3 or more OpenMP threads, after a member with ftz(), had
// the emulated reference flush subnormal rows). A worker's number need not
// name the same thread in two regions either.
FlushGuard::FlushGuard(bool on) : on_(on) {
  if (!on_) return;
  saved_ = _mm_getcsr();
#pragma omp parallel  // the calling thread is one of the team
  _mm_setcsr(_mm_getcsr() | 0x8040u);
}

FlushGuard::~FlushGuard() {
  if (!on_) return;
#pragma omp parallel
  _mm_setcsr(saved_);
}

}  // namespace ltt
