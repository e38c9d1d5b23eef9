// The device-memory part of the runtime API: cudaMalloc/Free/Memcpy/Memset
// and friends over guard-paged allocations. Pointer and range errors are
// reported as CUDA reports them (cudaErrorInvalidValue), with a detail.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cudacpu/api.h"
#include "runtime.h"

using cudacpu::detail::Runtime;

namespace {

std::string pointer_text(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", p);
  return buf;
}

// Checks that [p, p + bytes) is device memory; records the error when not.
bool device_range(Runtime& rt, const char* call, const char* role, const void* p, std::size_t bytes) {
  if (rt.memory().holding(p, bytes) != nullptr) return true;
  const cudacpu::detail::Allocation* a = rt.memory().holding(p, 0);
  if (a != nullptr)
    rt.fail(cudaErrorInvalidValue, std::string(call) + ": the " + role + " range of " + std::to_string(bytes) +
                                       " bytes runs past the end of its " + std::to_string(a->bytes) +
                                       "-byte device allocation");
  else
    rt.fail(cudaErrorInvalidValue,
            std::string(call) + ": the " + role + " " + pointer_text(p) + " is not device memory from cudaMalloc");
  return false;
}

bool is_device(Runtime& rt, const void* p) { return rt.memory().holding(p, 0) != nullptr; }

cudaError_t copy(const char* call, void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
  Runtime& rt = Runtime::get();
  if (rt.sticky() != cudaSuccess) return rt.sticky();
  if (bytes == 0) return cudaSuccess;
  if (kind == cudaMemcpyDefault)
    kind = is_device(rt, dst) ? (is_device(rt, src) ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
                              : (is_device(rt, src) ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
  bool ok = true;
  switch (kind) {
    case cudaMemcpyHostToHost:
      break;
    case cudaMemcpyHostToDevice:
      ok = device_range(rt, call, "destination", dst, bytes);
      break;
    case cudaMemcpyDeviceToHost:
      ok = device_range(rt, call, "source", src, bytes);
      break;
    case cudaMemcpyDeviceToDevice:
      ok = device_range(rt, call, "destination", dst, bytes) && device_range(rt, call, "source", src, bytes);
      break;
    default:
      return rt.fail(cudaErrorInvalidMemcpyDirection,
                     std::string(call) + ": unknown copy kind " + std::to_string(static_cast<int>(kind)));
  }
  if (!ok) return cudaErrorInvalidValue;
  if (dst == nullptr || src == nullptr) return rt.fail(cudaErrorInvalidValue, std::string(call) + ": null pointer");
  cudacpu::detail::DataWindow open(rt.memory());
  std::memmove(dst, src, bytes);
  return cudaSuccess;
}

}  // namespace

cudaError_t cudaMalloc(void** ptr, std::size_t bytes) {
  Runtime& rt = Runtime::get();
  if (rt.sticky() != cudaSuccess) return rt.sticky();
  if (ptr == nullptr) return rt.fail(cudaErrorInvalidValue, "cudaMalloc: the result pointer is null");
  *ptr = nullptr;
  if (bytes == 0) return cudaSuccess;
  *ptr = rt.memory().allocate(bytes);
  if (*ptr == nullptr)
    return rt.fail(cudaErrorMemoryAllocation, "cudaMalloc: " + std::to_string(bytes) + " bytes do not fit (" +
                                                  std::to_string(rt.memory().used()) + " of " +
                                                  std::to_string(rt.memory().limit()) + " bytes in use)");
  return cudaSuccess;
}

cudaError_t cudaFree(void* ptr) {
  Runtime& rt = Runtime::get();
  if (rt.sticky() != cudaSuccess) return rt.sticky();
  if (ptr == nullptr || rt.memory().release(ptr)) return cudaSuccess;
  return rt.fail(cudaErrorInvalidValue,
                 "cudaFree: " + pointer_text(ptr) + " is not the start of a live cudaMalloc allocation");
}

cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
  return copy("cudaMemcpy", dst, src, bytes, kind);
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, cudaStream_t) {
  return copy("cudaMemcpyAsync", dst, src, bytes, kind);
}

cudaError_t cudaMemset(void* ptr, int value, std::size_t bytes) {
  Runtime& rt = Runtime::get();
  if (rt.sticky() != cudaSuccess) return rt.sticky();
  if (bytes == 0) return cudaSuccess;
  if (!device_range(rt, "cudaMemset", "destination", ptr, bytes)) return cudaErrorInvalidValue;
  cudacpu::detail::DataWindow open(rt.memory());
  std::memset(ptr, value, bytes);
  return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void* ptr, int value, std::size_t bytes, cudaStream_t) {
  return cudaMemset(ptr, value, bytes);
}

cudaError_t cudaMemGetInfo(std::size_t* free_bytes, std::size_t* total_bytes) {
  Runtime& rt = Runtime::get();
  if (rt.sticky() != cudaSuccess) return rt.sticky();
  if (free_bytes) *free_bytes = rt.memory().limit() - rt.memory().used();
  if (total_bytes) *total_bytes = rt.memory().limit();
  return cudaSuccess;
}

cudaError_t cudaMallocHost(void** ptr, std::size_t bytes) {
  Runtime& rt = Runtime::get();
  if (ptr == nullptr) return rt.fail(cudaErrorInvalidValue, "cudaMallocHost: the result pointer is null");
  *ptr = std::malloc(bytes ? bytes : 1);
  return *ptr ? cudaSuccess : rt.fail(cudaErrorMemoryAllocation, "cudaMallocHost: out of host memory");
}

cudaError_t cudaHostAlloc(void** ptr, std::size_t bytes, unsigned int) { return cudaMallocHost(ptr, bytes); }

cudaError_t cudaFreeHost(void* ptr) {
  std::free(ptr);
  return cudaSuccess;
}
