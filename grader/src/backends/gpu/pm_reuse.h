// The structure check's count from the GPU's performance monitors
// (pm_loads.h): a window around one checked launch, held alone.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "backends/backend.h"

namespace sg {

// Windows on the device's load counter (PM sampling) for one counted launch:
// the counter is enabled at the first window and disabled with the object
// (while enabled it keeps every other profiler, ncu included, off the device).
std::unique_ptr<LoadWindows> pm_windows(const std::function<void(const std::string&)>& log);

// What a count of its own needs from the backend.
struct PmReuseRun {
  std::function<std::unique_ptr<DeviceHold>()> exclusive_hold;
  std::function<std::unique_ptr<LoadWindows>()> windows;
  double time_limit_s = 0;  // a correctness case's of the check's shape
  std::function<void(const std::string&)> log;
};

// The reuse measured from the counters, or nullopt and why when the counter
// itself failed (then ncu counts instead).
std::optional<ReuseMeasurement> reuse_from_counters(const Check& c, const SanitizerContext& ctx, const PmReuseRun& run,
                                                    std::string& why);

}  // namespace sg
