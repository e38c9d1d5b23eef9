// The runner's CUDA calls: a failed call named with its error, device
// buffers freed on every path, a refused launch told from a broken context.
// Included by runner_main.cu only (device code, nvcc).
#pragma once
#include <cuda_runtime.h>

#include <string>

#include "backends/gpu/device_pool.h"
#include "proto/protocol.h"

// A failed CUDA call, named, with the error; sticky errors end the runner.
struct CudaFailure {
  sg::proto::ReplyStatus status;
  std::string message;
  cudaError_t error = cudaSuccess;  // the call's, for the reply's facts (proto::LaunchFacts::fault)
};

inline bool check(cudaError_t err, const char* call, CudaFailure& f) {
  if (err == cudaSuccess) return true;
  f.status = (err == cudaErrorMemoryAllocation) ? sg::proto::ReplyStatus::OutOfMemory
                                                : sg::proto::ReplyStatus::CudaError;
  f.error = err;
  f.message = std::string(call) + " failed: " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")";
  return false;
}
#define RUNNER_CHECK(call) check((call), #call, fail)

// Device buffers for one case, freed on every path.
struct DeviceBuffers {
  float *a = nullptr, *b = nullptr, *c = nullptr;
  bool pooled = true;  // from sg::gpu::device_alloc; the selftest's are plain cudaMalloc (the sanitizer's case)
  ~DeviceBuffers() {
    for (void* p : {static_cast<void*>(a), static_cast<void*>(b), static_cast<void*>(c)})
      pooled ? sg::gpu::device_free(p) : cudaFree(p);
  }
};

// A refused launch (bad grid or block) leaves the context usable; the runner
// carries on when the device still synchronises cleanly, which spares the
// judge a new runner (a CUDA start-up) per such case.
inline bool launch_ok(CudaFailure& fail) {
  const cudaError_t launch = cudaGetLastError();
  if (launch == cudaSuccess) return true;
  const bool usable = cudaDeviceSynchronize() == cudaSuccess && cudaGetLastError() == cudaSuccess;
  fail.status = usable ? sg::proto::ReplyStatus::LaunchRefused : sg::proto::ReplyStatus::LaunchError;
  fail.error = launch;
  fail.message = std::string("launch error after basicSgemm: ") + cudaGetErrorName(launch) + " (" +
                 cudaGetErrorString(launch) + ")";
  return false;
}
