// Device query through the CUDA runtime; every call's status is checked:
// what the reports say of the build and devices, and the capabilities the
// tier 0 kernels' plans ask for.
#include <cuda_runtime.h>
#ifdef LTT_HAVE_NCCL
#include <nccl.h>
#endif

#include "device.hpp"
#include "kernels.cuh"
#include "status.hpp"

namespace ltt::gpu {

DeviceInfo device_info() {
  DeviceInfo d;
  d.built = true;
  int runtime = 0;
  if (cudaRuntimeGetVersion(&runtime) != cudaSuccess) runtime = CUDART_VERSION;  // the one built against
  std::string nccl = "no NCCL";
#ifdef LTT_HAVE_NCCL
  int v = 0;
  if (ncclGetVersion(&v) == ncclSuccess) nccl = cat("NCCL ", v / 10000, ".", (v % 10000) / 100, ".", v % 100);
#endif
  const cudaError_t e = cudaGetDeviceCount(&d.devices);
  if (e != cudaSuccess) {
    d.devices = 0;
    d.description = cat("cuda built (runtime ", runtime / 1000, ".", (runtime % 1000) / 10, ", ", nccl,
                        "), no device: ", cudaGetErrorString(e));
    (void)cudaGetLastError();
    return d;
  }
  cudaDeviceProp prop{};
  std::string name = "?";
  if (d.devices > 0) {
    const cudaError_t pe = cudaGetDeviceProperties(&prop, 0);
    if (pe == cudaSuccess) {
      name = prop.name;
    } else {
      name = cat("? (cudaGetDeviceProperties: ", cudaGetErrorString(pe), ")");
      (void)cudaGetLastError();  // not left for the next launch's check to report
    }
  }
  d.description = cat("cuda built (runtime ", runtime / 1000, ".", (runtime % 1000) / 10, ", ", nccl, "), ",
                      d.devices, " device(s): ", name);
  return d;
}

DeviceCaps device_caps() {
  int dev = 0;
  DeviceCaps c;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&c.major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&c.minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&c.sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&c.smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess) {
    (void)cudaGetLastError();
    return DeviceCaps{};
  }
  return c;
}

}  // namespace ltt::gpu
