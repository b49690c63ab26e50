// Fake versus real ranks: every tier's pipeline over MpiComm (T/P ranks in
// each of P processes) gives, on every rank, the same bits as all T ranks in
// one process (LocalComm), for both reduction algorithms and both RMSNorm
// orders. Run under mpirun -np 2, 4 and 8.
#include <doctest/doctest.h>
#include <mpi.h>

#include "kernels.hpp"
#include "mpi_comm.hpp"
#include "support.hpp"
#include "watchdog.hpp"

using namespace ltt;
using namespace ltt::test;

namespace {

int processes() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

}  // namespace

TEST_CASE("mpi: fake and real ranks give the same bits, every tier and algorithm") {
  const int P = processes();
  REQUIRE(P > 1);
  for (int T : {8, 16}) {
    if (T % P) continue;
    for (int M : {5, 33})
      for (Dist dist : {Dist::realistic, Dist::adversarial}) {
        const Problem p = problem(kDimsSmall, T, M, dist);
        const Inputs in = generate_inputs(p);
        Reference ref(in);
        const MatF W = widen<float>(in.W), g = widen<float>(in.g);
        for (int tier : tiers_for(p))
          for (Algo algo : {Algo::one_shot, Algo::ring})
            for (NormOrder norm : {NormOrder::round_then_weight, NormOrder::fused}) {
              CAPTURE(T);
              CAPTURE(M);
              CAPTURE(tier);
              CAPTURE(name(algo));
              CAPTURE(name(norm));
              const Contract c{algo, norm};
              auto fake = ref.emulated(tier, c);
              REQUIRE(fake.ok());
              MpiComm<EmulatedArith> comm(T, MPI_COMM_WORLD);
              CHECK(comm.local().size() == static_cast<size_t>(T / P));
              Ctx<EmulatedArith> ctx{p, c, comm, {}, {}, g, W, {}};
              for (int r : comm.local()) {
                ctx.R.push_back(widen<float>(in.R[static_cast<size_t>(r)]));
                ctx.S.push_back(widen<float>(in.S[static_cast<size_t>(r)]));
              }
              REQUIRE(tier_def(tier).run_emulated(ctx).ok());
              for (size_t i = 0; i < comm.local().size(); ++i)
                CHECK(first_bitwise_difference(narrow(ctx.Y[i]), (*fake)[static_cast<size_t>(comm.local()[i])]) == -1);
            }
      }
  }
}

TEST_CASE("mpi: a real ring's chunk order, rank by rank") {
  // The order probe of tests/collectives.cpp, over processes: T = 8 ranks,
  // values 2^24, 1, -2^24 on ranks 0, 1, 2 and 0 elsewhere, one element per
  // chunk. Chunk c sums ranks c+1, c+2, ..., c. Chunk 1 (ranks 2, ..., 0, 1)
  // cancels the 2^24s first and keeps the 1; chunk 0 (ranks 1, 2, ..., 0)
  // rounds 1 - 2^24 to -2^24 and every other chunk meets rank 0 before rank 1
  // (2^24 + 1 rounds to 2^24): all of those lose the 1.
  const int P = processes();
  const int T = 8;
  if (T % P) return;
  MpiComm<EmulatedArith> comm(T, MPI_COMM_WORLD);
  const float v[8] = {16777216.0f, 1.0f, -16777216.0f, 0, 0, 0, 0, 0};
  std::vector<MatF> buf;
  for (int r : comm.local()) buf.push_back(MatF::Constant(1, T, v[r]));
  REQUIRE(comm.allreduce(ptrs(buf), Algo::ring).ok());
  for (const auto& b : buf)
    for (int c = 0; c < T; ++c) {
      CAPTURE(c);
      CHECK(b(0, c) == (c == 1 ? 1.0f : 0.0f));
    }
}

TEST_CASE("mpi: a collective is the watchdog's stage for its length only") {
  // Work after a collective must be reported where it is if it hangs, not
  // as the wait on the other ranks that has ended.
  const int P = processes();
  const int T = 8;
  if (T % P) return;
  MpiComm<EmulatedArith> comm(T, MPI_COMM_WORLD);
  std::vector<MatF> buf, out;
  for (size_t i = 0; i < comm.local().size(); ++i) {
    buf.push_back(MatF::Constant(2, T, 1.0f));
    out.push_back(MatF::Zero(2, 1));
  }
  const std::string stage = "tier 2 T 8 M 2 realistic: backend run 1";
  for (Algo algo : {Algo::one_shot, Algo::ring}) {
    CAPTURE(name(algo));
    watchdog_stage(stage);
    REQUIRE(comm.allreduce(ptrs(buf), algo).ok());
    CHECK(watchdog_current_stage() == stage);
    REQUIRE(comm.reduce_scatter_cols(cptrs(buf), ptrs(out), algo).ok());
    CHECK(watchdog_current_stage() == stage);
  }
  REQUIRE(comm.allgather_cols(cptrs(out), ptrs(buf)).ok());
  CHECK(watchdog_current_stage() == stage);
}
