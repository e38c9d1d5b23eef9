// The tests a grading will report, in report order, before anything runs:
// one correctness test per case, a performance test after each case that has
// one, then the whole-submission checks. The grader fills these in; a batch
// uses the same list for a student it could not grade, so every row of a
// class has the same tests.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "model/result.h"
#include "model/suite.h"

namespace sg {

enum class Shown { All, PublicOnly };

// `why_not_timed` non-empty (a backend that cannot time): the tests of every
// performance case, its correctness part included, are planned "not measured"
// already: Skipped, worth 0, with that reason; with the suite's without_gpu
// `to_correctness`, their points go to the untimed correctness cases (below).
// Deciding it here, before the build, gives every submission on a backend the
// same maximum, whether it built or not.
std::vector<TestResult> plan_tests(const Suite& suite, Shown shown, const std::string& why_not_timed = "");

// What plan_tests did with the points it set aside (for GradeResult::untimed);
// nullopt where it set nothing aside.
std::optional<UntimedPoints> untimed_points(const Suite& suite, Shown shown, const std::string& why_not_timed);

// Both at once, into a grading's result (r.tests and r.untimed), from one plan.
void plan_into(GradeResult& r, const Suite& suite, Shown shown, const std::string& why_not_timed);

// The maximum of a grading on such a backend: the sum of plan_tests' maxima.
double planned_max(const Suite& suite, Shown shown, const std::string& why_not_timed);

// Why the CPU backend does not time performance cases: its
// Backend::why_not_timed, and what batch mode plans for a student it could
// not grade on that backend.
inline constexpr const char* kCpuNotTimed = "not measured on the CPU backend (performance cases need a GPU)";

// A test planned as not measured on this backend (by plan_tests).
bool set_aside(const TestResult& t);

// The name of the performance test of case `case_name`.
std::string performance_test_name(const std::string& case_name);

}  // namespace sg
