// The performance test of one timed case: its points, verdict and detail from
// the evidence the measurement kept (measure/timed_case.h).
#pragma once
#include <string>

#include "measure/timed_case.h"
#include "measure/timing.h"
#include "model/result.h"

namespace sg {

// Scores `p` from timed.evidence (evaluate_timing, performance_points) and
// says how it was measured; a kernel whose timed outputs were wrong, or whose
// timing is implausible, gets no points. Returns the Timing it evaluated.
Timing record_timing(TestResult& p, const TimedCase& timed);

// Why `t` (evaluate_timing's of `e`) cannot be believed, each rule that found
// it in a clause, "; " between them; "" where none did.
std::string implausible_reason(const TimingEvidence& e, const Timing& t);

// What was wrong with a timed output ("" for nothing), and what Freivalds'
// check found ("Freivalds' check passed", or the rows that failed it).
std::string output_fault_text(const OutputFault& f);
std::string freivalds_text(const FreivaldsResult& r);

}  // namespace sg
