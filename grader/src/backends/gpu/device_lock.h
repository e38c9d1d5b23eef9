#pragma once
#include <chrono>
#include <functional>
#include <string>

#include "backends/backend.h"
#include "process/fd.h"
#include "words/gpu_backend_lines.h"

namespace sg {

// How a hold takes the shared GPU's lock.
// - Shared: untimed work of a few launches (a correctness case, a check):
//   beside other shared holds, never beside an exclusive one.
// - SharedLong: untimed work that holds the GPU for long while using little
//   of it (a sanitizer's or ncu's instrumented launches): the same, and an
//   exclusive request waiting for it lets Shared requests pass meanwhile.
// - Exclusive: the timed launches, with nothing beside them.
enum class LockMode { Shared, SharedLong, Exclusive };

// Holds flocks on the shared GPU's lock files while it lives. Several grade
// processes share a GPU. A waiting exclusive request goes before later
// requests: they pass one at a time through a turnstile (a second lock file),
// which the exclusive request keeps until it has the GPU, so later shared
// requests queue behind it instead of starving it.
// Long shared holds and exclusive requests meet first at a gate of their own
// (`path`.long, with its own turnstile), which an exclusive request passes
// before it enters the GPU's turnstile: while it waits for a long shared hold
// to end (a sanitizer run of several seconds that uses the GPU a little),
// the short shared holds of other gradings still run, instead of every
// grading on the GPU waiting with it. A long shared request that comes after
// a waiting exclusive one still goes after it.
// An empty path locks nothing (a GPU of one's own, the CPU backend).
class DeviceLock {
 public:
  DeviceLock(const std::string& path, LockMode mode);
  ~DeviceLock();
  DeviceLock(const DeviceLock&) = delete;
  DeviceLock& operator=(const DeviceLock&) = delete;

 private:
  Fd fd_;
  Fd gate_;  // a long shared hold's place at the gate, kept while it holds
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
  LockHold(const std::string& path, LockMode mode, double* held_s = nullptr, Log log = nullptr,
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
