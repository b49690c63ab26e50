// What a tier's per-rank pipeline works on: the local ranks' partials, the
// replicated weights, the collectives, the declared contract, and the outputs.
#pragma once

#include <vector>

#include "comm.hpp"
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

  int rank(size_t i) const { return comm.local()[i]; }
  // The hidden shard whose rows of W local rank i multiplies by.
  int w_shard(size_t i) const { return rank(i) == fault_shard_rank ? (rank(i) + 1) % p.T : rank(i); }
  size_t n_local() const { return comm.local().size(); }
};

}  // namespace ltt
