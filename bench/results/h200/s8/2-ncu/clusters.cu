// How many clusters of the MMA kernel's shape the H200 holds at once
// (cudaOccupancyMaxActiveClusters): 256 threads a block, one block an SM,
// clusters of ck blocks along y, the shared memory of M 1 and M 128 at k3.
#include <cstdio>
#include <cuda_runtime.h>
__global__ void k(int* p) {
  extern __shared__ int s[];
  if (p) p[0] = s[0];
}
int main() {
  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 232448);
  cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  for (int ck : {1, 2, 4, 8, 16})
    for (size_t smem : {size_t(78848), size_t(206848)}) {
      cudaLaunchConfig_t cfg{};
      cfg.gridDim = dim3(14, ck);
      cfg.blockDim = dim3(256);
      cfg.dynamicSmemBytes = smem;
      cudaLaunchAttribute a[1];
      a[0].id = cudaLaunchAttributeClusterDimension;
      a[0].val.clusterDim.x = 1;
      a[0].val.clusterDim.y = ck;
      a[0].val.clusterDim.z = 1;
      cfg.attrs = a;
      cfg.numAttrs = 1;
      int n = -1;
      cudaError_t e = cudaOccupancyMaxActiveClusters(&n, k, &cfg);
      std::printf("cluster %2d smem %6zu: max active clusters %3d (%3d blocks) %s\n", ck, smem, n, n * ck,
                  e == cudaSuccess ? "" : cudaGetErrorString(e));
    }
  return 0;
}
