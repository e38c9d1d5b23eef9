// The tests a grading will report, in report order, before anything runs:
// one correctness test per case, a performance test after each case that has
// one, then the whole-submission checks. The grader fills these in; a batch
// uses the same list for a student it could not grade, so every row of a
// class has the same tests.
#pragma once
#include <vector>

#include "model/result.h"
#include "model/suite.h"

namespace sg {

enum class Shown { All, PublicOnly };

std::vector<TestResult> plan_tests(const Suite& suite, Shown shown);

// The name of the performance test of case `case_name`.
std::string performance_test_name(const std::string& case_name);

}  // namespace sg
