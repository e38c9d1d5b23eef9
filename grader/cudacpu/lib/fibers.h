// Fibers: the GPU threads of the resident blocks, each with its own stack,
// switched at barriers, at exit and when a thread gives way to another block. Two ways to switch: a hand-written x86-64
// switch (a few nanoseconds; a big grid switches tens of millions of times)
// and ucontext as the portable fallback (one syscall per switch). ucontext is
// also used where the process runs with a hardware shadow stack, which the
// hand-written switch would violate, or when CUDACPU_FIBERS=ucontext.
#pragma once
#include <ucontext.h>

#include <cstddef>
#include <memory>

#include "cudacpu/launch.h"
#include "cudacpu/types.h"
#include "launch_tracking.h"

#if defined(__x86_64__)
// fibers.cpp: saves callee-saved registers, stores the stack pointer in
// *save_sp, loads load_sp and returns into the other context.
extern "C" void cudacpu_switch_context(void** save_sp, void* load_sp);
#endif

namespace cudacpu::detail {

// The built-in variables of one GPU thread.
struct ThreadContext {
  uint3 thread_idx;
  uint3 block_idx;
  dim3 block_dim;
  dim3 grid_dim;
};

// The GPU thread that is running right now (null outside kernels); read by the fault handler.
extern __thread const ThreadContext* current_thread;

// The fields a switch touches come first and share one cache line: the
// scheduler passes through every fiber of a block at each barrier.
struct alignas(64) Fiber {
  void* sp = nullptr;          // saved stack pointer (x86-64 switch)
  const char* barrier_file = nullptr;  // where it waits, when not exited
  int barrier_line = 0;
  bool exited = false;
  ThreadContext thread{};      // what threadIdx and friends read
  char* stack = nullptr;       // lowest usable byte; a guard page lies below it
  std::size_t stack_bytes = 0;
  ThreadTracking tracking;     // what the access hooks keep for this thread
};

class FiberPool {
 public:
  static constexpr int kMaxResident = kMaxResidentBlocks;  // blocks resident at once (block_scheduler.cpp)
  static constexpr int kMaxFibers = 1024 * kMaxResident;  // CUDA's limit on threads per block, per block
  static constexpr std::size_t kStackBytes = 256 << 10;

  FiberPool();
  ~FiberPool();
  FiberPool(const FiberPool&) = delete;
  FiberPool& operator=(const FiberPool&) = delete;

  // Makes sure fibers [0, n) have stacks; false when memory ran out.
  bool reserve(int n);
  Fiber& fiber(int i) { return fibers_[i]; }
  // Arranges for fiber i to start in `entry` when next switched to (its old state is dropped).
  void restart(int i, void (*entry)());
  // From the scheduler: run fiber i; returns when some fiber switches back to the scheduler.
  void resume(int i) { jump(&scheduler_sp_, &scheduler_uc_, i); }
  // From fiber `from`: continue in fiber `to` (a fresh or suspended one).
  // Inline, as it runs at every barrier of every thread.
  void pass(int from, int to) {
#if defined(__x86_64__)
    if (!use_ucontext_) {
      cudacpu_switch_context(&fibers_[from].sp, fibers_[to].sp);
      return;
    }
#endif
    swapcontext(&contexts_[from], &contexts_[to]);
  }
  // From fiber `from`: give control back to the scheduler.
  void suspend(int from);
  // The stack guard page hit by `addr`, as a fiber index, or -1.
  int guard_page_owner(const void* addr) const;

 private:
  void jump(void** save_sp, ucontext_t* save_uc, int to);

  std::unique_ptr<Fiber[]> fibers_;
  std::unique_ptr<ucontext_t[]> contexts_;  // ucontext switch only
  int stacks_ = 0;          // fibers [0, stacks_) have a stack
  std::size_t page_ = 4096;
  bool use_ucontext_ = false;
  void* scheduler_sp_ = nullptr;
  ucontext_t scheduler_uc_;
};

}  // namespace cudacpu::detail
