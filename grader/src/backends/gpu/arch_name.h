// The "sm_XY" name nvcc's -arch takes, from a compute capability: one
// spelling for the judge's description of its GPU and the batch's inventory.
#pragma once
#include <string>

namespace sg::gpu {

inline std::string arch_name(int major, int minor) {
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

}  // namespace sg::gpu
