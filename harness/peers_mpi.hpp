// The cuda backend's view of the MPI processes (gpu/peers.hpp): MPI's
// allgather and barrier, and this process's GPU: its rank among the
// processes on its node, modulo the node's GPUs.
#pragma once

#include <mpi.h>

#include "peers.hpp"

namespace ltt {

gpu::Peers mpi_peers(MPI_Comm comm);

}  // namespace ltt
