// mpi_peers() (peers_mpi.hpp).
#include "peers_mpi.hpp"

#include "gpu/device.hpp"

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
  g.allgather = [comm](const void* mine, size_t bytes, void* all) -> Status {
    if (MPI_Allgather(mine, static_cast<int>(bytes), MPI_BYTE, all, static_cast<int>(bytes), MPI_BYTE, comm) != MPI_SUCCESS)
      return LTT_ERR(Errc::internal, "MPI_Allgather of ", bytes, " bytes failed");
    return {};
  };
  g.barrier = [comm]() -> Status {
    if (MPI_Barrier(comm) != MPI_SUCCESS) return LTT_ERR(Errc::internal, "MPI_Barrier failed");
    return {};
  };
  return g;
}

}  // namespace ltt
