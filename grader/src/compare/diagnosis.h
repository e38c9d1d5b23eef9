// Turns error patterns into likely causes a student can act on (DESIGN.md,
// "Correctness"). Pure functions over comparisons; no I/O.
#pragma once
#include <string>
#include <vector>

#include "model/result.h"

namespace sg {

// What is known about one failing case when diagnosing it.
struct CaseEvidence {
  int m = 0, k = 0, n = 0;
  Comparison first;                  // the checked launch
  const Comparison* repeat = nullptr;  // a second run on the same inputs, if made
  bool outputs_differ_between_runs = false;
};

// Per-case diagnoses, most specific first (may be empty).
std::vector<std::string> diagnose_case(const CaseEvidence& e);

// Diagnoses across all cases of a submission, e.g. "fails only when k is not a
// multiple of 16 -> the last K tile", "fails only when k != n -> leading dimension".
// `failing` and `passing` hold the sizes of failing and passing correctness cases.
struct SizeOutcome { int m, k, n; bool passed; };
std::vector<std::string> diagnose_across(const std::vector<SizeOutcome>& outcomes);

}  // namespace sg
