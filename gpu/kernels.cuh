// The cuda backend's kernels, each behind a launcher that returns a Status:
// collectives over the T ranks' buffers (device arrays of pointers: this
// process's own, and its siblings' mapped through CUDA IPC; the orders of
// reference/comm.hpp), tier 0's fused collective and Lamport all-gather,
// one-pass RMSNorm, conversions with the tier's rounding points, the fence
// between processes on the device, and tier 0's per-rank kernels (shard_gemm.cu,
// shard_gemv.cu, shard_mma.cu).
// Every fp32
// operation is written with an _rn intrinsic: no contraction into FMA where
// the contract fixes a rounding.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "problem.hpp"
#include "shard_plan.hpp"
#include "status.hpp"

namespace ltt::gpu {

using bf = __nv_bfloat16;
constexpr uint16_t kNegZero = 0x8000;  // bf16 -0: the Lamport empty sentinel

// The current device's compute capability, multiprocessors and opt-in
// shared memory a block (device.cu); major -1 when it cannot be asked (no
// device: the error is cleared). The tier 0 kernels' plans ask it.
struct DeviceCaps {
  int major = -1, minor = 0, sms = 0, smem_optin = 0;
};
DeviceCaps device_caps();
// Whether the kernels this device runs were compiled for compute capability
// 9.0 or later, so that their programmatic-launch wait is in them: a build
// with no sm_90 code, its PTX compiled for a Hopper at load, has none, and
// a kernel launched as a programmatic dependent there would not wait.
bool kernels_wait_for_programmatic_launch();
// Its multiprocessors where it has clusters (compute capability 9.0 or
// later), else 0; -1 when it cannot be asked.
inline int cluster_sms(const DeviceCaps& c) { return c.major < 0 ? -1 : c.major >= 9 ? c.sms : 0; }

// Which terms a reduction adds: all T (the default), or, planted as mutants,
// one rank's partial left out (drop) or counted twice (twice).
struct Terms {
  int drop = -1;
  int twice = -1;
};
// out_q = the sum over the T ranks of in_q (n elements each) for the ranks q
// in [lo, hi), those this process holds; in_q of every rank is read. in and
// out may be the same buffers only when every rank is in this process.
Status allreduce(const bf* const* in, bf* const* out, int T, int lo, int hi, size_t n, Algo algo, cudaStream_t s,
                 Terms terms = {});
// Tier 0's fused collective, one kernel for this process's ranks r in
// [lo, hi): reads every rank's R and S through peer memory; Z = R summed in
// the contract's order (one-shot or ring, as allreduce), N_r = RMSNorm(Z)
// (fp32, `order`'s rounding points; without g, N_r = Z: its reader normalises), Ssh_r [M, Hs] = S summed over the ranks
// in shard r's columns (reduce-scatter). A Lamport reader takes a slot once
// it is not -0: where a writer publishes -0 anyway (sanitise false: the
// unsanitised-writer mutant), the first such element (rank q, element e of
// R, or M L + e of S: index q M (L + H) + ...) lands in *stuck (atomic min);
// correct writers turn -0 into +0 before they publish.
Status tier0_collective(const bf* const* R, const bf* const* S, const bf* g, bf* const* N, bf* const* Ssh, int T, int lo,
                        int hi, int M, int L, int H, Algo algo, NormOrder order, float eps, Terms terms, bool sanitise,
                        long long* stuck, cudaStream_t s);
// Tier 0's per-rank step in one kernel (shard_gemm.cu): Y [M, n] (ldy) =
// bf16(N [M, K] W [n, K]^T + S [M, n]) with fp32 accumulation, one rounding,
// -0 made +0 when no_neg_zero. With g, A is Z and N = RMSNorm(Z) (weight g,
// eps, `order`'s rounding points) is made in the kernel; without, A is N.
// Clusters of ks blocks (Hopper) over K's slices; shard_gemm_plan() returns
// ks 0 where the shape, M or the device is not taken (cuBLAS then). pdl:
// launched as a programmatic dependent of the kernel before it on the stream.
// A launch takes a plan shard_gemm_plan() made for its shape on this device
// (plan_shard_gemm()'s rules, shard_plan.hpp, with the device's SMs and
// shared memory; it also lets the kernels use that much shared memory).
// force_ct 1, 2 or 4: that many column tiles a cluster, or no plan (a
// benchmark's comparison); 0: the plan's own choice.
ShardGemmPlan shard_gemm_plan(int M, int n, int K, int force_ct = 0);
Status shard_gemm_add(const ShardGemmPlan& plan, const bf* A, int lda, const bf* g, float eps, NormOrder order, const bf* W,
                      int ldw, const bf* S, int lds, bf* Y, int ldy, int M, int n, int K, bool no_neg_zero, bool pdl,
                      cudaStream_t s);
// The same step for few tokens (shard_gemv.cu), the same arguments: a block
// 8 output columns over all of K, all of W's loads in flight at once, tensor
// cores; with g it normalises A (Z) itself, without A is N (then by
// gemv_plan()'s plan: on Hopper, a cluster of blocks over K's slices, M up to 128).
// shard_gemv_available(): the device (compute capability 8.0 or later) and
// the shape are taken (normalising: gemv_takes(), shard_plan.hpp; N given: a
// plan from gemv_plan()).
bool shard_gemv_available(int M, int n, int K, bool normalising = true);
// The plan of that kernel for N given (shard_plan.hpp's plan_gemv() on this
// device), or the one LTT_TIER0_GEMV_PLAN=CNxCK forces (a usage error where
// it is malformed or does not take the shape); {0, 0}: none takes it.
Result<GemvPlan> gemv_plan(int M, int n, int K);
// plan (N given): {0, 0} runs gemv_plan()'s; another is a benchmark's comparison.
Status shard_gemv_add(const bf* A, int lda, const bf* g, float eps, NormOrder order, const bf* W, int ldw, const bf* S,
                      int lds, bf* Y, int ldy, int M, int n, int K, bool no_neg_zero, bool pdl, cudaStream_t s,
                      GemvPlan plan = {});
// The same step with Hopper's warpgroup products (shard_mma.cu;
// shard_plan.hpp's `mma`): clusters of ck blocks along K, 64 output columns
// a cluster, M up to 128; A is N (g null), or Z, normalised in the kernel
// with g, eps and the order's rounding points (g given: mma-fused).
// shard_mma_plan(): the slices ltt runs (plan_mma() on this device), 0 where
// the kernel does not run here (compute capability 9.0 only: wgmma is an
// sm_90a instruction), does not take the shape, or takes it only in more
// than one wave of blocks. ck 0: that plan; another is a benchmark's
// comparison or a test's. With pdl, W and g are read before the wait for
// the kernel before (they are weights): that kernel must not write them.
int shard_mma_plan(int M, int n, int K, bool norm = false);
// Whether this device runs that kernel at all (compute capability 9.0, the image loads).
bool shard_mma_device();
Status shard_mma_add(const bf* A, int lda, const bf* g, float eps, NormOrder order, const bf* W, int ldw, const bf* S, int lds,
                     bf* Y, int ldy, int M, int n, int K, bool no_neg_zero, bool pdl, cudaStream_t s, int ck = 0);
// N [M, L] = RMSNorm of Z (rows `ldz` apart) with weight g, eps, in fp32, N
// rounded at the order's points. The fast paths (L a multiple of 8, 16-byte
// aligned) hold a row in registers: by default a block of 256 threads a row
// (L up to 4096); past 4096, or off the fast paths, a block a row that reads
// it twice. NormKernel forces another for a benchmark's comparison: a warp a
// row (L up to 3584) or the one-pass warp kernel (L up to 4096). Each
// kernel's order of additions is fixed, so a kernel gives the same bits
// every run.
// A weight the kernel after this one reads (tier 0's W shard), brought
// into L2 by this one at its start (elem.cuh's prefetch_l2()): a hint that
// changes no value. p 16-byte aligned, bytes a multiple of 16, or p null
// (none).
struct L2Prefetch {
  const void* p = nullptr;
  size_t bytes = 0;
};
struct NormKernel {
  int block_row = -1;           // 1: a block a row; 0: not; -1: the default
  int rows_per_warp = 0;        // the warp kernel: about this many rows a warp, the next one's loads in flight (0: one)
  bool streaming = false;       // the warp kernel with evict-first hints on Z and N (L over 2048)
  int warp_rows_per_block = 0;  // 1..8: the one-pass warp kernel with this many rows a block
  int block_threads = 256;      // the block-a-row kernel's threads: 256, or 512 (a vector a thread up to L 4096)
  bool pdl = false;             // the block-a-row kernel launched as a programmatic dependent (compute capability 9.0+ only)
  L2Prefetch prefetch{};        // the block-a-row kernel brings this into L2 before it waits for the kernel before
};
Status rmsnorm(const bf* Z, int ldz, const bf* g, bf* N, int M, int L, float eps, NormOrder order, cudaStream_t s,
               NormKernel kernel = {});
// dst [rows, cols] fp32 (ld_dst) = src bf16 (ld_src): exact.
Status widen(const bf* src, int ld_src, float* dst, int ld_dst, int rows, int cols, cudaStream_t s);
// dst bf16 (ld_dst) = round-to-nearest-even of src fp32 (ld_src); with no_neg_zero, -0 becomes +0.
Status round_to(const float* src, int ld_src, bf* dst, int ld_dst, int rows, int cols, bool no_neg_zero, cudaStream_t s);
// -0 made +0 in y [rows, cols] (ld): a Lamport writer's sanitising, after a GEMM that rounds itself.
Status clear_neg_zero(bf* y, int ld, int rows, int cols, cudaStream_t s);
// y = bf16(float(y) + float(b)), n elements (tier 1's add: fp32, one rounding).
Status add_round(bf* y, const bf* b, size_t n, cudaStream_t s);
// The mutant gemm-round-then-add's epilogue: y [rows, cols] (ldy) =
// bf16(float(bf16(prod)) + float(add)) (add: null for none; may be y), -0
// made +0 when no_neg_zero. Two roundings where the contract has one.
Status round_then_add(const float* prod, int ldp, const bf* add, int ld_add, bf* y, int ldy, int rows, int cols,
                      bool no_neg_zero, cudaStream_t s);
// Every element's bits set to `bits`.
Status fill(bf* p, size_t n, uint16_t bits, cudaStream_t s);
// X [M, L + H] = [R | S].
Status concat(const bf* R, const bf* S, bf* X, int M, int L, int H, cudaStream_t s);
// Tier 0's Lamport all-gather: each rank q in [q_lo, q_hi) publishes its
// shard in_q [rows, w] into every receive buffer dst[d] [rows, T w] (d <
// n_dst; pre-filled with -0); each rank r in [lo, hi) then copies its
// receive buffer recv[r] into out_r, taking a slot only once it is not -0.
// A slot still -0 after a bounded spin is a published -0 that a real reader
// would wait for forever: its index lands in *stuck (else -1 is left there).
// skip >= 0: that rank does not publish (a mutant).
Status lamport_publish(const bf* const* in, bf* const* dst, int n_dst, int T, int q_lo, int q_hi, int rows, int w,
                       cudaStream_t s, int skip = -1);
// spin_s 0: every publisher is done (stream order or a fence), a slot is
// polled a bounded number of times; else the publishers run concurrently on
// other GPUs and a slot is awaited up to spin_s seconds.
Status lamport_read(const bf* const* recv, bf* const* out, int lo, int hi, size_t n, long long* stuck, cudaStream_t s,
                    double spin_s = 0);
// A barrier between processes on the device, for processes that each have
// their own GPU: process `pid` writes `epoch` into slot pid of every
// process's flag array (flags[q], mapped through peer memory), then waits
// until its own array holds epoch or more from every process. The stream's
// earlier work is complete and visible to the others before its flag is
// written. A process that does not arrive within `limit_s` seconds (the
// GPU's global timer) ends the wait; *failed then holds that process + 1.
Status device_fence(unsigned long long* const* flags, int procs, int pid, unsigned long long epoch, double limit_s,
                    int* failed, cudaStream_t s);
// The lamport-stale mutant: buffers never cleared, and a reader faster than
// the writers: a slot that is not -0 is taken at once (stale when left from
// an earlier use), else the value the writer then publishes.
Status lamport_race(const bf* const* in, bf* recv, bf* const* out, int T, int rows, int w, cudaStream_t s);

}  // namespace ltt::gpu
