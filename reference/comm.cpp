// LocalComm: the collectives of T ranks held in one process, in the orders
// comm.hpp fixes.
#include "comm.hpp"

#include <algorithm>
#include <cmath>

namespace ltt {

template <class P>
LocalComm<P>::LocalComm(int T) : T_(T) {
  for (int r = 0; r < T; ++r) ranks_.push_back(r);
}

template <class P>
std::vector<int> LocalComm<P>::order_of(int start) const {
  std::vector<int> o;
  const Member* m = this->member;
  const bool variant = m && m->var.on;
  // A member adds in any order: one-shot's any permutation, and a ring's any
  // ring order (NCCL's rings visit the ranks in a permuted order, a channel
  // each): for each chunk a random permutation, its start included.
  if (variant) {
    for (int q = 0; q < T_; ++q) o.push_back(q);
    for (int i = T_ - 1; i > 0; --i) std::swap(o[static_cast<size_t>(i)], o[static_cast<size_t>(m->var.pick(i + 1))]);
  } else {
    const int s0 = start < 0 ? 0 : start;
    for (int k = 0; k < T_; ++k) o.push_back((s0 + k) % T_);
  }
  if (m && m->is(Mutant::drop_rank)) o.erase(std::find(o.begin(), o.end(), T_ - 1));
  if (m && m->is(Mutant::double_rank)) o.push_back(T_ - 1);
  return o;
}

namespace {

// Sums n elements of the listed sources: one-shot (accumulate, round once;
// pairwise when `tree`) or ring (round after every addition).
template <class P>
void member_sum(const std::vector<const typename P::Real*>& src, typename P::Real* dst, size_t n, Algo algo, bool tree) {
  if (!tree || algo != Algo::one_shot) return ordered_sum<P>(src, dst, n, algo);
  using R = typename P::Real;
  std::vector<R> v(src.size());
  for (size_t e = 0; e < n; ++e) {
    for (size_t q = 0; q < src.size(); ++q) v[q] = src[q][e];
    for (size_t w = 1; w < v.size(); w *= 2)
      for (size_t i = 0; i + w < v.size(); i += 2 * w) v[i] = v[i] + v[i + w];
    dst[e] = P::round(v[0]);
  }
}

}  // namespace

template <class P>
Status LocalComm<P>::allreduce(const std::vector<M*>& buf, Algo algo) {
  using R = typename P::Real;
  if (static_cast<int>(buf.size()) != T_) return LTT_ERR(Errc::internal, "allreduce: ", buf.size(), " buffers for ", T_, " ranks");
  const size_t n = static_cast<size_t>(buf[0]->size());
  for (auto* b : buf)
    if (static_cast<size_t>(b->size()) != n) return LTT_ERR(Errc::internal, "allreduce: buffers differ in size");
  M sum(buf[0]->rows(), buf[0]->cols());
  const Member* m = this->member;
  const bool variant = m && m->var.on;
  if (algo == Algo::one_shot) {
    const std::vector<int> order = order_of(-1);
    const bool tree = variant && m->var.pick(2);
    std::vector<const R*> src;
    for (int q : order) src.push_back(buf[static_cast<size_t>(q)]->data());
    const auto nn = static_cast<std::ptrdiff_t>(n);
    const std::ptrdiff_t block = 1 << 14;
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t b = 0; b < nn; b += block) {
      std::vector<const R*> s(src);
      for (auto& p : s) p += b;
      member_sum<P>(s, sum.data() + b, static_cast<size_t>(std::min(block, nn - b)), algo, tree);
    }
  } else {
    const int off = variant ? m->var.pick(T_) : 0;
    std::vector<std::vector<int>> orders;
    for (int c = 0; c < T_; ++c) orders.push_back(order_of((c + 1 + off) % T_));
#pragma omp parallel for schedule(static)
    for (int c = 0; c < T_; ++c) {
      const size_t b = chunk_begin(n, T_, c), e = chunk_begin(n, T_, c + 1);
      std::vector<const R*> src;
      for (int q : orders[static_cast<size_t>(c)]) src.push_back(buf[static_cast<size_t>(q)]->data() + b);
      ordered_sum<P>(src, sum.data() + b, e - b, algo);
    }
  }
  for (auto* b : buf) *b = sum;
  return {};
}

