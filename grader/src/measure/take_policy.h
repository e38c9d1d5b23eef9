// When a take of timed samples is taken again, and which take is kept: the
// policy of the measurement, apart from the samples it decides about.
#pragma once
#include "measure/timing.h"

namespace sg {

struct TakePolicy {
  int max_takes = kTimingTakes;
  double quiet = kDisturbedSpread;  // a take disturbed this much or less ends the series

  // Before a take after the first: pauses (retake_pause_s) and returns the
  // seconds it paused (0 for the first take, and before the second).
  double pause_before(int take) const;
  // The least disturbed take is kept.
  bool keeps(int take, double disturbance, double kept_disturbance) const {
    return take == 1 || disturbance < kept_disturbance;
  }
  bool ends_after(double disturbance) const { return disturbance <= quiet; }
};

}  // namespace sg
