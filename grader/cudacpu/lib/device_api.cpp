// The rest of the runtime API: errors, synchronisation, the (single) device,
// streams and events, kernel attributes, and the runner-facing extensions.
// Kernels finish inside their launch, so synchronising only reports errors.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>

#include "cudacpu/api.h"
#include "cudacpu/ext.h"
#include "runtime.h"

using cudacpu::detail::Runtime;

// Streams and events are real objects so that handles can be checked.
struct CUstream_st {
  unsigned int flags = 0;
};
struct CUevent_st {
  std::chrono::steady_clock::time_point when{};
  bool recorded = false;
};

namespace {

cudaError_t sticky_or_success() { return Runtime::get().sticky(); }

}  // namespace

cudaError_t cudaDeviceSynchronize() { return sticky_or_success(); }
cudaError_t cudaThreadSynchronize() { return sticky_or_success(); }
cudaError_t cudaDeviceReset() { return sticky_or_success(); }
cudaError_t cudaGetLastError() { return Runtime::get().take_last_error(); }
cudaError_t cudaPeekAtLastError() { return Runtime::get().peek_last_error(); }

cudaError_t cudaGetDeviceCount(int* count) {
  if (count == nullptr) return Runtime::get().fail(cudaErrorInvalidValue, "cudaGetDeviceCount: null pointer");
  *count = 1;
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
  if (device == nullptr) return Runtime::get().fail(cudaErrorInvalidValue, "cudaGetDevice: null pointer");
  *device = 0;
  return sticky_or_success();
}

cudaError_t cudaSetDevice(int device) {
  if (device != 0)
    return Runtime::get().fail(cudaErrorInvalidDevice,
                               "cudaSetDevice: device " + std::to_string(device) + " does not exist (only 0)");
  return sticky_or_success();
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  Runtime& rt = Runtime::get();
  if (prop == nullptr) return rt.fail(cudaErrorInvalidValue, "cudaGetDeviceProperties: null pointer");
  if (device != 0) return rt.fail(cudaErrorInvalidDevice, "cudaGetDeviceProperties: only device 0 exists");
  std::memset(prop, 0, sizeof *prop);
  // An sm_90 device as the GPU backend's H100/H200 describe it: nothing here tells the layer from a GPU.
  std::snprintf(prop->name, sizeof prop->name, "NVIDIA H100 80GB HBM3");
  prop->totalGlobalMem = rt.memory().limit();
  prop->sharedMemPerBlock = 48 << 10;
  prop->sharedMemPerBlockOptin = 227 << 10;
  prop->sharedMemPerMultiprocessor = 228 << 10;
  prop->regsPerBlock = 65536;
  prop->warpSize = 32;
  prop->maxThreadsPerBlock = 1024;
  prop->maxThreadsDim[0] = 1024;
  prop->maxThreadsDim[1] = 1024;
  prop->maxThreadsDim[2] = 64;
  prop->maxGridSize[0] = 2147483647;
  prop->maxGridSize[1] = 65535;
  prop->maxGridSize[2] = 65535;
  prop->totalConstMem = 64 << 10;
  prop->major = 9;
  prop->minor = 0;
  prop->multiProcessorCount = 132;
  prop->maxThreadsPerMultiProcessor = 2048;
  prop->clockRate = 1980000;
  prop->l2CacheSize = 50 << 20;
  prop->memoryClockRate = 2619000;
  prop->memoryBusWidth = 5120;
  return rt.sticky();
}

cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache) { return sticky_or_success(); }
cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig) { return sticky_or_success(); }

cudaError_t cudaStreamCreate(cudaStream_t* stream) { return cudaStreamCreateWithFlags(stream, 0); }

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
  Runtime& rt = Runtime::get();
  if (rt.sticky() != cudaSuccess) return rt.sticky();
  if (stream == nullptr) return rt.fail(cudaErrorInvalidValue, "cudaStreamCreate: null pointer");
  *stream = new (std::nothrow) CUstream_st{flags};
  return *stream ? cudaSuccess : rt.fail(cudaErrorMemoryAllocation, "cudaStreamCreate: out of memory");
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  delete stream;
  return sticky_or_success();
}

cudaError_t cudaStreamSynchronize(cudaStream_t) { return sticky_or_success(); }

