// The structure check's own run on the CPU backend, for a suite with no
// correctness case of the check's shape: one checked launch at that shape in
// a fresh runner, through the same request as a case, and its global loads
// as the CPU layer counted them (grader/cudacpu/lib/launch_tracking.h).
#pragma once
#include <cstdint>
#include <string>

#include "backends/backend.h"
#include "model/suite.h"
#include "services/runner_session.h"

namespace sg {

CountedCase count_loads_at(const Check& c, const RunnerConfig& runner, const std::string& log_dir,
                           std::uint64_t seed);

}  // namespace sg
