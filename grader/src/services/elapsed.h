// Seconds on the steady clock since t0: the one definition every phase,
// case and tool run of a grading is timed with.
#pragma once
#include <chrono>

namespace sg {

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace sg