cudaError_t cudaEventCreate(cudaEvent_t* event) { return cudaEventCreateWithFlags(event, 0); }

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int) {
  Runtime& rt = Runtime::get();
  if (rt.sticky() != cudaSuccess) return rt.sticky();
  if (event == nullptr) return rt.fail(cudaErrorInvalidValue, "cudaEventCreate: null pointer");
  *event = new (std::nothrow) CUevent_st{};
  return *event ? cudaSuccess : rt.fail(cudaErrorMemoryAllocation, "cudaEventCreate: out of memory");
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t) {
  Runtime& rt = Runtime::get();
  if (rt.sticky() != cudaSuccess) return rt.sticky();
  if (event == nullptr) return rt.fail(cudaErrorInvalidResourceHandle, "cudaEventRecord: null event");
  event->when = std::chrono::steady_clock::now();
  event->recorded = true;
  return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  Runtime& rt = Runtime::get();
  if (event == nullptr) return rt.fail(cudaErrorInvalidResourceHandle, "cudaEventSynchronize: null event");
  return rt.sticky();
}

cudaError_t cudaEventQuery(cudaEvent_t event) { return cudaEventSynchronize(event); }

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t stop) {
  Runtime& rt = Runtime::get();
  if (rt.sticky() != cudaSuccess) return rt.sticky();
  if (ms == nullptr) return rt.fail(cudaErrorInvalidValue, "cudaEventElapsedTime: null pointer");
  if (start == nullptr || stop == nullptr)
    return rt.fail(cudaErrorInvalidResourceHandle, "cudaEventElapsedTime: null event");
  if (!start->recorded || !stop->recorded)
    return rt.fail(cudaErrorInvalidResourceHandle, "cudaEventElapsedTime: an event was never recorded");
  *ms = std::chrono::duration<float, std::milli>(stop->when - start->when).count();
  return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  delete event;
  return sticky_or_success();
}

namespace cudacpu {

namespace detail {

cudaError_t set_function_attribute(const void* fn, cudaFuncAttribute attr, int value) {
  Runtime& rt = Runtime::get();
  if (rt.sticky() != cudaSuccess) return rt.sticky();
  if (fn == nullptr) return rt.fail(cudaErrorInvalidDeviceFunction, "cudaFuncSetAttribute: null kernel");
  if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize && (value < 0 || value > (227 << 10)))
    return rt.fail(cudaErrorInvalidValue, "cudaFuncSetAttribute: " + std::to_string(value) +
                                              " bytes of dynamic shared memory is outside [0, 232448]");
  rt.set_attribute(fn, attr, value);
  return cudaSuccess;
}

cudaError_t copy_symbol(void* symbol, std::size_t symbol_bytes, void* host, std::size_t count, std::size_t offset,
                        bool to_symbol) {
  Runtime& rt = Runtime::get();
  if (rt.sticky() != cudaSuccess) return rt.sticky();
  if (offset > symbol_bytes || count > symbol_bytes - offset)
    return rt.fail(cudaErrorInvalidValue, "cudaMemcpyToSymbol/FromSymbol: " + std::to_string(count) +
                                              " bytes at offset " + std::to_string(offset) + " overrun a " +
                                              std::to_string(symbol_bytes) + "-byte symbol");
  DataWindow open(rt.memory());
  char* at = static_cast<char*>(symbol) + offset;
  if (to_symbol)
    std::memcpy(at, host, count);
  else
    std::memcpy(host, at, count);
  return cudaSuccess;
}

void* device_variable_storage(std::size_t bytes, std::size_t align, const char* name, const char* element_type,
                              std::size_t element_size) {
  Runtime& rt = Runtime::get();
  void* p = rt.memory().allocate(bytes == 0 ? 1 : bytes, false, align);
  if (p == nullptr) {
    char message[160];
    std::snprintf(message, sizeof message, "no memory for __device__ %s (%zu bytes)", name, bytes);
    rt.die(message);
  }
  rt.memory().name(p, name, element_type, element_size);
  return p;
}

}  // namespace detail

bool name_allocation(const void* ptr, const char* name, const char* element_type, std::size_t element_size,
                     std::size_t columns) {
  return Runtime::get().memory().name(ptr, name, element_type, element_size, columns);
}

void set_schedule(bool ascending, std::uint64_t seed) { Runtime::get().set_schedule({ascending, seed}); }

LoadCount take_load_count() {
  detail::LaunchTracker& t = Runtime::get().tracker();
  LoadCount c{t.warp_loads, t.launches};
  t.warp_loads = 0;
  t.launches = 0;
  return c;
}

std::string take_block_race_report(unsigned long long* stores) {
  detail::LaunchTracker& t = Runtime::get().tracker();
  if (stores != nullptr) *stores = t.races;
  std::string first;
  first.swap(t.first_race);
  t.races = 0;
  return first;
}

void set_fatal_hook(FatalHook hook, void* user) { Runtime::get().set_fatal_hook(hook, user); }

const char* last_error_detail() { return Runtime::get().detail().c_str(); }

std::string take_out_of_bounds_report() { return Runtime::get().take_stray_access(); }

}  // namespace cudacpu
