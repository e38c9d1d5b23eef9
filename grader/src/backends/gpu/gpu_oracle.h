// The judge's own use of the GPU: the FP64 oracle (cuBLAS DGEMM) and the
// cuBLAS SGEMM roofline. Runs in the trusted judge process, never in the runner.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "backends/gpu/arch_name.h"

namespace sg {

struct DeviceDescription {
  bool present = false;
  std::string why_not;  // when !present
  std::string name;     // "NVIDIA H100 80GB HBM3"
  int major = 0, minor = 0;
  std::size_t free_bytes = 0;  // set once the judge's context exists (GpuOracle::free_device_bytes)
  std::size_t total_bytes = 0;
  std::string arch() const { return gpu::arch_name(major, minor); }
};

// Probes device 0 (as CUDA_VISIBLE_DEVICES selects it) without creating a
// context: that is the oracle's, which starts beside the compiler.
DeviceDescription describe_device();

class GpuOracle {
 public:
  // Throws std::runtime_error naming the failed CUDA/cuBLAS call.
  GpuOracle();
  ~GpuOracle();
  GpuOracle(const GpuOracle&) = delete;
  GpuOracle& operator=(const GpuOracle&) = delete;

  // C64 = A*B and |A||B| in FP64 (row-major), via cuBLAS DGEMM in default math mode.
  void oracle(int m, int n, int k, const float* a, const float* b, std::vector<double>& c64,
              std::vector<double>& abs_ab);
  // Free device memory now, as this context sees it (0 when unknown).
  std::size_t free_device_bytes() const;
  // After a grading, in a worker that keeps this oracle for the next: the
  // device memory the grading's cases used given back, and whether the
  // context can do more work (all of it finished without an error: a sticky
  // one would fail every later call).
  bool ready_for_another();
  // Median time in ms of cuBLAS SGEMM on the same inputs (L2 flushed before each).
  double time_sgemm(int m, int n, int k, const float* a, const float* b, int samples);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sg
