// Counting one checked launch through windows of a LoadWindows (backend.h)
// that see the whole device: counted twice, the two counts must agree exactly.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "backends/backend.h"

namespace sg {

struct CountedLaunch {
  CaseOutcome out;              // the first launch's outcome: the case's verdict
  std::optional<double> loads;  // both launches completed and their counts agree
  std::string counter_failed;   // why there is no count although the first launch completed
};

// Opens a window, makes the launch, closes the window; then the same again.
// A device counter counts every process's work, so counts that differ mean
// other work shared a window (a process outside the GPU lock, a neighbour's
// background kernels). The launch is made even where no window opens: it is
// the case's. No second launch after a first that did not complete.
CountedLaunch count_launch_twice(LoadWindows& windows, const std::function<CaseOutcome()>& launch);

}  // namespace sg
