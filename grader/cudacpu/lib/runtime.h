// The emulated device: one per process, like the CUDA runtime's context.
// This is the only process-wide state of the layer, and it has to be: the
// CUDA API is a set of free functions over an implicit device, and the fault
// handler must find the allocations and the running thread from a signal.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cudacpu/ext.h"
#include "cudacpu/types.h"
#include "device_memory.h"
#include "fibers.h"
#include "launch_tracking.h"

namespace cudacpu::detail {

class Runtime {
 public:
  // Created on first use by the thread that first calls the API; installs the
  // fault handlers then.
  static Runtime& get();

  // Errors. A sticky error (a kernel that failed while running) is returned
  // by every later call, as on a GPU; others are returned once by
  // cudaGetLastError. Kernels run inside the launch here, but on a GPU a
  // running kernel's failure is first seen by the next synchronising call,
  // not by cudaGetLastError right after the launch: sticky() is that
  // observation, and only after it does cudaGetLastError report the error.
  cudaError_t sticky() {
    if (sticky_ != cudaSuccess) sticky_seen_ = true;
    return sticky_;
  }
  // Records `err` as the last error with a detail message; returns `err`.
  cudaError_t fail(cudaError_t err, std::string detail);
  cudaError_t fail_sticky(cudaError_t err, std::string detail);
  cudaError_t take_last_error();
  cudaError_t peek_last_error() const { return sticky_ != cudaSuccess && sticky_seen_ ? sticky_ : last_; }
  const std::string& detail() const { return detail_; }

  DeviceMemory& memory() { return memory_; }

  // Out-of-bounds accesses that kernels made into red zones and went on
  // from (device_memory.h): the first one's description since the last take.
  void note_stray_access(const std::string& first);
  std::string take_stray_access();

  // The fibers of the resident blocks, and each resident block's dynamic
  // shared memory (guard-paged like device memory). Kept across launches.
  // False when memory ran out.
  bool prepare_slots(int slots, std::size_t dynamic_shared_bytes);
  FiberPool& pool() { return *pool_; }
  void* dynamic_shared(int slot) const { return slots_[static_cast<std::size_t>(slot)].dynamic; }
  // How many blocks are resident at once (at most FiberPool::kMaxResident).
  int resident_blocks() const { return resident_; }

  // The order of each block's threads and the seed of the blocks' turns for
  // the launches to come (cudacpu::set_schedule).
  const Schedule& schedule() const { return schedule_; }
  void set_schedule(const Schedule& s) { schedule_ = s; }
  // What the access hooks found (launch_tracking.h).
  LaunchTracker& tracker() { return tracker_; }
  // The fiber stack guard page that holds `addr`, if any (fault handler: reads only).
  bool in_stack_guard(const void* addr) const;

  void set_attribute(const void* kernel, cudaFuncAttribute attr, int value);
  // Largest dynamic shared memory a launch of `kernel` may ask for.
  std::size_t max_dynamic_shared(const void* kernel) const;

  void set_fatal_hook(FatalHook hook, void* user) { hook_ = hook, hook_user_ = user; }
  // The facts of the fault about to end the process (the fault handler's, also
  // on a worker thread before its jump back), which die() hands the hook.
  void note_fatal_facts(const FaultFacts& facts) { fatal_facts_ = facts; }
  // Whether `data` is a resident block's dynamic shared memory (fault handler: reads only).
  bool is_dynamic_shared(const void* data) const {
    for (const SlotResources& s : slots_)
      if (s.dynamic == data) return true;
    return false;
  }
  // Prints `message` to stderr, runs the hook, exits with kFaultExitCode. Async-signal context.
  [[noreturn]] void die(const char* message) const;

 private:
  Runtime();

  cudaError_t last_ = cudaSuccess;
  cudaError_t sticky_ = cudaSuccess;
  bool sticky_seen_ = false;
  std::string detail_;
  std::string stray_first_;
  DeviceMemory memory_;
  struct SlotResources {
    void* dynamic = nullptr;
    std::size_t dynamic_bytes = 0;
  };
  std::unique_ptr<FiberPool> pool_;
  std::vector<SlotResources> slots_;
  int resident_ = FiberPool::kMaxResident;
  Schedule schedule_;
  LaunchTracker tracker_;
  std::vector<std::pair<const void*, int>> max_dynamic_;  // per-kernel opt-in limits
  FatalHook hook_ = nullptr;
  void* hook_user_ = nullptr;
  FaultFacts fatal_facts_;
};

}  // namespace cudacpu::detail
