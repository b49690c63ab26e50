// The cuda backend and its timings in a build without CUDA: they say so.
#include "cuda_backend.hpp"
#include "cuda_bench.hpp"

namespace ltt::gpu {

Status cuda_available() {
  return LTT_USAGE("--backend cuda: this build has no cuda backend (no CUDA toolkit at configure time; "
                   "configure with nvcc on the PATH or at /usr/local/cuda)");
}

Status run_cuda(const Problem&, int, const Contract&, const Inputs&, int, std::vector<MatrixB>&, Mutant, const Peers*, Transport) {
  return cuda_available();
}
bool supported_mutant(Mutant) { return false; }
bool have_nccl() { return false; }
Result<std::vector<std::string>> gemm_algos(const Problem&, int) { return cuda_available().error(); }
void use_gemm_algo(int) {}
Result<std::string> mma_exact(int, int, int, int) { return cuda_available().error(); }
Result<Tier0Path> tier0_path(const Problem&) { return Tier0Path::cublas; }
Result<int> tier0_columns() { return 0; }
const char* tier0_path_name(Tier0Path) { return "cublas"; }

Result<double> copy_bandwidth(size_t, int) { return cuda_available().error(); }
Result<Timing> time_copy(size_t, int) { return cuda_available().error(); }
Result<Timing> time_launch_clusters(int, bool, int) { return cuda_available().error(); }
Result<Timing> time_read(size_t, int, ReadShape*) { return cuda_available().error(); }
Result<Timing> time_chain(const Problem&, int, bool) { return cuda_available().error(); }
Result<Timing> time_tier(const Problem&, int, const Contract&, const Inputs&, int) { return cuda_available().error(); }
bool norm_choice_applies(const NormChoice&, int) { return false; }
Result<Timing> time_rmsnorm(const Problem&, const Inputs&, int, NormChoice) { return cuda_available().error(); }
Result<Timing> time_tier0_rank_cublas(const Problem&, const Inputs&, int) { return cuda_available().error(); }
Result<Timing> time_tier0_kernel(const Problem&, const Inputs&, int, bool, Tier0Variant) { return cuda_available().error(); }
Result<Timing> time_fake_allreduce(const Problem&, const Inputs&, int, Algo) { return cuda_available().error(); }
size_t l2_cache_bytes() { return 0; }
Result<Timing> time_fake_lamport(const Problem&, int) { return cuda_available().error(); }
Result<Timing> time_gemm_full(const Problem&, const Inputs&, int) { return cuda_available().error(); }

Result<RanksInfo> ranks_info(const Peers&) { return cuda_available().error(); }
Result<Timing> time_tier_ranks(const Problem&, int, const Contract&, const Inputs&, int, const Peers&, Transport) {
  return cuda_available().error();
}
Result<Timing> time_tier0_unfused(const Problem&, const Inputs&, int, const Peers&) { return cuda_available().error(); }
Result<Timing> time_allreduce(size_t, int, const Peers&, Transport) { return cuda_available().error(); }

Status warm_up(double) { return cuda_available(); }
Result<Timing> time_launch(int, int) { return cuda_available().error(); }
Result<Timing> time_launch_graph(int) { return cuda_available().error(); }
Result<Timing> time_gemm_shard_seq(const Problem&, const Inputs&, int, int) { return cuda_available().error(); }
Result<Timing> time_widen(const Problem&, const Inputs&, int) { return cuda_available().error(); }
Result<Timing> time_round(const Problem&, const Inputs&, int) { return cuda_available().error(); }

}  // namespace ltt::gpu
