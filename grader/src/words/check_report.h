// Sentences of the scored checks (pipeline/checks.cpp decides, these say):
// the structure check's measured data reuse (or why it was not measured) and
// the register-tiling feedback.
#pragma once
#include <optional>
#include <string>

#include "model/result.h"
#include "model/suite.h"
#include "static_checks/static_checks.h"

namespace sg {

// What the compiled code shows: "mysgemm uses shared memory and a barrier", ...
std::string static_verdict(const StructureReport& s);

// The structure check's verdict on a measured reuse `factor`, beside the
// tiled reference's `reference` (computed from its tiles); where it failed,
// `needed` is the least that passes (unset: it passed).
std::string reuse_verdict(double factor, double reference, std::optional<double> needed);

// How the reuse was measured: `counter` counted `loads` warp-level global
// loads in `kernels` launches (0: in one call of basicSgemm) at the check's
// shape, where a one-thread-per-element kernel issues `naive_loads`; then the
// compiled code's structure.
std::string reuse_detail(ReuseSource counter, double loads, int kernels, const Check& c, double naive_loads,
                         const StructureReport& s);

// The register-tiling feedback on the measured reuse `factor`: `seen` when it
// is past what a tile of one element of C per thread allows (`bound`).
std::string register_tiling_verdict(bool seen, double factor, double bound);

// Why the reuse was not measured: the kernel did not complete at the check's
// shape (`cause`, the run's failure as a case's verdict says it); or it
// completed and nothing was counted (`no_launch`: basicSgemm launched no kernel).
std::string reuse_not_completed(const std::string& cause);
std::string reuse_nothing_counted(bool no_launch);

}  // namespace sg
