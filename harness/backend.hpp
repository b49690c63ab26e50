// The cpu backend and what every driver needs around it: this process's
// share of a case's inputs, poisoned output buffers, output hashes.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "comm.hpp"
#include "inputs.hpp"
#include "status.hpp"

namespace ltt {

constexpr uint16_t kPoison = 0x7fa5;  // a NaN no arithmetic produces (quiet NaNs come out as 0x7fc0)

uint64_t fnv1a(const MatrixB& m);
uint64_t fnv1a(std::string_view bytes);

// Every rank's partials when `all` (process 0 holds the reference), else only
// the local ranks'; g and W from `weights` when given.
Inputs make_inputs(const Problem& p, const std::vector<int>& local, bool all, const Inputs* weights);

// The cpu backend: the tier's per-rank pipeline in emulated arithmetic over
// the communicator's local ranks; writes each local rank's Y into out[i]
// (already [M, H] and poisoned by the caller).
// `member` (null: the reference's own orders) makes it a random member of the
// tier's family or a mutant (member.hpp); a variant restarts its draws, so a
// rerun gives the same bits. A pipeline that cannot finish (a Lamport reader
// that would wait forever) returns an Errc::numerical error.
Status run_cpu(const Problem& p, int tier, const Contract& contract, const Inputs& in, const MatF& g, const MatF& W,
               Comm<EmulatedArith>& comm, int fault_rank, std::vector<MatrixB>& out, const Member* member = nullptr);

// Fresh [M, H] outputs for n ranks, every element poisoned.
std::vector<MatrixB> poisoned_outputs(size_t n, int M, int H);

}  // namespace ltt
