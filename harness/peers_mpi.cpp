// mpi_peers() (peers_mpi.hpp).
#include "peers_mpi.hpp"

#include <climits>

#include "gpu/device.hpp"
#include "mpi_comm.hpp"

namespace ltt {

gpu::Peers mpi_peers(MPI_Comm comm) {
  gpu::Peers g;
  MPI_Comm_rank(comm, &g.pid);
  MPI_Comm_size(comm, &g.procs);
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, g.pid, MPI_INFO_NULL, &node);
  int local = 0, on_node = 0;
  MPI_Comm_rank(node, &local);
  MPI_Comm_size(node, &on_node);
  MPI_Comm_free(&node);
  int all_here = on_node == g.procs, every = 0;
  MPI_Allreduce(&all_here, &every, 1, MPI_INT, MPI_MIN, comm);
  g.one_node = every == 1;
  const int n = gpu::device_info().devices;
  g.device = n > 0 ? local % n : 0;
  // Each tells the watchdog, for the wait's length, that this process waits
  // for the others, so a timeout names the process that never arrived.
  g.allgather = [comm](const void* mine, size_t bytes, void* all) -> Status {
    if (bytes > static_cast<size_t>(INT_MAX))
      return LTT_ERR(Errc::internal, "MPI_Allgather of ", bytes, " bytes: more than an MPI count holds");
    const int count = static_cast<int>(bytes);
    return mpi_waited("waiting for the other processes in MPI_Allgather (the GPU buffers' handles)",
                      cat("MPI_Allgather of ", bytes, " bytes").c_str(), __FILE__, __LINE__,
                      [&] { return MPI_Allgather(mine, count, MPI_BYTE, all, count, MPI_BYTE, comm); });
  };
  g.barrier = [comm]() -> Status {
    return mpi_waited("waiting for the other processes in MPI_Barrier (the GPU buffers' barrier)", "MPI_Barrier",
                      __FILE__, __LINE__, [&] { return MPI_Barrier(comm); });
  };
  return g;
}

}  // namespace ltt
