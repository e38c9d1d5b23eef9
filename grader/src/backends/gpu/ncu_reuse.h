// Data reuse measured on the hardware: Nsight Compute (ncu) counts the
// global-load instructions the submission's kernels execute at one shape,
// and the judge divides the count a one-thread-per-element (naive) kernel
// issues by it. Naive 1, the 16x16 tiled reference 16, register tiling 64:
// decoration (an unused __shared__ array, a lone __syncthreads) changes nothing.
#pragma once
#include <optional>

#include "backends/backend.h"
#include <string>
#include <vector>

namespace sg {

// The metric: warp-level SASS global-load instructions executed, summed over the GPU.
inline constexpr const char* kGlobalLoadMetric = "smsp__sass_inst_executed_op_global_ld.sum";

// naive_global_loads (the figure a count is held to): backends/backend.h.

// What ncu's CSV output held.
struct NcuLoads {
  bool ok = false;
  double loads = 0;      // summed over the profiled kernels
  int kernels = 0;       // rows of the metric
  bool no_permission = false;  // ncu said ERR_NVGPUCTRPERM
  std::string why;       // when !ok: what was wrong with the output
};
// Reads ncu --csv output (the submission's own prints may be mixed in). Only
// one CSV header is accepted, every row under it must have the header's
// columns and a plain non-negative count: anything else (a second header, a
// garbled row, no rows) is "not measured", never a count. Rows the submission
// forges under ncu's header can only add loads, which lowers its own factor.
NcuLoads parse_ncu_loads(const std::string& output, const std::string& metric = kGlobalLoadMetric);

// Whether the driver lets only administrators read performance counters
// (RmProfilingAdminOnly in /proc/driver/nvidia/params); nullopt when unknown.
// Read by the judge, so a submission cannot fake ncu's permission error.
std::optional<bool> counters_admin_only(const std::string& params_path = "/proc/driver/nvidia/params");

// The ncu command line around the runner, the runner's own output
// discarded. The runner is started as for a checked run (no argument); its
// launch is asked for through the protocol (proto Selftest, run_tools'
// gated commands), so ncu's start-up, the runner's CUDA start-up under ncu
// and both endings lie outside the profiler's turn.
std::vector<std::string> ncu_command(const std::string& ncu, const std::string& runner);

// ncu's own "==ERROR==" lines, for the report: why the count is missing ("" when none).
std::string ncu_errors(const std::string& output);

struct ToolRun;
// What ncu's run at check c's shape measured: the count, or why there is none
// (a kernel that did not complete there, or overran its scratch quota (`over`,
// services/disk_quota.h), leaves the static check to stand in).
ReuseMeasurement ncu_reuse_outcome(const Check& c, const ToolRun& run, const std::string& over,
                                   std::optional<bool> admin_only, double quiet_s, double seconds);

}  // namespace sg
