// What is wrong with a submission's files (services/submission.h finds it),
// as the report, the gradebook and the TA's terminal say it.
#pragma once
#include <string>

#include "services/submission.h"

namespace sg {

// One line; "" for a problem of kind None.
std::string submission_problem_text(const SubmissionProblem& p);

}  // namespace sg
