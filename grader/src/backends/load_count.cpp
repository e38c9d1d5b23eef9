#include "backends/load_count.h"

#include <cstdio>

namespace sg {

CountedLaunch count_launch_twice(LoadWindows& windows, const std::function<CaseOutcome()>& launch) {
  CountedLaunch c;
  std::optional<double> counts[2];
  for (int i = 0; i < 2; ++i) {
    std::string why;
    std::unique_ptr<LoadWindow> window = windows.open(why);
    CaseOutcome out = launch();
    const bool completed = out.kind == CaseOutcome::Kind::Ok;
    if (i == 0) c.out = std::move(out);
    if (window) counts[i] = window->close(why);
    if (!completed) {
      if (i == 1) c.counter_failed = "the launch, made again to be counted a second time, did not complete";
      return c;
    }
    if (!counts[i]) {
      c.counter_failed = why;
      return c;
    }
  }
  if (*counts[0] != *counts[1]) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "two counts of the same launch differed (%.0f and %.0f): other work shared the device",
                  *counts[0], *counts[1]);
    c.counter_failed = buf;
    return c;
  }
  c.loads = counts[0];
  return c;
}

}  // namespace sg
