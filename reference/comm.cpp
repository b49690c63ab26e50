// LocalComm: the collectives of T ranks held in one process, in the orders
// comm.hpp fixes.
#include "comm.hpp"

namespace ltt {

template <class P>
LocalComm<P>::LocalComm(int T) : T_(T) {
  for (int r = 0; r < T; ++r) ranks_.push_back(r);
}

template <class P>
Status LocalComm<P>::allreduce(const std::vector<M*>& buf, Algo algo) {
  using R = typename P::Real;
  if (static_cast<int>(buf.size()) != T_) return LTT_ERR(Errc::internal, "allreduce: ", buf.size(), " buffers for ", T_, " ranks");
  const size_t n = static_cast<size_t>(buf[0]->size());
  for (auto* b : buf)
    if (static_cast<size_t>(b->size()) != n) return LTT_ERR(Errc::internal, "allreduce: buffers differ in size");
  M sum(buf[0]->rows(), buf[0]->cols());
  std::vector<const R*> src(static_cast<size_t>(T_));
  if (algo == Algo::one_shot) {
    for (int q = 0; q < T_; ++q) src[static_cast<size_t>(q)] = buf[static_cast<size_t>(q)]->data();
    const auto nn = static_cast<std::ptrdiff_t>(n);
    const std::ptrdiff_t block = 1 << 14;
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t b = 0; b < nn; b += block) {
      std::vector<const R*> s(src);
      for (auto& p : s) p += b;
      ordered_sum<P>(s, sum.data() + b, static_cast<size_t>(std::min(block, nn - b)), algo);
    }
  } else {
#pragma omp parallel for schedule(static) firstprivate(src)
    for (int c = 0; c < T_; ++c) {
      const size_t b = chunk_begin(n, T_, c), e = chunk_begin(n, T_, c + 1);
      for (int k = 0; k < T_; ++k) src[static_cast<size_t>(k)] = buf[static_cast<size_t>((c + 1 + k) % T_)]->data() + b;
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
  const auto w = in[0]->cols() / T_;
  std::vector<const R*> bufs;
  for (const M* m : in) bufs.push_back(m->data());
#pragma omp parallel for schedule(static)
  for (int r = 0; r < T_; ++r) {
    M& o = *out[static_cast<size_t>(r)];
    o.resize(rows, w);
    reduce_shard<P>(bufs, rows, in[0]->cols(), w, r, algo, o.data());
  }
  return {};
}

template <class P>
Status LocalComm<P>::allgather_cols(const std::vector<const M*>& in, const std::vector<M*>& out) {
  if (static_cast<int>(in.size()) != T_ || static_cast<int>(out.size()) != T_)
    return LTT_ERR(Errc::internal, "allgather_cols: wrong number of buffers");
  const auto rows = in[0]->rows(), w = in[0]->cols();
  for (int r = 0; r < T_; ++r) {
    M& o = *out[static_cast<size_t>(r)];
    o.resize(rows, w * T_);
    for (int q = 0; q < T_; ++q) o.middleCols(q * w, w) = *in[static_cast<size_t>(q)];
  }
  return {};
}

template class LocalComm<ExactArith>;
template class LocalComm<EmulatedArith>;

}  // namespace ltt
