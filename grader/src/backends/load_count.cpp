#include "backends/load_count.h"

#include <cstdio>

namespace sg {

std::optional<double> count_launch_twice(const std::function<std::unique_ptr<LoadWindow>(std::string&)>& open_window,
                                         const std::function<bool()>& launch, std::string& why) {
  std::optional<double> counts[2];
  for (std::optional<double>& count : counts) {
    std::unique_ptr<LoadWindow> window = open_window(why);
    const bool completed = launch();
    if (!window) return std::nullopt;
    count = window->close(why);
    if (!completed) {
      why.clear();
      return std::nullopt;
    }
    if (!count) return std::nullopt;
  }
  if (*counts[0] != *counts[1]) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "two counts of the same launch differed (%.0f and %.0f): other work shared the device",
                  *counts[0], *counts[1]);
    why = buf;
    return std::nullopt;
  }
  return counts[0];
}

}  // namespace sg
