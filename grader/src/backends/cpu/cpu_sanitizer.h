// The sanitizer check on the CPU backend, standing in for compute-sanitizer:
// "memcheck" is the CPU layer's red zones (an out-of-bounds access near A, B
// or C is recorded and named in the runner's reply) and its race check
// between blocks (two blocks storing to one element of C in a launch),
// "racecheck" runs the case in a second runner whose blocks run their
// threads in the opposite order (the request's `ascending`). A kernel free of shared-memory races computes
// the same result either way; a missing __syncthreads does not. The judge
// compares the two results itself: the runners only send C back.
#pragma once
#include <cstdint>

#include "services/runner_session.h"
#include "model/result.h"
#include "model/suite.h"

namespace sg {

// The limit of each of the check's two runs: the check's timeout_s (sized
// for compute-sanitizer's whole run over many shapes on a GPU), but no more
// than a correctness case of the check's shape gets on this backend, which
// is extended while blocks keep completing: a kernel that hangs (in its
// launch or before it) costs that, not the check's 120 s, twice.
double cpu_sanitizer_run_limit(const Check& c);

// Fills t's status, verdict, detail and diagnoses (not its score). `runner`
// is the configuration of the grading's runners; each run gets its own log
// folder under `log_dir`.
void cpu_sanitizer_check(const Check& c, const RunnerConfig& runner, const std::string& log_dir,
                         std::uint64_t seed, TestResult& t);

}  // namespace sg
