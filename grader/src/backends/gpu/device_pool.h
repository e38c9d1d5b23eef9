// Device memory for many short cases in one process. A plain cudaMalloc or
// cudaFree takes a driver lock that every other process's CUDA start-up and
// exit also takes: on a GPU shared by several gradings, each case waited
// behind the others' start-ups (grader/bench/alloc_contention.sh; figures in
// RESULTS.md). Stream-ordered allocations from the device's default pool, told
// to keep what is freed, are served without that lock after the first.
// Where a device has no memory pools, plain cudaMalloc/cudaFree are used.
#pragma once
#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

namespace sg::gpu {

// Asked once per process: each process grades on one device (the one
// CUDA_VISIBLE_DEVICES leaves it), so the answer cannot change.
inline bool pools_supported() {
  static const bool supported = [] {
    int device = 0, value = 0;
    return cudaGetDevice(&device) == cudaSuccess &&
           cudaDeviceGetAttribute(&value, cudaDevAttrMemoryPoolsSupported, device) == cudaSuccess && value != 0;
  }();
  return supported;
}

// Once per process, after the context exists: freed memory stays in the pool.
inline cudaError_t keep_freed_memory() {
  if (!pools_supported()) return cudaSuccess;
  int device = 0;
  cudaMemPool_t pool = nullptr;
  cudaError_t err = cudaGetDevice(&device);
  if (err == cudaSuccess) err = cudaDeviceGetDefaultMemPool(&pool, device);
  std::uint64_t keep_all = UINT64_MAX;
  if (err == cudaSuccess) err = cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_all);
  return err;
}

// Gives what the pool kept back to the device: a worker's context, kept
// across gradings, holds none of the last grading's memory (which another
// grading's case on this device may need).
inline cudaError_t give_back_freed_memory() {
  if (!pools_supported()) return cudaSuccess;
  int device = 0;
  cudaMemPool_t pool = nullptr;
  cudaError_t err = cudaGetDevice(&device);
  if (err == cudaSuccess) err = cudaDeviceGetDefaultMemPool(&pool, device);
  if (err == cudaSuccess) err = cudaMemPoolTrimTo(pool, 0);
  return err;
}

// On the legacy default stream, so ordered with cudaMemcpy and with launches
// on it; the callers synchronise the device before the memory is read.
inline cudaError_t device_alloc(void** p, std::size_t bytes) {
  return pools_supported() ? cudaMallocAsync(p, bytes, cudaStreamLegacy) : cudaMalloc(p, bytes);
}

inline cudaError_t device_free(void* p) {
  if (p == nullptr) return cudaSuccess;
  return pools_supported() ? cudaFreeAsync(p, cudaStreamLegacy) : cudaFree(p);
}

}  // namespace sg::gpu
