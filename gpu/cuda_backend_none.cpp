// The cuda backend of a build without CUDA: it says so.
#include "cuda_backend.hpp"

namespace ltt::gpu {

Status cuda_available() {
  return LTT_USAGE("--backend cuda: this build has no cuda backend (no CUDA toolkit at configure time; "
                   "configure with nvcc on the PATH or at /usr/local/cuda)");
}

Status run_cuda(const Problem&, int, const Contract&, const Inputs&, int, std::vector<MatrixB>&) { return cuda_available(); }

}  // namespace ltt::gpu
