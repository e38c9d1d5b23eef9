#include "batch/gpu_inventory.h"

#include "backends/gpu/arch_name.h"

#ifndef SG_NO_CUDA
#include <cuda_runtime.h>
#endif

namespace sg::batch {

int visible_gpu_count() {
#ifdef SG_NO_CUDA
  return 0;  // built without CUDA: batches grade on the CPU backend
#else
  int count = 0;
  // No device or no driver is not an error for a batch: it grades on the CPU.
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    cudaGetLastError();  // clear it so later runtime calls are not blamed for it
    return 0;
  }
  return count;
#endif
}

std::string gpu_arch(int index) {
#ifdef SG_NO_CUDA
  (void)index;
  return "";
#else
  int major = 0, minor = 0;
  // Attributes only: no context is created in the batch process.
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, index) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, index) != cudaSuccess) {
    cudaGetLastError();
    return "";
  }
  return gpu::arch_name(major, minor);
#endif
}

std::string child_visible_devices(int index, const char* parent_value) {
  if (parent_value && *parent_value) {
    const std::string list = parent_value;
    std::size_t start = 0;
    for (int i = 0; start <= list.size(); ++i) {
      const std::size_t comma = std::min(list.find(',', start), list.size());
      if (i == index) return list.substr(start, comma - start);
      start = comma + 1;
    }
  }
  return std::to_string(index);
}

std::vector<int> choose_gpus(const std::optional<std::vector<int>>& requested, int visible,
                             std::string& error) {
  error.clear();
  std::vector<int> out;
  if (!requested) {
    for (int i = 0; i < visible; ++i) out.push_back(i);
    return out;
  }
  for (int g : *requested) {
    if (g >= visible) {
      error = "--gpus: GPU " + std::to_string(g) + " is not visible (" + std::to_string(visible) +
              " GPU" + (visible == 1 ? "" : "s") + " visible)";
      return {};
    }
    out.push_back(g);
  }
  return out;
}

}  // namespace sg::batch
