#include "words/timing_log.h"

#include <cstdio>

namespace sg {
namespace {

// Why a take of samples is taken again (measure/timing.h, kDisturbedSpread).
const char* const kDisturbedWhy =
    "most of its requests were delayed, or the reference ran slower between its samples than it can";

std::string fixed(const char* fmt, double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

}  // namespace

std::string take_log_line(const TakeNote& note) {
  const bool student = note.side == TakeSide::Student;
  if (note.done)
    return "take " + std::to_string(note.take) + " of " + note.case_name + (student ? " (student)" : " (baselines)") +
           ": requests' quartiles " + fixed("%.1f", 100 * note.spread) + "% apart, reference launches " +
           fixed("%.1f", 100 * note.slowdown) + "% slower than its fastest pace";
  std::string line = (student ? "timing " : "timing the baselines of ") + note.case_name;
  if (note.take <= 1) return line;
  if (note.pause_s <= 0) return line + " again: " + kDisturbedWhy;
  return line + " again after a pause of " + fixed("%.2f", note.pause_s) + " s: " + kDisturbedWhy;
}

std::string shared_holds_line(int holds, double wait_s) {
  return "shared GPU: " + std::to_string(holds) + " untimed holds waited " + fixed("%.2f", wait_s) + " s in all";
}

}  // namespace sg
