// Time limits of a grading, in one place: what one case may take, and how
// long a whole grading may take before its watchdog (and a batch) gives up.
#pragma once

#include "model/result.h"
#include "model/suite.h"

namespace sg {

// Wall time one run of a case may take: the suite's timeout_s is a GPU time;
// the CPU backend adds time in proportion to the case's work.
double case_time_limit(const Case& c, BackendKind backend);

}  // namespace sg
