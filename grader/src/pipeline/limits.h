// Time limits of a grading, in one place: what one case may take, and how
// long a whole grading may take before its watchdog (and a batch) gives up.
#pragma once

#include "model/result.h"
#include "model/suite.h"

namespace sg {

// Wall time one run of a case may take: the suite's timeout_s is a GPU time;
// the CPU backend adds time in proportion to the case's work.
double case_time_limit(const Case& c, BackendKind backend);

// The one watchdog rule, used by grade itself and by grade batch. A grading
// may take its builds and start-up (600 s), every case twice (a failing case
// runs again; the CPU backend's limit, the larger one) and every check;
// under grade batch on a GPU (`shares_gpu`) four times that, since waiting
// for the shared GPU lock counts too. Past it grade stops itself (exit 3).
// SG_GRADE_WATCHDOG_S, when set to seconds > 0, replaces the rule (tests).
double grading_watchdog_s(const Suite& s, bool shares_gpu);

// How long grade batch lets one grade process run before killing it: its
// own watchdog plus this grace, so the batch acts only when the watchdog failed.
constexpr double kBatchGraceS = 300;
double batch_time_limit_s(const Suite& s, bool shares_gpu);

}  // namespace sg
