// Every CUDA runtime, cuBLAS and NCCL call checked: a failure becomes a
// Status naming the call, the error and the file and line.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdio>
#if LTT_HAVE_NCCL
#include <nccl.h>
#endif

#include "status.hpp"

namespace ltt::gpu {
// A cuBLAS status in cuBLAS's own words: its name and its description.
inline std::string cublas_words(cublasStatus_t s) {
  return cat(cublasGetStatusName(s), " (", cublasGetStatusString(s), ")");
}
}  // namespace ltt::gpu

#define LTT_CUDA(call)                                                                                   \
  do {                                                                                                   \
    const cudaError_t ltt_e_ = (call);                                                                   \
    if (ltt_e_ != cudaSuccess)                                                                           \
      return ::ltt::Error{::ltt::Errc::internal, ::ltt::cat(#call, ": ", cudaGetErrorString(ltt_e_)),    \
                          __FILE__, __LINE__, -1};                                                       \
  } while (0)

#define LTT_CUBLAS(call)                                                                                 \
  do {                                                                                                   \
    const cublasStatus_t ltt_s_ = (call);                                                                \
    if (ltt_s_ != CUBLAS_STATUS_SUCCESS)                                                                 \
      return ::ltt::Error{::ltt::Errc::internal,                                                         \
                          ::ltt::cat(#call, ": ", ::ltt::gpu::cublas_words(ltt_s_)),                     \
                          __FILE__, __LINE__, -1};                                                       \
  } while (0)

// In a destructor, which cannot return one: a failed release is said on
// stderr (call, error, file and line), never dropped.
#define LTT_CUDA_NOTE(call)                                                                             \
  do {                                                                                                  \
    const cudaError_t ltt_e_ = (call);                                                                  \
    if (ltt_e_ != cudaSuccess)                                                                          \
      std::fprintf(stderr, "ltt: warning: %s: %s (%s:%d)\n", #call, cudaGetErrorString(ltt_e_), __FILE__, __LINE__); \
  } while (0)

#define LTT_CUBLAS_NOTE(call)                                                                           \
  do {                                                                                                  \
    const cublasStatus_t ltt_s_ = (call);                                                               \
    if (ltt_s_ != CUBLAS_STATUS_SUCCESS)                                                                \
      std::fprintf(stderr, "ltt: warning: %s: %s (%s:%d)\n", #call, cublasGetStatusName(ltt_s_), __FILE__, __LINE__); \
  } while (0)

namespace ltt::gpu {
// A destructor's Status, said on stderr where it failed.
inline void note(const Status& s) {
  if (!s.ok()) std::fprintf(stderr, "ltt: warning: %s\n", s.error().describe().c_str());
}
}  // namespace ltt::gpu

// After a kernel launch: the launch's own error.
#define LTT_LAUNCHED() LTT_CUDA(cudaGetLastError())

#if LTT_HAVE_NCCL
#define LTT_NCCL(call)                                                                                  \
  do {                                                                                                  \
    const ncclResult_t ltt_n_ = (call);                                                                 \
    if (ltt_n_ != ncclSuccess)                                                                          \
      return ::ltt::Error{::ltt::Errc::internal, ::ltt::cat(#call, ": ", ncclGetErrorString(ltt_n_)),   \
                          __FILE__, __LINE__, -1};                                                      \
  } while (0)
#endif
