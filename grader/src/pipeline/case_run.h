// One correctness case: its checked launch in the student's runner, compared
// with the oracle, recorded in its test. Shared by the correctness stage and
// the untimed half of each performance case.
#pragma once
#include <cstddef>

#include "pipeline/grading.h"

namespace sg {

// Whether this case's launch is the one the structure check counts from
// outside the runner (the GPU's counters).
bool counts_this_case(const Grading& g, const Case& c);

// Runs and records the correctness test g.r.tests[ci]; true when correct.
bool check_case(Grading& g, const Case& c, std::size_t ci, const PreparedCase& prepared);

}  // namespace sg
