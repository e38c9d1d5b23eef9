// `grade batch`: grades a class by running one `grade` process per submission
// (README.md in this folder describes the whole flow).
#pragma once
#include <cstdio>
#include <string>

#include "batch/batch_options.h"

namespace sg::batch {

// Grades (or, with --slurm, plans; with --merge, merges) as the options say.
// `grade_program` is the grader binary run per submission. Progress and
// messages go to `log`. Returns the exit status: 0 done, 2 refused or bad
// usage, 3 internal error.
int run_batch(const BatchOptions& opts, const std::string& grade_program, std::FILE* log);

}  // namespace sg::batch
