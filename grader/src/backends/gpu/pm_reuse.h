// The structure check's count from the GPU's performance monitors
// (pm_loads.h): a window around one checked launch, held alone.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "backends/backend.h"

namespace sg {

// A window on the device's load counter (PM sampling), enabled for one
// launch only: while enabled it keeps every other profiler, ncu included,
// off the device. nullptr and why where it cannot open.
std::unique_ptr<LoadWindow> open_pm_window(std::string& why, const std::function<void(const std::string&)>& log);

// What a count of its own needs from the backend.
struct PmReuseRun {
  std::function<std::unique_ptr<DeviceHold>()> exclusive_hold;
  std::function<std::unique_ptr<LoadWindow>(std::string&)> open_window;
  double time_limit_s = 0;  // a correctness case's of the check's shape
  std::function<void(const std::string&)> log;
};

// The reuse measured from the counters, or nullopt and why when the counter
// itself failed (then ncu counts instead).
std::optional<ReuseMeasurement> reuse_from_counters(const Check& c, const SanitizerContext& ctx, const PmReuseRun& run,
                                                    std::string& why);

}  // namespace sg
