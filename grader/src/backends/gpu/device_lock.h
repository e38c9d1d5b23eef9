#pragma once
#include <chrono>
#include <functional>
#include <string>

#include "backends/backend.h"

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

// What the log says of a hold: "<taken> after waiting X s" (for a shared
// hold only when noticeable) and, for an exclusive one, "<given back> after X s".
struct HoldWords {
  const char* taken;
  const char* given_back;
};
constexpr HoldWords kGpuShared{"has the GPU shared", "gives the GPU back"};
constexpr HoldWords kGpuExclusive{"has the GPU to itself", "gives the GPU back"};
constexpr HoldWords kProfiler{"ncu has the profiler", "ncu gives the profiler back"};

// A hold on the GPU's lock (a hold on nothing where no lock is shared). With
// `held_s` it adds how long it was held there, lock or not: the figure bounds
// a batch's throughput either way.
// With `log`, the grade log says how long the lock was waited for (when that
// was noticeable) and, for an exclusive hold, how long it was held: the
// figures that show where a batch's time goes.
class LockHold final : public DeviceHold {
 public:
  using Log = std::function<void(const std::string&)>;
  LockHold(const std::string& path, bool exclusive, double* held_s = nullptr, Log log = nullptr,
           HoldWords words = kGpuShared);
  ~LockHold() override;

 private:
  static constexpr double kNoticeableWaitS = 0.05;
  using Clock = std::chrono::steady_clock;
  Clock::time_point asked_;
  DeviceLock lock_;
  double* held_s_;
  Clock::time_point since_;  // after the lock was taken: waiting is not holding
  bool exclusive_;
  HoldWords words_;
  Log log_;
};

}  // namespace sg
