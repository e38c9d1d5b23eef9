// The result batch mode stands in for a grading that produced none, so the
// class outputs still list every student and every test.
#pragma once
#include <string>

#include "model/result.h"
#include "model/suite.h"

namespace sg::batch {

// A result for a submission whose grade process produced no usable
// grade-result.json (timed out, crashed): every test of the suite (when given) not
// run with `why`, score 0, the given state ("timeout", "internal error", ...).
// Without a suite the result has one test "grading" worth `max_when_no_suite`.
GradeResult unfinished_result(const Suite* suite, bool public_only, const std::string& student,
                              const std::string& submission, std::optional<BackendKind> backend,
                              GradeState state, const std::string& why, double max_when_no_suite = 0);

}  // namespace sg::batch
