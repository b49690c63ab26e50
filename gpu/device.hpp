// What this build and machine offer the cuda backend: whether it was built,
// the CUDA and NCCL versions it was built with, the visible devices.
#pragma once

#include <string>

namespace ltt::gpu {

struct DeviceInfo {
  bool built = false;       // compiled with CUDA
  int devices = 0;          // visible devices (0 when none or no driver)
  std::string description;  // one line for report headers
};

DeviceInfo device_info();

}  // namespace ltt::gpu
