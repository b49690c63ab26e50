// Device query of a build without CUDA.
#include "device.hpp"

namespace ltt::gpu {

DeviceInfo device_info() { return {false, 0, "cuda not built (no CUDA toolkit at configure time)"}; }

}  // namespace ltt::gpu
