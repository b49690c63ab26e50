// MpiComm: the collectives of T TP ranks spread over P MPI processes, each
// holding a contiguous block of T/P ranks (real ranks when P = T; P < T mixes
// real and fake). Same orders as LocalComm (comm.hpp), hence the same bits:
//   allreduce, one-shot   every process gathers all T buffers, sums in rank order
//   allreduce, ring       T-1 hops: at hop k rank r sends its partial of chunk
//                         (r-k) mod T to rank r+1, which adds its own value and
//                         rounds; then every rank's finished chunk is gathered
//   reduce-scatter        gather all buffers, sum each local shard in the
//                         algorithm's order (comm.hpp reduce_shard)
//   all-gather            MPI_Allgather of the shards
// Every MPI call's status is checked; errors come back as Status.
#pragma once

#include <mpi.h>

#include <string>

#include "comm.hpp"
#include "watchdog.hpp"

namespace ltt {

// An MPI return code as a Status: the call, MPI's own words, file and line.
Status mpi_check(int rc, const char* what, const char* file, int line);

// call(), an MPI collective, as the watchdog's stage for its length
// (`waiting`: what this process waits for, so that a timeout names the
// process that never arrived; the stage before it comes back after), and
// its return code as a Status (mpi_check).
template <class Call>
Status mpi_waited(const std::string& waiting, const char* what, const char* file, int line, Call&& call) {
  const WatchdogWaiting w(waiting);
  return mpi_check(call(), what, file, line);
}

template <class P>
class MpiComm final : public Comm<P> {
 public:
  using M = typename Comm<P>::M;
  using Real = typename P::Real;
  // T must be a multiple of the communicator's size.
  MpiComm(int T, MPI_Comm comm);
  int size() const override { return T_; }
  const std::vector<int>& local() const override { return ranks_; }
  Status allreduce(const std::vector<M*>& buf, Algo algo) override;
  Status reduce_scatter_cols(const std::vector<const M*>& in, const std::vector<M*>& out, Algo algo) override;
  Status allgather_cols(const std::vector<const M*>& in, const std::vector<M*>& out) override;

 private:
  // All T ranks' buffers (each n elements, rank order) into `all`.
  Status gather_all(const std::vector<const Real*>& local, size_t n, std::vector<Real>& all);
  Status ring(const std::vector<M*>& buf);

  int T_, P_, pid_, per_;
  MPI_Comm comm_;
  std::vector<int> ranks_;
};

extern template class MpiComm<ExactArith>;
extern template class MpiComm<EmulatedArith>;

}  // namespace ltt
