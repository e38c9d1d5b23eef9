// Sentences of the scored checks (pipeline/checks.cpp decides, these say):
// the structure check's measured data reuse (or why it was not measured, as
// the backends' counters and ncu found it) and the register-tiling feedback.
#pragma once
#include <cstddef>
#include <optional>
#include <vector>
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

// Why a device counter gave no count of a launch (backends/load_count.cpp):
// the launch made again for the second count did not complete; the two
// counts (`first`, `second`) differed.
std::string recount_not_completed();
std::string counts_differed(double first, double second);
// The counter's empty window of `window_ms` just before the launch saw `loads` of other work.
std::string device_not_quiet(double loads, long long window_ms);

// Why ncu gave no count (backends/gpu/: gpu_backend.cpp, ncu_reuse.cpp).
// Of the machine: ncu is not installed; the driver lets only administrators
// read counters (`admin_setting`: read from the driver's parameters, else
// ncu's own ERR_NVGPUCTRPERM); another tool held the profiler `tries` times.
std::string ncu_not_installed();
std::string ncu_counters_admin_only(bool admin_setting);
std::string ncu_profiler_busy(int tries);
// ncu could not start (`error`); the kernel did not complete under it at
// m x k x n (`reason`, one of the four below or the quota's sentence, then
// `ncu_said`: ncu's own error lines, ": a; b", or ""); it completed and
// executed no global load.
std::string ncu_not_started(const std::string& error);
std::string ncu_kernel_incomplete(int m, int k, int n, const std::string& reason, const std::string& ncu_said);
std::string ncu_hung_before_launch(double quiet_s);
std::string ncu_went_quiet(double quiet_s);
std::string ncu_launch_failed(const std::string& refused);
std::string ncu_ended_before_launch(const std::string& how);
std::string no_global_load();
// What was wrong with ncu's table: a line not CSV, a second header, a row of
// `fields` columns under a header of `header`, a value of `metric` that is no
// count (`shown`: its start), no table at all, no row of `metric`.
std::string ncu_line_not_csv();
std::string ncu_two_headers();
std::string ncu_row_width(std::size_t fields, std::size_t header);
std::string ncu_value_not_count(const std::string& metric, const std::string& shown);
std::string ncu_no_table();
std::string ncu_no_row(const std::string& metric);

// The scorers' verdicts (pipeline/checks.cpp). The symbol check: not checked
// (no nvcc), passed. The structure check: where no count was possible, checked
// statically from `fallback` (`why` the count failed, `static_found` what the
// static check found); not measured (`why`); and, passed but no correctness
// case passed, `verdict` with the reason it earns nothing put before it.
std::string symbols_not_checked();
std::string symbols_passed();
std::string structure_checked_statically(const std::string& why, const std::string& fallback,
                                         const std::string& static_found);
std::string reuse_not_measured_verdict(const std::string& why);
std::string reuse_not_measured_detail(const std::string& static_found, const std::string& static_detail);
std::string structure_without_a_correct_case(const std::string& verdict);
// The register-tiling check without a measured figure.
std::string register_tiling_not_measured();
// Why the sanitizer check earns nothing although its tools were clean: the
// program failed in the small cases it covers; blocks raced, or accesses went
// out of bounds, in correctness cases; no correctness case passed. Cases
// named as "2 correctness cases (a, b; see their details)".
std::string sanitizer_failed_in_covered_cases(const std::vector<std::string>& cases);
std::string sanitizer_but_block_races(const std::vector<std::string>& cases);
std::string sanitizer_but_out_of_bounds(const std::vector<std::string>& cases);
std::string sanitizer_but_nothing_correct();

}  // namespace sg
