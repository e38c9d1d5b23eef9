// Counting one checked launch through a LoadWindow (backend.h) that sees the
// whole device: counted twice, the two counts must agree exactly.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "backends/backend.h"

namespace sg {

// Opens a window, makes the launch (`launch` returns whether it completed),
// closes the window; then the same again. The loads when both launches
// completed and both counts agree; else nullopt, with `why` saying what
// failed when the counter did (empty when a launch did not complete: the
// caller reads the launch's own outcome). A device counter counts every
// process's work, so counts that differ mean other work shared a window (a
// process outside the GPU lock, a neighbour's background kernels).
std::optional<double> count_launch_twice(const std::function<std::unique_ptr<LoadWindow>(std::string&)>& open_window,
                                         const std::function<bool()>& launch, std::string& why);

}  // namespace sg
