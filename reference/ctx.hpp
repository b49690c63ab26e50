// What a tier's per-rank pipeline works on: the local ranks' partials, the
// replicated weights, the collectives, the declared contract, and the outputs.
#pragma once

#include <vector>

#include "comm.hpp"
#include "kernels.hpp"
#include "member.hpp"
#include "problem.hpp"

namespace ltt {

template <class P>
struct Ctx {
  using M = Mat<typename P::Real>;
  const Problem& p;
  Contract contract;
  Comm<P>& comm;
  std::vector<M> R;  // per local rank (comm.local()[i]), [M, L]; the pipeline may consume it
  std::vector<M> S;  // per local rank, [M, H]; the pipeline may consume it
  const M& g;        // [1, L]
  const M& W;        // [H, L]
  std::vector<M> Y;  // per local rank, [M, H]: the pipeline's output
  // A planted fault, to prove that the checks catch it (ltt check --plant):
  // this TP rank up-projects with the W rows of shard r+1 instead of its own
  // (tiers 0 and 2). -1: none.
  int fault_shard_rank = -1;

  // The family member or mutant the pipeline runs as (member.hpp); null: the reference.
  const Member* member = nullptr;

  bool mutant(Mutant m) const { return member && member->is(m); }
  int rank(size_t i) const { return comm.local()[i]; }
  // RMSNorm of local rank i's Z, and A B^T (+ C), as the member computes them.
  // Every rank runs the same kernels, so a variant's draws restart for each
  // local rank at its RMSNorm (and the GEMM that follows it in tiers 0, 2, 4).
  M norm(const M& Z, size_t i) const {
    if (member && member->var.on) {
      if (i == 0) draws_at_rank0_ = member->var.calls;
      else member->var.calls = draws_at_rank0_;
    }
    return rmsnorm_m<P>(Z, g, p.eps, contract.norm, member, rank(i), p.T);
  }
  M gemm(const ConstRef<typename P::Real>& A, const ConstRef<typename P::Real>& B, const M* C = nullptr) const {
    return gemm_m<typename P::Real>(A, B, C, member);
  }
  // The rows of W that local rank i up-projects with (its hidden shard).
  M w_rows(size_t i) const {
    const int Hs = p.Hs();
    if (!mutant(Mutant::shard_offset_all)) return W.middleRows(w_shard(i) * Hs, Hs);
    M w(Hs, W.cols());  // one row late; the last rank wraps to row 0
    for (int j = 0; j < Hs; ++j) w.row(j) = W.row((rank(i) * Hs + j + 1) % p.H);
    return w;
  }
  // The hidden shard whose rows of W local rank i multiplies by.
  int w_shard(size_t i) const { return rank(i) == fault_shard_rank ? (rank(i) + 1) % p.T : rank(i); }
  size_t n_local() const { return comm.local().size(); }
  mutable uint64_t draws_at_rank0_ = 0;  // norm()'s bookkeeping
};

}  // namespace ltt