template <class P>
Status LocalComm<P>::reduce_scatter_cols(const std::vector<const M*>& in, const std::vector<M*>& out, Algo algo) {
  using R = typename P::Real;
  if (static_cast<int>(in.size()) != T_ || static_cast<int>(out.size()) != T_)
    return LTT_ERR(Errc::internal, "reduce_scatter_cols: wrong number of buffers");
  const auto rows = in[0]->rows();
  const auto ld = in[0]->cols();
  const auto w = ld / T_;
  const Member* m = this->member;
  const bool variant = m && m->var.on;
  const bool next = m && m->is(Mutant::rs_next_shard);
  // Per shard, the order its terms are added in (the one-shot order of
  // comm.hpp, ring from rank r+1), as the member chooses.
  std::vector<std::vector<int>> orders;
  std::vector<char> tree;
  const int off = variant && algo == Algo::ring ? m->var.pick(T_) : 0;
  for (int r = 0; r < T_; ++r) {
    orders.push_back(order_of(algo == Algo::one_shot ? -1 : (r + 1 + off) % T_));
    tree.push_back(variant && algo == Algo::one_shot && m->var.pick(2));
  }
#pragma omp parallel for schedule(static)
  for (int r = 0; r < T_; ++r) {
    const int shard = next ? (r + 1) % T_ : r;
    M& o = *out[static_cast<size_t>(r)];
    o.resize(rows, w);
    std::vector<const R*> src;
    for (Eigen::Index i = 0; i < rows; ++i) {
      src.clear();
      for (int q : orders[static_cast<size_t>(r)]) src.push_back(in[static_cast<size_t>(q)]->data() + i * ld + shard * w);
      member_sum<P>(src, o.data() + i * w, static_cast<size_t>(w), algo, tree[static_cast<size_t>(r)]);
    }
  }
  return {};
}

template <class P>
Status LocalComm<P>::allgather_cols(const std::vector<const M*>& in, const std::vector<M*>& out) {
  using R = typename P::Real;
  if (static_cast<int>(in.size()) != T_ || static_cast<int>(out.size()) != T_)
    return LTT_ERR(Errc::internal, "allgather_cols: wrong number of buffers");
  const auto rows = in[0]->rows(), w = in[0]->cols();
  const size_t n = static_cast<size_t>(rows * w * T_);
  const Member* m = this->member;
  auto empty = [](R v) { return v == R(0) && std::signbit(v); };
  // Call k uses buffer k % 3 and clears buffer (k + 1) % 3, last used at
  // call k - 2, so the next call finds its buffer empty.
  std::vector<R>& buf = lamport_[lamport_calls_ % 3];
  for (auto& b : lamport_)
    if (b.size() < n) b.resize(n, -R(0));  // a new buffer is all sentinels; a grown one keeps its old contents
  // A reader polls before the writers publish: a slot that is not the
  // sentinel is taken as it is (stale data, unless the buffer was cleared).
  M got(rows, w * T_);
  std::vector<char> taken(n, 0);
  for (size_t e = 0; e < n; ++e)
    if (!empty(buf[e])) {
      taken[e] = 1;
      got.data()[e] = buf[e];
    }
  // The writers publish their shards (they have already turned -0 into +0).
  for (int q = 0; q < T_; ++q)
    for (Eigen::Index i = 0; i < rows; ++i)
      for (Eigen::Index j = 0; j < w; ++j) buf[static_cast<size_t>(i * w * T_ + q * w + j)] = (*in[static_cast<size_t>(q)])(i, j);
  for (size_t e = 0; e < n; ++e) {
    if (taken[e]) continue;
    if (empty(buf[e]))
      return LTT_ERR(Errc::numerical, "Lamport all-gather: element [", e / static_cast<size_t>(w * T_), ", ",
                     e % static_cast<size_t>(w * T_), "] was published as -0, the empty sentinel: every reader would wait for it forever");
    got.data()[e] = buf[e];
  }
  if (!(m && m->is(Mutant::lamport_stale))) std::fill(lamport_[(lamport_calls_ + 1) % 3].begin(), lamport_[(lamport_calls_ + 1) % 3].end(), -R(0));
  ++lamport_calls_;
  for (int r = 0; r < T_; ++r) *out[static_cast<size_t>(r)] = got;
  return {};
}

template class LocalComm<ExactArith>;
template class LocalComm<EmulatedArith>;

}  // namespace ltt
