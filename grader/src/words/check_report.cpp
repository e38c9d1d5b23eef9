#include "words/check_report.h"

#include <fmt/format.h>

#include "words/verdict_preambles.h"

namespace sg {
namespace {

std::string fixed1(double v) { return fmt::format("{:.1f}", v); }

std::string count_text(double v) { return fmt::format("{:.0f}", v); }

// Who counted the loads, as the check's detail names it.
std::string counter_name(ReuseSource s) {
  switch (s) {
    case ReuseSource::CpuCount: return "the CPU layer";
    case ReuseSource::PmSampling: return "the GPU's performance monitors";
    case ReuseSource::Ncu:
    case ReuseSource::Static: break;
  }
  return to_string(s);
}

}  // namespace

std::string static_verdict(const StructureReport& s) {
  if (!s.found_kernel) return "mysgemm not found in the compiled code";
  if (s.uses_shared && s.uses_barrier) return "mysgemm uses shared memory and a barrier";
  if (!s.uses_shared && !s.uses_barrier) return "mysgemm uses neither shared memory nor __syncthreads";
  if (!s.uses_shared) return "mysgemm does not use shared memory";
  return "mysgemm never calls __syncthreads";
}

std::string reuse_verdict(double factor, double reference, std::optional<double> needed) {
  std::string verdict = "each value loaded from global memory is used " + fixed1(factor) +
                        " times (the tiled reference: " + count_text(reference) +
                        ", computed from its 16x16 tiles; naive: 1)";
  if (needed) verdict += "; at least " + fixed1(*needed) + " is needed";
  return verdict;
}

std::string reuse_detail(ReuseSource counter, double loads, int kernels, const Check& c, double naive_loads,
                         const StructureReport& s) {
  return counter_name(counter) + " counted " + count_text(loads) + " warp-level global load instructions " +
         (kernels > 0 ? "in " + std::to_string(kernels) + " kernel launch" + (kernels == 1 ? "" : "es")
                      : std::string("in one call of basicSgemm")) +
         " at " + std::to_string(c.m) + "x" + std::to_string(c.k) + "x" + std::to_string(c.n) +
         "; a one-thread-per-element kernel issues 2*m*n*k/32 = " + count_text(naive_loads) +
         " there\nin the compiled code: " + static_verdict(s) + "\n" + s.detail;
}

std::string register_tiling_verdict(bool seen, double factor, double bound) {
  if (seen)
    return "each value loaded from global memory is used " + fixed1(factor) +
           " times, more than a tile of one element of C per thread allows (" + count_text(bound) +
           "): several elements per thread (register tiling) or vector loads";
  return "not seen: each value loaded from global memory is used " + fixed1(factor) +
         " times; computing several elements of C per thread from registers over larger tiles (register tiling) "
         "takes it past " + count_text(bound);
}

std::string reuse_not_completed(const std::string& cause) {
  return "the kernel did not complete at the check's shape: " + cause;
}

std::string reuse_nothing_counted(bool no_launch) {
  return no_launch ? "basicSgemm launched no kernel at the check's shape"
                   : "the kernel loaded nothing from global memory at the check's shape";
}

std::string recount_not_completed() {
  return "the launch, made again to be counted a second time, did not complete";
}

std::string counts_differed(double first, double second) {
  return "two counts of the same launch differed (" + count_text(first) + " and " + count_text(second) +
         "): other work shared the device";
}

std::string device_not_quiet(double loads, long long window_ms) {
  return fmt::format("the device was not quiet before the launch ({} loads of other work in {} ms)",
                     static_cast<long long>(loads), window_ms);
}

std::string ncu_not_installed() { return "ncu (Nsight Compute) is not installed on this machine"; }

std::string ncu_counters_admin_only(bool admin_setting) {
  return admin_setting ? "ncu could not read the GPU's counters (the driver lets only administrators read them: "
                         "RmProfilingAdminOnly=1)"
                       : "ncu could not read the GPU's counters (ERR_NVGPUCTRPERM)";
}

std::string ncu_profiler_busy(int tries) {
  return "ncu could not get the GPU's profiler (another profiling tool held it " + std::to_string(tries) + " times)";
}

std::string ncu_not_started(const std::string& error) { return "ncu could not start: " + error; }

std::string ncu_kernel_incomplete(int m, int k, int n, const std::string& reason, const std::string& ncu_said) {
  return "the kernel did not complete under ncu at " + std::to_string(m) + "x" + std::to_string(k) + "x" +
         std::to_string(n) + " (" + reason + ncu_said + ")";
}

std::string ncu_hung_before_launch(double quiet_s) {
  return "it had not reached its launch after " + std::to_string(static_cast<int>(quiet_s)) + " s: it hung before it";
}

std::string ncu_went_quiet(double quiet_s) {
  return "no progress for " + std::to_string(static_cast<int>(quiet_s)) + " s once it had the profiler: the kernel hung";
}

std::string ncu_launch_failed(const std::string& refused) { return "the launch failed: " + refused; }

std::string ncu_ended_before_launch(const std::string& how) {
  return "it ended before its launch completed: " + how;
}

std::string no_global_load() { return "the kernel executed no global load at all"; }

std::string ncu_line_not_csv() { return "a line of ncu's table is not CSV"; }

std::string ncu_two_headers() { return "ncu's output holds more than one table header"; }

std::string ncu_row_width(std::size_t fields, std::size_t header) {
  return "a row of ncu's table has " + std::to_string(fields) + " columns, the header " + std::to_string(header);
}

std::string ncu_value_not_count(const std::string& metric, const std::string& shown) {
  return "ncu's value of " + metric + " is not a count: '" + shown + "'";
}

std::string ncu_no_table() { return "ncu printed no table"; }

std::string ncu_no_row(const std::string& metric) {
  return "ncu's table has no row of " + metric + " (no kernel was launched?)";
}

namespace {
// "2 correctness cases (a, b; see their details)": the count, then up to four names.
std::string named_cases(const std::vector<std::string>& names, const std::string& noun) {
  std::string out = std::to_string(names.size()) + " " + noun + (names.size() == 1 ? "" : "s") + " (";
  for (std::size_t i = 0; i < names.size() && i < 4; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > 4) out += ", ...";
  return out + "; see their details)";
}
}  // namespace

std::string symbols_not_checked() {
  return "not checked: nvcc is not installed, so there is no object to read the symbols of";
}
std::string symbols_passed() { return "defines only mysgemm and basicSgemm globally and uses no forbidden API"; }

std::string structure_checked_statically(const std::string& why, const std::string& fallback,
                                         const std::string& static_found) {
  return why + ": structure checked from " + fallback + " instead: " + static_found;
}
std::string reuse_not_measured_verdict(const std::string& why) {
  return "the data reuse could not be measured: " + why;
}
std::string reuse_not_measured_detail(const std::string& static_found, const std::string& static_detail) {
  return "in the compiled code: " + static_found + "\n" + static_detail;
}
std::string structure_without_a_correct_case(const std::string& verdict) {
  return "no points: no correctness case passed (the check pays only for a kernel that computes C); " + verdict;
}

std::string register_tiling_not_measured() {
  return not_measured("no structure check counted the kernel's global loads");
}

std::string sanitizer_failed_in_covered_cases(const std::vector<std::string>& cases) {
  return "no points: the program failed in " + named_cases(cases, "small correctness case") +
         ", which the sanitizer covers";
}
std::string sanitizer_but_block_races(const std::vector<std::string>& cases) {
  return "no points: blocks raced in " + named_cases(cases, "correctness case") +
         ", although the sanitizer's own shape was clean";
}
std::string sanitizer_but_out_of_bounds(const std::vector<std::string>& cases) {
  return "no points: out-of-bounds accesses in " + named_cases(cases, "correctness case") +
         ", although the sanitizer's own shape was clean";
}
std::string sanitizer_but_nothing_correct() {
  return "no points: the sanitizer found nothing, but no correctness case passed "
         "(a kernel that does no work is trivially clean)";
}

}  // namespace sg
