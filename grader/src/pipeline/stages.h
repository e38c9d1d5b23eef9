// The stages of a grading, in the order pipeline/grade.cpp runs them. Each
// reads and extends the grading's context; false ends the grading there (its
// result is final: a submission that cannot be graded, a failed build).
// Writing the reports is the caller's (report/writers.h).
#pragma once
#include "pipeline/grading.h"

namespace sg {

struct Stage {
  const char* phase;          // its name in GradeResult::phase_seconds
  bool (*run)(Grading& g);    // false: the grading ends here
};

bool setup_stage(Grading& g);        // setup_stage.cpp: the submission located, the backend chosen, the tests planned
bool build_stage(Grading& g);        // build_stage.cpp: a private copy built; the static checks
bool sanitizer_stage(Grading& g);    // sanitizer_stage.cpp: the sanitizer (timed cases' inputs made beside it; alone: after the timing)
bool correctness_stage(Grading& g);  // correctness_stage.cpp: the correctness cases, the counted one last
bool performance_check_stage(Grading& g);  // performance_stage.cpp: each performance case checked (untimed)
bool timing_stage(Grading& g);             // performance_stage.cpp: all of them timed in one exclusive hold
bool checks_stage(Grading& g);             // checks_stage.cpp: the checks that need the cases' results
// After the last stage: the runners' output kept, every process ended, diagnoses across cases.
void finish_stage(Grading& g);

}  // namespace sg
