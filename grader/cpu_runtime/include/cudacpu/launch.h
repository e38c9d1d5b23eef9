// Kernel launches on the CPU backend. The source rewriter turns
//   kern<<<grid, block, shmem, stream>>>(args...)
// into
//   ::cudacpu::launch(kern, grid, block, shmem, stream)(args...)
// which converts the arguments to the kernel's parameter types (as a call
// would), then runs the whole grid before returning.
#pragma once
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
