// Building the TestResult of one case from what the runner and the
// comparison produced: verdict, feedback text, diagnoses, points.
#pragma once
#include <string>

#include "compare/hypotheses.h"
#include "services/runner_session.h"
#include "model/result.h"
#include "model/suite.h"

namespace sg {

// A test that did not run, with the reason (keeps its max_score).
void mark_not_run(TestResult& t, const std::string& why, Status status = Status::Failed);

// The runner failed on this case (crash, timeout, CUDA error...).
void record_runner_failure(TestResult& t, const CaseOutcome& outcome);

// Fills status, score, verdict and detail from a comparison. `data` (the
// case's inputs and output) lets the diagnoses test hypotheses against it.
// True where a bug's prediction reproduced the output (compare/diagnosis.h).
bool record_comparison(TestResult& t, const Case& c, Comparison cmp, bool differs_between_runs,
                       const CaseData* data = nullptr);

// The runner reported an out-of-bounds access the kernel went on from (the
// CPU backend's red zones): the case keeps the verdict of its values, as on
// a GPU, and the feedback names the access.
void note_out_of_bounds(TestResult& t, const std::string& access);

// The runner reported stores that raced with another block's in the same
// launch (the CPU backend's race check between blocks): the case keeps the
// verdict of its values, the feedback names the first, and the sanitizer
// check takes points for it.
void note_block_race(TestResult& t, const std::string& first, unsigned long long stores);

// Text for people: counts, first wrong elements, the tile map.
std::string describe_comparison(const Comparison& cmp, int m, int n);

}  // namespace sg
