// Tests that need a CUDA device skip with the reason where there is none.
#pragma once
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <string>

namespace sg::test {

// Empty when a device is usable, else why not.
inline std::string gpu_unavailable_reason() {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) return std::string("no usable CUDA device (cudaGetDeviceCount: ") + cudaGetErrorString(err) + ")";
  if (count == 0) return "no CUDA device present";
  return "";
}

}  // namespace sg::test

#define SG_REQUIRE_GPU()                                                   \
  do {                                                                     \
    const std::string sg_reason_ = ::sg::test::gpu_unavailable_reason();   \
    if (!sg_reason_.empty()) GTEST_SKIP() << "needs a GPU: " << sg_reason_; \
  } while (0)
