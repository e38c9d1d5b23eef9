// The host API of the CUDA runtime, as far as the CPU backend provides it.
// Device memory is host memory fenced by guard pages; kernels run to
// completion inside the launch, so every call here is synchronous and
// "asynchronous" errors surface at the next call, as on a GPU.
#pragma once
#include <cstddef>
#include <cstring>

#include "cudacpu/types.h"

cudaError_t cudaMalloc(void** ptr, std::size_t bytes);
cudaError_t cudaFree(void* ptr);
cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream = nullptr);
cudaError_t cudaMemset(void* ptr, int value, std::size_t bytes);
cudaError_t cudaMemsetAsync(void* ptr, int value, std::size_t bytes, cudaStream_t stream = nullptr);
cudaError_t cudaMemGetInfo(std::size_t* free_bytes, std::size_t* total_bytes);
cudaError_t cudaMallocHost(void** ptr, std::size_t bytes);
cudaError_t cudaHostAlloc(void** ptr, std::size_t bytes, unsigned int flags);
cudaError_t cudaFreeHost(void* ptr);

cudaError_t cudaDeviceSynchronize();
cudaError_t cudaThreadSynchronize();
cudaError_t cudaDeviceReset();
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char* cudaGetErrorString(cudaError_t err);
const char* cudaGetErrorName(cudaError_t err);

cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache config);
cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig config);

cudaError_t cudaStreamCreate(cudaStream_t* stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);

cudaError_t cudaEventCreate(cudaEvent_t* event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = nullptr);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t stop);
cudaError_t cudaEventDestroy(cudaEvent_t event);

// Typed conveniences that the CUDA runtime header also offers.
template <typename T>
inline cudaError_t cudaMalloc(T** ptr, std::size_t bytes) {
  return cudaMalloc(reinterpret_cast<void**>(ptr), bytes);
}
template <typename T>
inline cudaError_t cudaMallocHost(T** ptr, std::size_t bytes) {
  return cudaMallocHost(reinterpret_cast<void**>(ptr), bytes);
}

namespace cudacpu::detail {
// Attributes are recorded per kernel; only the dynamic shared memory limit has
// an effect on the CPU backend.
cudaError_t set_function_attribute(const void* fn, cudaFuncAttribute attr, int value);
// Validates a copy to or from a __constant__/__device__ symbol of `symbol_bytes`.
cudaError_t check_symbol_copy(std::size_t symbol_bytes, std::size_t count, std::size_t offset);
}  // namespace cudacpu::detail

template <typename R, typename... P>
inline cudaError_t cudaFuncSetAttribute(R (*fn)(P...), cudaFuncAttribute attr, int value) {
  return ::cudacpu::detail::set_function_attribute(reinterpret_cast<const void*>(fn), attr, value);
}
template <typename R, typename... P>
inline cudaError_t cudaFuncSetCacheConfig(R (*fn)(P...), cudaFuncCache) {
  return ::cudacpu::detail::set_function_attribute(reinterpret_cast<const void*>(fn),
                                                   cudaFuncAttributePreferredSharedMemoryCarveout, 0);
}

template <typename T>
inline cudaError_t cudaMemcpyToSymbol(T& symbol, const void* src, std::size_t count, std::size_t offset = 0,
                                      cudaMemcpyKind = cudaMemcpyHostToDevice) {
  const cudaError_t err = ::cudacpu::detail::check_symbol_copy(sizeof(T), count, offset);
  if (err == cudaSuccess) std::memcpy(reinterpret_cast<char*>(&symbol) + offset, src, count);
  return err;
}
template <typename T>
inline cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, std::size_t count, std::size_t offset = 0,
                                        cudaMemcpyKind = cudaMemcpyDeviceToHost) {
  const cudaError_t err = ::cudacpu::detail::check_symbol_copy(sizeof(T), count, offset);
  if (err == cudaSuccess) std::memcpy(dst, reinterpret_cast<const char*>(&symbol) + offset, count);
  return err;
}
