#include "words/check_report.h"

#include <cstdio>

namespace sg {
namespace {

std::string fixed1(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string count_text(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

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

}  // namespace sg
