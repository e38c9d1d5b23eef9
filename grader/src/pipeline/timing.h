// Turning raw timings from the runner into a speedup, and deciding whether
// they can be believed. Pure functions: unit-tested without a GPU.
#pragma once
#include <cstdint>
#include <vector>

#include "model/result.h"

namespace sg {

struct TimingEvidence {
  int m = 0, k = 0, n = 0;
  std::vector<double> student_ms, reference_ms, naive_ms;  // device events, per sample
  std::vector<double> wall_ms;                             // runner host clock around each student sample
  std::vector<std::int64_t> timed_mismatch;                // per student sample, vs the checked output
  double cublas_ms = 0;     // measured by the judge itself
  double judge_wall_ms = 0; // the judge's clock around the whole exchange
};

double median(std::vector<double> v);

// Medians, spread, speedup and GFLOP/s, and the implausibility verdict.
Timing evaluate_timing(const TimingEvidence& e);

// Linear between zero_at and full_at; 0 for implausible timings.
double performance_points(const Performance& p, const Timing& t);

}  // namespace sg
