// Building the TestResult of one case from what the runner and the
// comparison produced: verdict, feedback text, diagnoses, points.
#pragma once
#include <string>

#include "judge/runner_session.h"
#include "model/result.h"
#include "model/suite.h"

namespace sg {

TestResult new_test(const Case& c);                // correctness part, not yet run
TestResult new_performance_test(const Case& c);    // performance part, not yet run
TestResult new_check_test(const Check& c);

// A test that did not run, with the reason (keeps its max_score).
void mark_not_run(TestResult& t, const std::string& why, Status status = Status::Failed);

// The runner failed on this case (crash, timeout, CUDA error...).
void record_runner_failure(TestResult& t, const CaseOutcome& outcome);

// Fills status, score, verdict and detail from a comparison.
void record_comparison(TestResult& t, const Case& c, Comparison cmp, bool differs_between_runs);

// Text for people: counts, first wrong elements, the tile map.
std::string describe_comparison(const Comparison& cmp, int m, int n);

}  // namespace sg
