// The main of the MPI tests: initialises MPI, runs doctest on every process
// (each reports its own failures), and fails the run if any process failed.
// ctest runs it through mpirun at 2, 4 and 8 processes.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  doctest::Context ctx(argc, argv);
  if (rank != 0) ctx.setOption("out", "/dev/null");  // one report, from rank 0 (all ranks' verdicts are combined below)
  int rc = ctx.run();
  int worst = 0;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
