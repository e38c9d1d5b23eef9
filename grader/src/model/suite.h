// The graded suite as plain data: what the YAML loader produces and every
// later stage reads. No behaviour lives here beyond trivial derived values.
#pragma once
#include <string>
#include <vector>

#include "model/check_kinds.h"

namespace sg {

enum class Visibility { Public, Hidden };

// How the judge fills A and B. Each is chosen to expose a different bug class.
enum class Distribution {
  Uniform,   // U(-1, 1): the everyday case
  Positive,  // U(0, 1): no cancellation, errors cannot hide behind signs
  SmallInt,  // integers in [-4, 4]: products and sums are exact in FP32 (when k is small enough), so C must match exactly
  Cancel     // signed values of mixed magnitude whose products largely cancel
};

// Speedup thresholds for a performance case: speedup = t_reference / t_student.
struct Performance {
  double points = 0;      // awarded on top of the correctness points
  double zero_at = 0;     // speedup at or below which the performance points are 0
  double full_at = 1;     // speedup at or above which they are full (linear between)
  int samples = 15;       // timed launches per kernel (median reported)
  int warmups = 3;
};

struct SourceLocation {
  std::string file;
  int line = 0;    // 1-based, 0 when unknown
  int column = 0;  // 1-based
};

struct Case {
  std::string name;
  int m = 0, k = 0, n = 0;  // A is m x k, B is k x n, C is m x n (row-major)
  Distribution inputs = Distribution::Uniform;
  double points = 0;          // correctness points
  Visibility visibility = Visibility::Public;
  double timeout_s = 10;      // wall time allowed for this case in the runner
  double tolerance_factor = 2; // |C - C64| <= factor * gamma_k * (|A||B|)_ij
  bool exact = false;         // must match the oracle bit for bit (SmallInt inputs)
  bool has_performance = false;
  Performance performance;
  SourceLocation where;       // where the case was defined, for messages
};

struct Check {
  std::string name;
  CheckKind kind = CheckKind::Symbols;
  double points = 0;
  Visibility visibility = Visibility::Public;
  // Sanitizer: a shape memcheck always covers (beside the small cases);
  // SharedAndBarrier: the shape the loads are counted at.
  int m = 0, k = 0, n = 0;
  double min_reuse = 8;     // SharedAndBarrier: the data reuse factor that passes
  double timeout_s = 120;
  SourceLocation where;
};

// Whether the sanitizer check's memcheck covers correctness case c (one
// process over the check's shape and every case no larger than 256^3; a
// public check leaves out hidden cases, so that its message never names a
// hidden shape): on a GPU compute-sanitizer runs them, on the CPU backend a
// runner failure in one of them fails the check alike.
inline constexpr double kMemcheckMaxVolume = double(1 << 24);
inline bool memcheck_covers(const Check& check, const Case& c) {
  if (c.visibility == Visibility::Hidden && check.visibility == Visibility::Public) return false;
  return double(c.m) * c.n * c.k <= kMemcheckMaxVolume;
}

// How a grading that cannot time the performance cases (the CPU backend: no
// GPU) counts their points. It sets aside every test of a timed case there
// (model/plan.h); the rule says whether the maximum shrinks or stays.
enum class WithoutGpu {
  NotMeasured,    // their points are left out: the maximum is the GPU's less them
  ToCorrectness,  // they go to the untimed correctness cases, in proportion to their points
  Last = ToCorrectness  // keep equal to the last rule: the suite schema lists rules up to it
};
// The suite YAML's word for each rule, in the enum's order.
inline constexpr const char* kWithoutGpuNames[] = {"not_measured", "to_correctness"};
static_assert(sizeof(kWithoutGpuNames) / sizeof(kWithoutGpuNames[0]) == static_cast<int>(WithoutGpu::Last) + 1,
              "every WithoutGpu rule needs its name in kWithoutGpuNames");

struct Suite {
  std::string path;
  std::string name;
  std::string description;
  std::vector<Case> cases;
  std::vector<Check> checks;
  WithoutGpu without_gpu = WithoutGpu::NotMeasured;

  double max_points() const {
    double total = 0;
    for (const auto& c : cases) total += c.points + (c.has_performance ? c.performance.points : 0);
    for (const auto& c : checks) total += c.points;
    return total;
  }
};

const char* to_string(Visibility v);
const char* to_string(Distribution d);
const char* to_string(WithoutGpu w);

}  // namespace sg
