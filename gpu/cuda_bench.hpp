// Timings of the cuda backend (ltt bench): device events around the region,
// a warm-up first, the median over repetitions; no CUDA types here.
#pragma once

#include "inputs.hpp"
#include "peers.hpp"
#include "problem.hpp"
#include "shard_plan.hpp"
#include "status.hpp"

namespace ltt::gpu {

struct Timing {
  double median_us = 0, min_us = 0;
  int reps = 0;
};

// Device-to-device copy of `bytes` (read + written counted), GB/s, median.
Result<double> copy_bandwidth(size_t bytes, int reps);
// One device-to-device copy of `elems` bf16 (cudaMemcpyAsync: the driver's
// copy, not ltt's), timed as the RMSNorm rows are (CUDA-graph replay,
// buffers rotated over twice the L2): what a kernel that reads and writes
// that many bytes once can hope for at that size, fixed costs included.
Result<Timing> time_copy(size_t elems, int reps);
// A kernel that only reads `bytes` once (16-byte streaming loads) and
// writes nothing, timed the same way, the fastest over block sizes (256,
// 512, 1024 threads), loads in flight a thread (1, 2, 4, 8) and blocks an
// SM (1 .. 8, as many as the bytes fill): the floor for a step that must
// read those bytes, launch and memory latency included, which a per-byte
// roofline leaves out. shape: the fastest one's.
struct ReadShape {
  int blocks = 0, threads = 0, unroll = 0;
};
Result<Timing> time_read(size_t bytes, int reps, ReadShape* shape = nullptr);
// The chain of tier 0's warm step (Tier0Variant::warm) with none of its
// work: a call's two kernels, each a programmatic dependent of the one
// before, the first bringing the call's W shard (H/T rows of L) into L2 on
// the warm RMSNorm kernel's grid, the second on the few-token kernel's grid
// loading that shard before its wait when read, else nothing; CUDA-graph
// replay over the copies of W that cover twice the L2. What any step of
// that shape pays before it does anything: the floor under
// tier0-gemv-split-warm. A usage error without programmatic launch.
Result<Timing> time_chain(const Problem& p, int reps, bool read);
// The tier's whole pipeline on all T fake ranks (collectives included); the
// inputs are restored and the outputs poisoned between runs, untimed.
Result<Timing> time_tier(const Problem& p, int tier, const Contract& c, const Inputs& in, int reps);
// One rank's RMSNorm kernel over its [M, L] (tier 1's order); CUDA-graph replay.
// rows_per_block: the kernel's block shape (kernels.cuh; 0: the default).
// kernel: NormKernel's fields (kernels.cuh), as plain values; the default: ltt's choice.
struct NormChoice {
  int block_row = -1, rows_per_warp = 0, warp_rows_per_block = 0;
  bool streaming = false;
  int block_threads = 256;  // the block-a-row kernel's
  bool chained = false;     // every call a programmatic dependent of the one before (block-a-row kernel only)
};
Result<Timing> time_rmsnorm(const Problem& p, const Inputs& in, int reps, NormChoice kernel = {});
// Whether that kernel is the one rmsnorm() runs at row length L (a forced
// kernel outside its range falls back to another, which a row must not
// time under its name).
bool norm_choice_applies(const NormChoice& kernel, int L);
// Tier 0's per-rank compute for rank 0 (RMSNorm, its shard's GEMM with the
// reduced S shard added in fp32, the rounding): collectives excluded. As the
// library composition (RMSNorm, widen, cuBLAS with the addend, round); and
// with tier 0's kernels (shard_gemm.cu; shard_gemv.cu with `gemv` below)
// at any M they take: fused (one kernel that normalises too) or split (the
// RMSNorm kernel, then the kernel as its programmatic dependent). CUDA-graph
// replay. tier0_path() is the pipeline's choice among the five paths. Tier0Variant forces the kernel's
// column tiles a cluster (ct 1, 2, 4; 0: its plan's), and `chained`
// launches every fused call as a programmatic dependent of the call before,
// as the pipeline launches the kernel after the collective: a call's W
// prefetch overlaps the previous call's compute (its reads of Z and S wait
// for that call to finish). `gemv` times the few-token kernel
// (shard_gemv.cu) instead, fused or split alike (ct unused); `bare`, split
// only, leaves the RMSNorm kernel out (N made once, before the timing): the
// kernel alone, launched as an ordinary kernel. `mma` times the MMA kernel
// (shard_mma.cu) the same ways: fused (normalising Z itself), split or bare.
// `warm`, split only: the RMSNorm kernel, standing in for the collective
// before the step, brings the call's W shard into L2 at its start, and is
// itself a programmatic dependent of the call before (as the pipeline's
// first step kernel, a programmatic dependent of the collective, loads W
// while the collective runs: tier0.cu). The steps then run back to back
// with W's bytes moving under the step before: the figure is a step's share
// of that stream, still bounded below by W's bytes over the memory's
// bandwidth where the rotation's copies cover twice the L2 (W's shard 3.2
// MB or more on the H200, k3 at T 8 and 16: a call's W then comes from
// memory, by its own call's prefetch; smaller shards stay partly in L2).
struct Tier0Variant {
  int ct = 0;
  bool chained = false;
  bool gemv = false;
  bool bare = false;
  GemvPlan plan{};  // gemv, N given: this plan of the few-token kernel ({0, 0}: its own)
  bool mma = false;  // the MMA kernel (shard_mma.cu; fused, split or bare) instead
  int mma_ck = 0;    // mma: this many blocks a cluster along K (0: its plan's)
  bool warm = false;  // split: the RMSNorm kernel brings W into L2, chained behind the call before
};
Result<Timing> time_tier0_rank_cublas(const Problem& p, const Inputs& in, int reps);
Result<Timing> time_tier0_kernel(const Problem& p, const Inputs& in, int reps, bool fused, Tier0Variant v = {});
#if defined(LTT_MMA_TRACE)
// The MMA kernel's phases in its last launch (a diagnostic build: CMake's LTT_MMA_TRACE; shard_mma.cu).
Result<std::string> mma_trace();
#endif
// The all-reduce of R over all T fake ranks of one GPU ([M, L] each, the
// contract's one-shot or ring order, ltt's kernel): every rank's input read
// and its output written, all in the one device's memory; CUDA-graph replay,
// one buffer set (time it where T M L elements cover twice l2_cache_bytes(),
// so that the figure is the memory's).
Result<Timing> time_fake_allreduce(const Problem& p, const Inputs& in, int reps, Algo algo);
size_t l2_cache_bytes();
// Tier 0's Lamport all-gather as the fake ranks run it (tier0.cu): the
// receive buffer [M, H] cleared to -0, the T shards [M, H / T] published
// into it, then each of the T ranks reads it (waiting on the sentinel) into
// its own Y [M, H]. CUDA-graph replay of the three kernels; the first run's
// Y checked against the shards, and no slot left waiting, before timing.
Result<Timing> time_fake_lamport(const Problem& p, int reps);
// The full up-projection N W^T of one rank (cuBLAS, [M, L] x [L, H], fp32 out); CUDA-graph replay.
Result<Timing> time_gemm_full(const Problem& p, const Inputs& in, int reps);

// Ranks in several processes (mpirun; peers.hpp). Every figure is the
// median over `reps` runs of the slowest process's time, each run started
// together (MPI barrier) and timed by device events on each process's stream.
// Whether every process has a GPU of its own (NCCL's condition), and
// whether the fences between processes run on the device.
struct RanksInfo {
  bool own_gpus = false, device_fences = false;
};
Result<RanksInfo> ranks_info(const Peers& peers);
// The tier's pipeline end to end over the processes' ranks (the fences
// between processes included; inputs restored untimed between runs).
Result<Timing> time_tier_ranks(const Problem& p, int tier, const Contract& c, const Inputs& in, int reps, const Peers& peers,
                               Transport transport);
// Tier 0 as the unfused library composition, one rank per process: NCCL
// all-reduce of R and of S, RMSNorm, the shard's cuBLAS GEMM with S's shard
// as addend, rounding, NCCL all-gather of the shards, their placement in Y.
Result<Timing> time_tier0_unfused(const Problem& p, const Inputs& in, int reps, const Peers& peers);
// An all-reduce of `bytes` of bf16 over the processes (one rank each):
// NCCL's, or ltt's one-shot kernel over peer memory with its fence.
// Returns the time of one call (20 in a row, per call).
Result<Timing> time_allreduce(size_t bytes, int reps, const Peers& peers, Transport transport);

// The GPU busy for about `ms` milliseconds (GEMMs), so that clocks have
// left idle before the first timed figure.
Status warm_up(double ms);
// The cost of one small kernel inside a stream of them (what a pipeline of
// launches pays per kernel): `count` one-element kernels between two events.
Result<Timing> time_launch(int count, int reps);
// The same inside a CUDA graph of 20 such kernels, replayed: the per-kernel
// floor a captured step pays.
Result<Timing> time_launch_graph(int reps);
// The same floor for a grid of the MMA kernel's shape at k3's T 8 (14 x 8
// blocks of 256 threads, 78 KB of shared memory each: its amount at M up to
// 16) that does nothing: launched plainly (ck 0) or in clusters of ck
// blocks along y, with two cluster barriers when `sync` (as the kernel
// has). What a cluster costs before any work. Clusters before compute
// capability 9.0: a usage error.
Result<Timing> time_launch_clusters(int ck, bool sync, int reps);
// `count` back-to-back shard GEMMs of rank 0 ([M, L] x [L, H/T]^T, fp32 out
// with the S shard as addend): per GEMM.
Result<Timing> time_gemm_shard_seq(const Problem& p, const Inputs& in, int count, int reps);
// The fp32 <-> bf16 conversions of [M, H] (the staged pipelines' epilogue kernels).
Result<Timing> time_widen(const Problem& p, const Inputs& in, int reps);
Result<Timing> time_round(const Problem& p, const Inputs& in, int reps);

}  // namespace ltt::gpu
