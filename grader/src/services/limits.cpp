#include "services/limits.h"

#include <algorithm>
#include <cstdlib>

namespace sg {
namespace {
// The CPU backend's rate for a case's limit, below what a naive kernel does on the CPU layer
// (grader/bench/RESULTS.md); a slower run gets extensions while its blocks complete.
constexpr double kCpuFlopsPerSecondFloor = 1e8;
}  // namespace

double case_time_limit(const Case& c, BackendKind backend) {
  const double flop = 2.0 * c.m * double(c.n) * c.k;
  return c.timeout_s + (backend == BackendKind::Cpu ? flop / kCpuFlopsPerSecondFloor : 0.0);
}

double case_time_limit_after_hang(const Case& c, BackendKind backend) {
  const double flop = 2.0 * c.m * double(c.n) * c.k;
  const double rate = backend == BackendKind::Cpu ? kCpuFlopsPerSecondFloor : 1e9;
  return std::min(case_time_limit(c, backend), 3.0 + flop / rate);
}

double grading_watchdog_s(const Suite& s, bool shares_gpu) {
  if (const char* v = std::getenv("SG_GRADE_WATCHDOG_S")) {
    char* end = nullptr;
    const double t = std::strtod(v, &end);
    if (end != v && t > 0) return t;
  }
  double total = 600 + kSlowGridBudgetS;
  for (const auto& c : s.cases) total += 2 * case_time_limit(c, BackendKind::Cpu);
  for (const auto& c : s.checks) total += c.timeout_s;
  return total * (shares_gpu ? 4 : 1);
}

double batch_time_limit_s(const Suite& s, bool shares_gpu) { return grading_watchdog_s(s, shares_gpu) + kBatchGraceS; }

}  // namespace sg
