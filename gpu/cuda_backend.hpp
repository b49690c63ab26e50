// The cuda backend: every tier's per-rank pipeline on one GPU, all T TP ranks
// as fake ranks in this process, each with its own device buffers; the
// collectives are kernels that read the sibling ranks' buffers in the orders
// of reference/comm.hpp (one-shot: rank order 0..T-1, fp32, one rounding;
// ring: chunk c from rank c+1, a bf16 rounding at every hop); RMSNorm is one
// pass per row in fp32; the up-projections are cuBLAS GEMMs (bf16 operands,
// fp32 accumulation, the tier's addend added in fp32 before its one rounding).
// No CUDA types here: the harness includes it on machines without CUDA.
#pragma once

#include <vector>

#include "inputs.hpp"
#include "member.hpp"
#include "problem.hpp"
#include "status.hpp"

namespace ltt::gpu {

// A usage error ("no CUDA device", "built without CUDA") when the backend
// cannot run here; the harness asks before the work.
Status cuda_available();

// Runs `tier` under `contract` on all p.T fake ranks; writes rank r's Y into
// out[r] ([M, H], poisoned by the caller). fault_rank >= 0: that rank
// up-projects with the next rank's shard of W (tiers 0 and 2; --plant).
// A pipeline that cannot finish (a Lamport reader that would wait forever)
// returns an Errc::numerical error; a CUDA or cuBLAS failure names the call.
// mut: a planted bug of reference/member.hpp's table, where the GPU
// pipelines can plant it (supported_mutant()); others are refused.
Status run_cuda(const Problem& p, int tier, const Contract& contract, const Inputs& in, int fault_rank,
                std::vector<MatrixB>& out, Mutant mut = Mutant::none);
bool supported_mutant(Mutant m);

}  // namespace ltt::gpu
