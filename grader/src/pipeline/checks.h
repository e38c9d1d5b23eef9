// The suite's whole-submission checks, graded in one place: one scorer a
// check kind, called at the stages its row of kCheckKinds (model/check_kinds.h)
// names, so that a kind the schema accepts and nobody grades does not compile.
#pragma once

#include "backends/backend.h"
#include "model/check_kinds.h"
#include "model/result.h"
#include "model/suite.h"

#include <string>
#include <vector>

namespace sg {

struct CheckContext {
  Backend* backend = nullptr;
  const std::vector<TestResult>* tests = nullptr;  // every test, as graded so far
  const BuildOutput* build = nullptr;
  SanitizerContext sanitizer;
  bool any_case_correct = false;  // known at AfterCases
  // Correctness cases in which the kernel was seen out of bounds (AfterCases;
  // the CPU backend sees every access): memory errors anywhere cost the
  // sanitizer's points, not only on the sanitizer's own shape.
  std::vector<std::string> cases_out_of_bounds;
  // Correctness cases that failed without an output to compare (AfterCases;
  // the runner crashed, hung or refused the launch): the sanitizer's cover of the small cases.
  std::vector<std::string> cases_runner_failed;
  // Correctness cases in which blocks raced (AfterCases; the CPU backend's race check between blocks).
  std::vector<std::string> cases_with_block_races;
};

// Grades the part of check `c` that belongs to `stage` into t (status,
// verdict, detail, diagnoses, score); nothing at a stage its kind's row leaves out.
void run_check(const Check& c, CheckStage stage, const CheckContext& ctx, TestResult& t);

}  // namespace sg
