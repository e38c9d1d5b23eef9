// The emulated device's state and error bookkeeping (see runtime.h).
#include "runtime.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "fault_report.h"

namespace cudacpu::detail {

Runtime& Runtime::get() {
  static Runtime device;
  return device;
}

// Faults in host code (a bad cudaMemcpy) are reported too, so the handlers
// go in with the device, before any kernel runs.
Runtime::Runtime() { install_fault_handlers(); }

cudaError_t Runtime::fail(cudaError_t err, std::string detail) {
  last_ = err;
  detail_ = std::move(detail);
  return err;
}

cudaError_t Runtime::fail_sticky(cudaError_t err, std::string detail) {
  sticky_ = err;
  sticky_seen_ = false;
  detail_ = std::move(detail);
  std::fprintf(stderr, "cudacpu: %s\n", detail_.c_str());
  std::fflush(stderr);
  return err;
}

void Runtime::note_stray_access(const std::string& first) {
  if (stray_first_.empty()) stray_first_ = first;
}

std::string Runtime::take_stray_access() {
  std::string text;
  text.swap(stray_first_);
  return text;
}

cudaError_t Runtime::take_last_error() {
  const cudaError_t err = peek_last_error();
  last_ = cudaSuccess;
  return err;
}

bool Runtime::prepare_slots(int slots, std::size_t dynamic_shared_bytes) {
  if (!pool_) pool_ = std::make_unique<FiberPool>();
  if (slots_.size() < static_cast<std::size_t>(slots)) slots_.resize(static_cast<std::size_t>(slots));
  for (int i = 0; i < slots; ++i) {
    SlotResources& r = slots_[static_cast<std::size_t>(i)];
    // Even a launch without dynamic shared memory gets a (zero-byte, guarded)
    // buffer, so touching `extern __shared__` memory it never asked for is
    // reported as out of bounds rather than as a null pointer.
    if (r.dynamic != nullptr && r.dynamic_bytes == dynamic_shared_bytes) continue;
    if (r.dynamic != nullptr) memory_.release(r.dynamic);
    r.dynamic = memory_.allocate(dynamic_shared_bytes, true, 16);
    r.dynamic_bytes = dynamic_shared_bytes;
    if (r.dynamic == nullptr) return false;
    memory_.name(r.dynamic, "dynamic shared memory", "", 0);
  }
  return true;
}

bool Runtime::in_stack_guard(const void* addr) const { return pool_ && pool_->guard_page_owner(addr) >= 0; }

void Runtime::set_attribute(const void* kernel, cudaFuncAttribute attr, int value) {
  if (attr != cudaFuncAttributeMaxDynamicSharedMemorySize) return;
  for (auto& entry : max_dynamic_)
    if (entry.first == kernel) {
      entry.second = value;
      return;
    }
  max_dynamic_.emplace_back(kernel, value);
}

std::size_t Runtime::max_dynamic_shared(const void* kernel) const {
  for (const auto& entry : max_dynamic_)
    if (entry.first == kernel) return static_cast<std::size_t>(entry.second);
  return 48 << 10;  // the default without an opt-in, as on a GPU
}

void Runtime::die(const char* message) const {
  // write(2) only: this runs in a signal handler.
  const char prefix[] = "cudacpu: ";
  ssize_t ignored = write(2, prefix, sizeof prefix - 1);
  ignored = write(2, message, std::strlen(message));
  ignored = write(2, "\n", 1);
  (void)ignored;
  if (hook_) hook_(message, fatal_facts_, hook_user_);
  _exit(kFaultExitCode);
}

}  // namespace cudacpu::detail
