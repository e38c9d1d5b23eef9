// Turning the judge's own timings into a speedup, and deciding whether they
// can be believed. Pure functions: unit-tested without a GPU.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/result.h"

namespace sg {

// Everything here was measured by the judge: its steady clock around each
// synchronous TimeSeeded request (proto/protocol.h), the student's in the
// student's runner, the others in the baseline runner after it had exited.
struct TimingEvidence {
  int m = 0, k = 0, n = 0;
  std::vector<double> student_ms, reference_ms, naive_ms;  // raw, per sample
  std::vector<double> overhead_ms;  // requests that launch nothing (baseline runner)
  // Timed student samples whose output failed its digest or Freivalds' check,
  // and what the first one got wrong.
  std::int64_t wrong_outputs = 0;
  std::string first_wrong_output;
  double cublas_ms = 0;  // measured by the judge itself
};

double median(std::vector<double> v);

// Medians less the overhead, spread, speedup and GFLOP/s, and the verdict.
Timing evaluate_timing(const TimingEvidence& e);

// Linear between zero_at and full_at; 0 for implausible timings.
double performance_points(const Performance& p, const Timing& t);

}  // namespace sg
