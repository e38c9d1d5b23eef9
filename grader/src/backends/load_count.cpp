#include "backends/load_count.h"

#include "words/check_report.h"

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
      if (i == 1) c.counter_failed = recount_not_completed();
      return c;
    }
    if (!counts[i]) {
      c.counter_failed = why;
      return c;
    }
  }
  if (*counts[0] != *counts[1]) {
    c.counter_failed = counts_differed(*counts[0], *counts[1]);
    return c;
  }
  c.loads = counts[0];
  return c;
}

}  // namespace sg
