#include "words/timing_log.h"

#include <fmt/format.h>

namespace sg {
namespace {

// Why a take of samples is taken again (measure/timing.h, kDisturbedSpread).
const char* const kDisturbedWhy =
    "most of its requests were delayed, or the reference ran slower between its samples than it can";

}  // namespace

std::string take_log_line(const TakeNote& note) {
  const bool student = note.side == TakeSide::Student;
  if (note.done)
    return "take " + std::to_string(note.take) + " of " + note.case_name + (student ? " (student)" : " (baselines)") +
           fmt::format(": requests' quartiles {:.1f}% apart, reference launches {:.1f}% slower than its fastest pace",
                       100 * note.spread, 100 * note.slowdown);
  std::string line = (student ? "timing " : "timing the baselines of ") + note.case_name;
  if (note.take <= 1) return line;
  if (note.pause_s <= 0) return line + " again: " + kDisturbedWhy;
  return line + fmt::format(" again after a pause of {:.2f} s: ", note.pause_s) + kDisturbedWhy;
}

std::string shared_holds_line(int holds, double wait_s) {
  return fmt::format("shared GPU: {} untimed holds waited {:.2f} s in all", holds, wait_s);
}

}  // namespace sg
