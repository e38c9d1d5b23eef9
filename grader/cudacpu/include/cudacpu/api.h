// The host API of the CUDA runtime, as far as the CPU backend provides it.
// Device memory is host memory fenced by guard pages; kernels run to
// completion inside the launch, so every call here is synchronous and
// "asynchronous" errors surface at the next call, as on a GPU.
#pragma once
#include <cstddef>
#include <cstring>

#include "cudacpu/types.h"

// C linkage, as in the CUDA runtime: the symbol policy reads the same names
// in an object built for the layer as in one built by nvcc.
extern "C" {
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
}

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
// A copy of `count` bytes to (to_symbol) or from a __constant__/__device__
// symbol of `symbol_bytes` at `offset`, validated (a __device__ variable is
// device memory, which only the runtime's copies reach from the host).
cudaError_t copy_symbol(void* symbol, std::size_t symbol_bytes, void* host, std::size_t count, std::size_t offset,
                        bool to_symbol);
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
  return ::cudacpu::detail::copy_symbol(const_cast<void*>(static_cast<const volatile void*>(&symbol)), sizeof(T),
                                        const_cast<void*>(src), count, offset, true);
}
template <typename T>
inline cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, std::size_t count, std::size_t offset = 0,
                                        cudaMemcpyKind = cudaMemcpyDeviceToHost) {
  return ::cudacpu::detail::copy_symbol(const_cast<void*>(static_cast<const volatile void*>(&symbol)), sizeof(T), dst,
                                        count, offset, false);
}
