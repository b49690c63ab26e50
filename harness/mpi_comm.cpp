// MpiComm: see mpi_comm.hpp.
#include "mpi_comm.hpp"

#include <climits>


namespace ltt {

namespace {

template <class Real>
MPI_Datatype mpi_type() {
  return sizeof(Real) == 4 ? MPI_FLOAT : MPI_DOUBLE;
}

int to_count(size_t n) { return n > static_cast<size_t>(INT_MAX) ? -1 : static_cast<int>(n); }

}  // namespace

Status mpi_check(int rc, const char* what, const char* file, int line) {
  if (rc == MPI_SUCCESS) return {};
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  return Error{Errc::internal, cat(what, " failed: ", std::string(msg, static_cast<size_t>(len))), file, line, -1};
}

// Every collective is the watchdog's stage for its length (mpi_waited).
#define MPI_TRY(call)                                                                                  \
  do {                                                                                                 \
    const std::string ltt_op_ = #call;                                                                 \
    const std::string ltt_name_ = ltt_op_.substr(0, ltt_op_.find('('));                                \
    LTT_TRY(mpi_waited(cat("waiting for the other ranks in ", ltt_name_), #call, __FILE__, __LINE__,   \
                       [&] { return (call); }));                                                       \
  } while (0)

template <class P>
MpiComm<P>::MpiComm(int T, MPI_Comm comm) : T_(T), comm_(comm) {
  MPI_Comm_size(comm, &P_);
  MPI_Comm_rank(comm, &pid_);
  per_ = T / P_;
  for (int r = pid_ * per_; r < (pid_ + 1) * per_; ++r) ranks_.push_back(r);
}

template <class P>
Status MpiComm<P>::gather_all(const std::vector<const Real*>& local, size_t n, std::vector<Real>& all) {
  std::vector<Real> mine(n * local.size());
  for (size_t i = 0; i < local.size(); ++i) std::copy(local[i], local[i] + n, mine.begin() + static_cast<std::ptrdiff_t>(i * n));
  all.resize(n * static_cast<size_t>(T_));
  const int count = to_count(mine.size());
  if (count < 0) return LTT_ERR(Errc::internal, "buffer too large for one MPI message: ", mine.size(), " elements");
  MPI_TRY(MPI_Allgather(mine.data(), count, mpi_type<Real>(), all.data(), count, mpi_type<Real>(), comm_));
  return {};
}

template <class P>
Status MpiComm<P>::allreduce(const std::vector<M*>& buf, Algo algo) {
  if (buf.size() != ranks_.size()) return LTT_ERR(Errc::internal, "allreduce: ", buf.size(), " buffers for ", ranks_.size(), " local ranks");
  if (algo == Algo::ring) return ring(buf);
  const size_t n = static_cast<size_t>(buf[0]->size());
  std::vector<const Real*> local;
  for (auto* b : buf) local.push_back(b->data());
  std::vector<Real> all;
  LTT_TRY(gather_all(local, n, all));
  std::vector<const Real*> src;
  for (int q = 0; q < T_; ++q) src.push_back(all.data() + static_cast<size_t>(q) * n);
  ordered_sum<P>(src, buf[0]->data(), n, algo);
  for (size_t i = 1; i < buf.size(); ++i) *buf[i] = *buf[0];
  return {};
}

template <class P>
Status MpiComm<P>::ring(const std::vector<M*>& buf) {
  const size_t n = static_cast<size_t>(buf[0]->size());
  const int T = T_;
  auto chunk = [&](int c, size_t& b, size_t& len) {
    c = ((c % T) + T) % T;
    b = chunk_begin(n, T, c);
    len = chunk_begin(n, T, c + 1) - b;
  };
  const int r0 = ranks_.front(), nl = static_cast<int>(ranks_.size());
  const int next = (pid_ + 1) % P_, prev = (pid_ + P_ - 1) % P_;
  std::vector<std::vector<Real>> out(static_cast<size_t>(nl));
  std::vector<Real> from_prev;
  for (int k = 1; k < T; ++k) {
    // Every local rank's outgoing partial: chunk (r - k) mod T.
    for (int i = 0; i < nl; ++i) {
      size_t b, len;
      chunk(r0 + i - k, b, len);
      const Real* src = buf[static_cast<size_t>(i)]->data() + b;
      out[static_cast<size_t>(i)].assign(src, src + len);
    }
    // The block's last rank sends to the next process's first; the first
    // receives from the previous process's last.
    const std::vector<Real>* in_first = &out[static_cast<size_t>(nl - 1)];
    if (P_ > 1) {
      size_t b, len;
      chunk(r0 - 1 - k, b, len);
      from_prev.resize(len);
      const auto& send = out[static_cast<size_t>(nl - 1)];
      MPI_TRY(MPI_Sendrecv(send.data(), to_count(send.size()), mpi_type<Real>(), next, k, from_prev.data(),
                           to_count(len), mpi_type<Real>(), prev, k, comm_, MPI_STATUS_IGNORE));
      in_first = &from_prev;
    }
    // Rank r receives chunk (r - 1 - k) mod T and adds its own value.
    for (int i = 0; i < nl; ++i) {
      size_t b, len;
      chunk(r0 + i - 1 - k, b, len);
      const std::vector<Real>& in = i == 0 ? *in_first : out[static_cast<size_t>(i - 1)];
      Real* dst = buf[static_cast<size_t>(i)]->data() + b;
      for (size_t e = 0; e < len; ++e) dst[e] = P::round(in[e] + dst[e]);
    }
  }
  // Rank r now holds the finished chunk r: gather them all.
  std::vector<Real> mine;
  for (int i = 0; i < nl; ++i) {
    size_t b, len;
    chunk(r0 + i, b, len);
    mine.insert(mine.end(), buf[static_cast<size_t>(i)]->data() + b, buf[static_cast<size_t>(i)]->data() + b + len);
  }
  std::vector<int> counts(static_cast<size_t>(P_)), displs(static_cast<size_t>(P_));
  for (int q = 0; q < P_; ++q) {
    const size_t b = chunk_begin(n, T, q * per_), e = chunk_begin(n, T, (q + 1) * per_);
    counts[static_cast<size_t>(q)] = to_count(e - b);
    displs[static_cast<size_t>(q)] = to_count(b);
  }
  std::vector<Real> all(n);
  MPI_TRY(MPI_Allgatherv(mine.data(), to_count(mine.size()), mpi_type<Real>(), all.data(), counts.data(),
                         displs.data(), mpi_type<Real>(), comm_));
  for (auto* b : buf) std::copy(all.begin(), all.end(), b->data());
  return {};
}

template <class P>
Status MpiComm<P>::reduce_scatter_cols(const std::vector<const M*>& in, const std::vector<M*>& out, Algo algo) {
  if (in.size() != ranks_.size() || out.size() != ranks_.size()) return LTT_ERR(Errc::internal, "reduce_scatter_cols: wrong number of buffers");
  const auto rows = in[0]->rows(), ld = in[0]->cols(), w = ld / T_;
  const size_t n = static_cast<size_t>(in[0]->size());
  std::vector<const Real*> local;
  for (auto* b : in) local.push_back(b->data());
  std::vector<Real> all;
  LTT_TRY(gather_all(local, n, all));
  std::vector<const Real*> bufs;
  for (int q = 0; q < T_; ++q) bufs.push_back(all.data() + static_cast<size_t>(q) * n);
  for (size_t i = 0; i < out.size(); ++i) {
    out[i]->resize(rows, w);
    reduce_shard<P>(bufs, rows, ld, w, ranks_[i], algo, out[i]->data());
  }
  return {};
}

template <class P>
Status MpiComm<P>::allgather_cols(const std::vector<const M*>& in, const std::vector<M*>& out) {
  if (in.size() != ranks_.size() || out.size() != ranks_.size()) return LTT_ERR(Errc::internal, "allgather_cols: wrong number of buffers");
  const auto rows = in[0]->rows(), w = in[0]->cols();
  const size_t n = static_cast<size_t>(in[0]->size());
  std::vector<const Real*> local;
  for (auto* b : in) local.push_back(b->data());
  std::vector<Real> all;
  LTT_TRY(gather_all(local, n, all));
  for (auto* o : out) {
    o->resize(rows, w * T_);
    for (int q = 0; q < T_; ++q)
      o->middleCols(q * w, w) = Eigen::Map<const M>(all.data() + static_cast<size_t>(q) * n, rows, w);
  }
  return {};
}

template class MpiComm<ExactArith>;
template class MpiComm<EmulatedArith>;

}  // namespace ltt
