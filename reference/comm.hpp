// Collectives of the per-rank pipelines, over the ranks this process holds.
//
// A pipeline runs stage by stage over its local ranks (all T of them for fake
// ranks in one process, one for a real MPI rank); a collective takes every
// local rank's buffer at once. Backends: LocalComm (all T ranks in this
// process, the reference's own transport); the harness adds MPI and NCCL.
//
// Orders (the bits depend on them; every backend follows them):
//   one-shot  sum in rank order 0..T-1 in the accumulation type, round once.
//   ring      chunk c of a buffer of n elements is [c*n/T, (c+1)*n/T) of its
//             row-major order; its sum starts with rank c+1's value and adds
//             ranks c+2, ..., c+T (mod T), rounding to storage at every hop.
//             For a reduce-scatter over column shards, chunk r is shard r.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

#include "arith.hpp"
#include "member.hpp"
#include "status.hpp"

namespace ltt {

// [begin, end) of ring chunk c of n elements split over T ranks.
inline size_t chunk_begin(size_t n, int T, int c) { return n * static_cast<size_t>(c) / static_cast<size_t>(T); }

// Sums src[0..k) element-wise into dst[0..n) in the listed order: one-shot
// (accumulate, round once) or ring (round after every addition). dst may be
// one of the sources.
template <class P>
void ordered_sum(const std::vector<const typename P::Real*>& src, typename P::Real* dst, size_t n, Algo algo) {
  using R = typename P::Real;
  const size_t k = src.size();
  if (algo == Algo::one_shot) {
    for (size_t e = 0; e < n; ++e) {
      R acc = src[0][e];
      for (size_t q = 1; q < k; ++q) acc = acc + src[q][e];
      dst[e] = P::round(acc);
    }
  } else {
    for (size_t e = 0; e < n; ++e) {
      R acc = src[0][e];
      for (size_t q = 1; q < k; ++q) acc = P::round(acc + src[q][e]);
      dst[e] = acc;
    }
  }
}

// out [rows, w] = the sum over ranks of shard r (columns [r w, (r+1) w)) of
// T row-major buffers `ld` columns wide, in the algorithm's order: one-shot
// 0..T-1, ring r+1, ..., r (the reduce-scatter's chunk r is shard r).
template <class P>
void reduce_shard(const std::vector<const typename P::Real*>& bufs, Eigen::Index rows, Eigen::Index ld, Eigen::Index w,
                  int r, Algo algo, typename P::Real* out) {
  const int T = static_cast<int>(bufs.size());
  std::vector<const typename P::Real*> src(bufs.size());
  for (Eigen::Index i = 0; i < rows; ++i) {
    for (int k = 0; k < T; ++k) {
      const int q = algo == Algo::one_shot ? k : (r + 1 + k) % T;
      src[static_cast<size_t>(k)] = bufs[static_cast<size_t>(q)] + i * ld + r * w;
    }
    ordered_sum<P>(src, out + i * w, static_cast<size_t>(w), algo);
  }
}

// Tier 0's transports are Lamport copies: a reader takes a slot once it is
// not -0 (the empty sentinel), so a writer must never publish a real -0. The
// reader's view of published buffers: an error (not a hang) naming the first
// -0, where a real reader would wait forever.
template <class M>
Status lamport_readable(const std::vector<M>& published, const char* what) {
  for (size_t q = 0; q < published.size(); ++q) {
    const M& m = published[q];
    for (Eigen::Index e = 0; e < m.size(); ++e)
      if (m.data()[e] == 0 && std::signbit(m.data()[e]))
        return LTT_ERR(Errc::numerical, what, ": local rank ", q, " published -0 (the Lamport empty sentinel) at element [",
                       e / m.cols(), ", ", e % m.cols(), "]: every reader would wait for it forever");
  }
  return {};
}

template <class P>
class Comm {
 public:
  using M = Mat<typename P::Real>;
  virtual ~Comm() = default;
  virtual int size() const = 0;                  // T
  virtual const std::vector<int>& local() const = 0;  // TP ranks held here, ascending
  // In place: every local buffer becomes the sum over all T ranks.
  virtual Status allreduce(const std::vector<M*>& buf, Algo algo) = 0;
  // out[i] = sum over ranks q of in_q[:, shard(rank_i)], shard width in.cols()/T.
  virtual Status reduce_scatter_cols(const std::vector<const M*>& in, const std::vector<M*>& out, Algo algo) = 0;
  // out[i] = [in_0 | in_1 | ... | in_{T-1}], column blocks in rank order.
  // LocalComm does it as tier 0's Lamport copy: three rotating receive
  // buffers pre-filled with -0 (the empty sentinel); readers take a slot once
  // it is not -0, so a published -0 would leave them waiting forever (an
  // error here, never a hang) and a buffer never cleared hands them stale data.
  virtual Status allgather_cols(const std::vector<const M*>& in, const std::vector<M*>& out) = 0;
  // The member or mutant the collectives run as (member.hpp): a variant's
  // orders, a dropped or doubled rank. Null: the orders above.
  const Member* member = nullptr;
};

// All T ranks in this process.
template <class P>
class LocalComm final : public Comm<P> {
 public:
  using M = typename Comm<P>::M;
  explicit LocalComm(int T);
  int size() const override { return T_; }
  const std::vector<int>& local() const override { return ranks_; }
  Status allreduce(const std::vector<M*>& buf, Algo algo) override;
  Status reduce_scatter_cols(const std::vector<const M*>& in, const std::vector<M*>& out, Algo algo) override;
  Status allgather_cols(const std::vector<const M*>& in, const std::vector<M*>& out) override;

 private:
  // The terms of a reduction, in the order the member adds them.
  std::vector<int> order_of(int start) const;
  int T_;
  std::vector<int> ranks_;
  std::vector<typename P::Real> lamport_[3];  // receive buffers (shared by the fake ranks: they receive the same data)
  uint64_t lamport_calls_ = 0;
};

extern template class LocalComm<ExactArith>;
extern template class LocalComm<EmulatedArith>;

}  // namespace ltt
