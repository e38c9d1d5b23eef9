#pragma once
#include <chrono>
#include <functional>
#include <string>

#include "backends/backend.h"
#include "words/gpu_backend_lines.h"

namespace sg {

// Holds a flock on the shared GPU's lock file while it lives. Several grade
// processes share a GPU: untimed work (a correctness case, a sanitizer run)
// holds it shared, timed work exclusive, so nothing runs beside a timing.
// Shared holds are short (one case, one sanitizer run), exclusive ones cover
// the timed launches only, and a waiting exclusive request goes
// first: requests pass one at a time through a second lock file (the
// turnstile), which an exclusive request keeps until it has the GPU, so new
// shared requests queue behind it instead of starving it.
// An empty path locks nothing (a GPU of one's own, the CPU backend).
class DeviceLock {
 public:
  DeviceLock(const std::string& path, bool exclusive);
  ~DeviceLock();
  DeviceLock(const DeviceLock&) = delete;
  DeviceLock& operator=(const DeviceLock&) = delete;

 private:
  int fd_ = -1;
};

// What a hold is of, for the log (words/gpu_backend_lines.h says it): when
// it was taken (for a shared hold only when the wait was noticeable) and,
// for an exclusive one, when it was given back.
constexpr HoldKind kGpuShared = HoldKind::GpuShared;
constexpr HoldKind kGpuExclusive = HoldKind::GpuExclusive;
constexpr HoldKind kProfiler = HoldKind::Profiler;

// A hold on the GPU's lock (a hold on nothing where no lock is shared). With
// `held_s` it adds how long it was held there, lock or not: the figure bounds
// a batch's throughput either way.
// With `log`, the grade log says how long the lock was waited for (when that
// was noticeable) and, for an exclusive hold or a long shared one, how long it
// was held: the figures that show where a batch's time goes (an exclusive
// request waits for every shared hold already taken).
class LockHold final : public DeviceHold {
 public:
  using Log = std::function<void(const std::string&)>;
  LockHold(const std::string& path, bool exclusive, double* held_s = nullptr, Log log = nullptr,
           HoldKind kind = kGpuShared);
  ~LockHold() override;

 private:
  static constexpr double kNoticeableWaitS = 0.05;
  static constexpr double kLongSharedHoldS = 0.25;
  using Clock = std::chrono::steady_clock;
  Clock::time_point asked_;
  DeviceLock lock_;
  double* held_s_;
  Clock::time_point since_;  // after the lock was taken: waiting is not holding
  bool exclusive_;
  HoldKind kind_;
  Log log_;
};

}  // namespace sg
