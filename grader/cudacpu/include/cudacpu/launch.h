// Kernel launches on the CPU backend. The source rewriter turns
//   kern<<<grid, block, shmem, stream>>>(args...)
// into
//   ::cudacpu::launch(kern, grid, block, shmem, stream)(args...)
// which converts the arguments to the kernel's parameter types (as a call
// would), then runs the whole grid before returning.
#pragma once
#include <type_traits>
#include <cstddef>
#include <tuple>
#include <utility>

#include "cudacpu/types.h"

namespace cudacpu::detail {

struct LaunchShape {
  dim3 grid, block;
  std::size_t dynamic_shared = 0;
  const void* kernel = nullptr;  // identifies the kernel for its recorded attributes
};

// Validates the shape (a bad one is recorded as the last error, exactly as
// CUDA does) and runs every block; `body(args)` is one GPU thread's work.
void run_grid(const LaunchShape& shape, void (*body)(void*), void* args);

// Base of the running block's dynamic shared memory (`extern __shared__`).
void* dynamic_shared_base();

// Storage of one `__shared__` variable of one resident block: a guarded
// allocation outside device memory (zeroed, with red zones), named
// "__shared__ NAME", so that an overrun is reported like one of A, B or C.
// Freed by release_shared_array.
void* shared_array_storage(std::size_t bytes, std::size_t align, const char* name, const char* element_type,
                           std::size_t element_size);
void release_shared_array(void* p);

// The resident block whose thread runs (block_scheduler.cpp): which copy of
// each `__shared__` variable it sees.
extern __thread int resident_slot;
constexpr int kMaxResidentBlocks = 4;  // FiberPool::kMaxResident

// Storage of a `__device__` variable at file scope: device memory, zeroed,
// named for reports. Never freed.
void* device_variable_storage(std::size_t bytes, std::size_t align, const char* name, const char* element_type,
                              std::size_t element_size);

template <typename E>
constexpr const char* element_name() {
  return std::is_same_v<E, float> ? "float" : std::is_same_v<E, double> ? "double" : std::is_same_v<E, int> ? "int"
                                                                                                             : "";
}

// What the rewriter turns `__shared__ T name...;` inside a function into:
// one per worker thread (thread_local) holding a copy for each resident
// block, each made on its first use, so each block a worker runs finds its
// own there, as on a GPU. T is the variable's type (an array type for an
// array), Align its declared alignment.
template <typename T, std::size_t Align = alignof(T)>
class SharedArray {
 public:
  SharedArray() = default;
  SharedArray(const SharedArray&) = delete;
  SharedArray& operator=(const SharedArray&) = delete;
  ~SharedArray() {
    for (T* p : p_)
      if (p != nullptr) release_shared_array(p);
  }
  T& get(const char* name) {
    T*& p = p_[resident_slot];
    if (p == nullptr) {
      using E = std::remove_cv_t<std::remove_all_extents_t<T>>;
      constexpr bool named = element_name<E>()[0] != '\0';
      constexpr std::size_t align = Align > alignof(T) ? Align : alignof(T);
      p = static_cast<T*>(
          shared_array_storage(sizeof(T), align, name, element_name<E>(), named ? sizeof(E) : 0));
    }
    return *p;
  }

 private:
  T* p_[kMaxResidentBlocks] = {};
};

// What the rewriter turns `__device__ T name...;` at file scope into: the
// variable lives in device memory, where kernels' accesses are global ones
// (counted, watched for races between blocks) and host code cannot reach it.
template <typename T>
class DeviceVariable {
 public:
  explicit DeviceVariable(const char* name) {
    using E = std::remove_cv_t<std::remove_all_extents_t<T>>;
    constexpr bool named = element_name<E>()[0] != '\0';
    p_ = static_cast<T*>(device_variable_storage(sizeof(T), alignof(T), name, element_name<E>(), named ? sizeof(E) : 0));
  }
  DeviceVariable(const DeviceVariable&) = delete;
  DeviceVariable& operator=(const DeviceVariable&) = delete;
  T& get() { return *p_; }

 private:
  T* p_ = nullptr;
};

}  // namespace cudacpu::detail

namespace cudacpu {

template <typename... P>
class KernelLaunch {
 public:
  KernelLaunch(void (*kernel)(P...), detail::LaunchShape shape) : kernel_(kernel), shape_(shape) {}

  template <typename... A>
  void operator()(A&&... args) const {
    static_assert(sizeof...(A) == sizeof...(P), "kernel launched with the wrong number of arguments");
    // One converted copy of the arguments; each GPU thread gets its own copy
    // of the parameters when the kernel is called, as on a GPU.
    Bound bound{kernel_, std::tuple<P...>(std::forward<A>(args)...)};
    detail::run_grid(shape_, &Bound::run, &bound);
  }

 private:
  struct Bound {
    void (*kernel)(P...);
    std::tuple<P...> params;
    static void run(void* self) {
      const Bound* b = static_cast<const Bound*>(self);
      std::apply(b->kernel, b->params);
    }
  };
  void (*kernel_)(P...);
  detail::LaunchShape shape_;
};

// Two to four configuration arguments, as inside <<< >>>. The stream is
// accepted and ignored: everything runs synchronously, in launch order.
template <typename... P>
KernelLaunch<P...> launch(void (*kernel)(P...), dim3 grid, dim3 block, std::size_t dynamic_shared = 0,
                          cudaStream_t stream = nullptr) {
  (void)stream;
  detail::LaunchShape shape;
  shape.grid = grid;
  shape.block = block;
  shape.dynamic_shared = dynamic_shared;
  shape.kernel = reinterpret_cast<const void*>(kernel);
  return KernelLaunch<P...>(kernel, shape);
}

}  // namespace cudacpu
