// The cuda backend: every tier's per-rank pipeline on the GPU, all T TP
// ranks as fake ranks in this process (each with its own device buffers), or
// one or more ranks per process (peers.hpp); the collectives are kernels
// that read the sibling ranks' buffers in the orders
// of reference/comm.hpp (one-shot: rank order 0..T-1, fp32, one rounding;
// ring: chunk c from rank c+1, a bf16 rounding at every hop); RMSNorm is one
// pass per row in fp32; the up-projections are cuBLAS GEMMs (bf16 operands,
// fp32 accumulation, the tier's addend added in fp32 before its one rounding).
// No CUDA types here: the harness includes it on machines without CUDA.
#pragma once

#include <string>
#include <vector>

#include "inputs.hpp"
#include "member.hpp"
#include "peers.hpp"
#include "problem.hpp"
#include "status.hpp"

namespace ltt::gpu {

// A usage error ("no CUDA device", "built without CUDA") when the backend
// cannot run here; the harness asks before the work.
Status cuda_available();

// Runs `tier` under `contract` on this process's ranks and writes rank r's
// Y into out[r - lo] ([M, H], poisoned by the caller). peers null: all p.T
// ranks are fake ranks here (lo = 0); else this process holds ranks
// [pid T / procs, (pid + 1) T / procs) on peers->device and reaches the
// others' buffers through CUDA IPC (transport ipc), or tiers 1-4's
// all-reduces go through NCCL (transport nccl: one rank per process, one
// GPU each). fault_rank >= 0: that rank up-projects with the next rank's
// shard of W (tiers 0 and 2; --plant). A pipeline that cannot finish (a
// Lamport reader that would wait forever) returns an Errc::numerical error;
// a CUDA, cuBLAS or NCCL failure names the call. mut: a planted bug of
// reference/member.hpp's table, where the GPU pipelines can plant it
// (supported_mutant(); fake ranks only); others are refused.
Status run_cuda(const Problem& p, int tier, const Contract& contract, const Inputs& in, int fault_rank,
                std::vector<MatrixB>& out, Mutant mut = Mutant::none, const Peers* peers = nullptr,
                Transport transport = Transport::ipc);
bool supported_mutant(Mutant m);
// How tier 0 runs its per-rank step (RMSNorm, the shard's GEMM, S added):
// fused: the collective writes Z and one kernel (shard_gemm.cu) normalises,
// multiplies and adds; split: the collective normalises and that kernel
// multiplies and adds; gemv: the collective writes Z and the few-token
// kernel (shard_gemv.cu) normalises, multiplies and adds; gemv-split: the
// collective normalises and that kernel multiplies and adds; mma: the
// collective normalises and the MMA kernel (shard_mma.cu: Hopper's
// warpgroup products, compute capability 9.0) multiplies and adds;
// mma-fused: the collective writes Z and that kernel normalises, multiplies
// and adds (measured slower on the H200); cublas:
// the collective normalises, then cuBLAS with the addend and a rounding
// kernel. On shards of up to 896 columns where the MMA kernel takes the
// shape, ltt runs gemv-split up to 12 tokens and mma from 13 to 128 (mma
// below 13 too where the few-token kernel does not take the shape); else
// gemv-split up to 16 tokens, up to 112 on shards of up to 896 columns and
// 128 on those of up to 448, split to 64 on those shards where neither takes it, where the device and shape allow those kernels, cublas
// otherwise (tier0_default_path(), shard_plan.hpp; LTT_TIER0_GEMV_PLAN=CNxCK
// forces the few-token kernel's plan, GemvPlan, and keeps the MMA kernel out);
// LTT_TIER0_PATH=fused|split|gemv|gemv-split|mma|mma-fused|cublas forces one (the tests
// run each), and a forced path its kernel does not take is an error. LTT_TIER0_COLUMNS=1|2|4 forces the cluster kernel's
// 16-column tiles a cluster (shard_gemm_plan's force_ct) wherever it runs,
// and makes the choice split where it would be gemv-split (cuBLAS where the
// cluster kernel has no plan, as before Hopper), so that ltt check covers
// each tiling; one that cannot hold the shape where the kernel runs, or
// with gemv forced, is an error. tier0_columns() is its value (0 when unset).
Result<int> tier0_columns();
enum class Tier0Path { fused, split, gemv, gemv_split, mma, mma_fused, cublas };
Result<Tier0Path> tier0_path(const Problem& p);
const char* tier0_path_name(Tier0Path t);
// Tier 0's MMA kernel (shard_mma.cu) on integer operands whose sums fp32
// holds exactly in any order, against the exact product on the CPU, with
// leading dimensions past the rows: "" when every element of Y is the
// exact one's bf16 and Y's pad columns are untouched, else how many
// elements are wrong and the first few. A usage error where it cannot run
// here (no device, not compute capability 9.0, a shape mma_takes() refuses).
Result<std::string> mma_exact(int M, int n, int K, int ck);
// ltt check --gemm-algos: cuBLASLt's algorithms for the up-projection GEMM
// of `tier` at p's sizes (bf16 operands, addend and output, fp32
// accumulation and scale: as torch.addmm calls cuBLASLt), one line each
// (its id, tile, stages, cluster, split-K and reduction scheme, workspace):
// first the heuristic's list (up to 32, a 32 MiB workspace), then the
// split-K forms (2, 4, 8, 16 splits) of those that take one, with each
// reduction scheme they allow. Empty where the tier's path has no cuBLAS
// GEMM (tier 0 off its cublas path).
Result<std::vector<std::string>> gemm_algos(const Problem& p, int tier);
// How the lines of that list's split-K forms begin (--gemm-algos split-k selects them).
inline constexpr char kGemmSplitForm[] = "split-K form: ";
// Which algorithm of that list the pipelines' GEMMs run from now on (every
// case's own list); -1, the default: ltt's own (cublasGemmEx into fp32,
// then ltt's rounding kernel). An index past a case's list is a usage error.
// Tier 2's call, whose addend is its output, writes a compact output that is
// then copied into place; LTT_GEMM_LT_INPLACE=1 runs it in place (C == D).
void use_gemm_algo(int i);
// Whether NCCL was built in (--transport nccl).
bool have_nccl();

}  // namespace ltt::gpu
