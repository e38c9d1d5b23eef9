#include "services/limits.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "process/process.h"

namespace sg {
namespace {
// The CPU backend's rate for a case's limit, about what a naive kernel does on the CPU layer of a
// 2-core machine (grader/bench/RESULTS.md); a slower run, or one on a busy machine, gets
// extensions while its blocks complete (services/reply_wait.h).
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

std::string grader_resource_failure(const std::string& build_log) {
  std::size_t start = 0;
  while (start < build_log.size()) {
    std::size_t end = build_log.find('\n', start);
    if (end == std::string::npos) end = build_log.size();
    const std::string line = build_log.substr(start, end - start);
    start = end + 1;
    if (line.find("#error") != std::string::npos || line.find("#warning") != std::string::npos) continue;
    for (const char* words : {"No space left on device", "Disk quota exceeded", "Too many open files"})
      if (line.find(words) != std::string::npos) return words;
    // A compiler the grader could not start for its own descriptor limit.
    if (line.find("setting up fds 0-4 (dup2): ") != std::string::npos) return "out of descriptors";
  }
  return "";
}

void throw_if_machine_failure(const std::string& what, const std::string& spawn_error) {
  if (const std::string words = machine_resource_error(spawn_error); !words.empty())
    throw MachineFailure(what + " could not be started: " + words, spawn_error);
}

void throw_if_disk_full(const QuotaPlace& place, const std::string& what) {
  if (!place.quota.set() || place.mounted) return;
  if (const std::string full = file_system_full(place.dir); !full.empty())
    throw MachineFailure(what + " while the disk under its " + place.name + " was full (" + full + ")");
}

GradingQuotas grading_quotas(const Suite& s, bool timed) {
  long long held = 0, largest_take = 0, largest_output = 0, outputs = 0;
  if (timed)
    for (const Case& c : s.cases) {
      if (!c.has_performance) continue;
      const long long output = static_cast<long long>(sizeof(float)) * c.m * c.n;
      const long long take = output * std::max(1, c.performance.samples);
      held += take;
      largest_take = std::max(largest_take, take);
      largest_output = std::max(largest_output, output);
      outputs += 2 * std::max(1, c.performance.samples);
    }
  GradingQuotas q;
  q.work = {kWorkQuotaBytes, kQuotaFiles};
  q.scratch = {kScratchMarginBytes + held + largest_take, kQuotaFiles + outputs};
  q.tool_scratch = {kScratchMarginBytes, kQuotaFiles};
  q.baseline_scratch = {kScratchMarginBytes + largest_output, kQuotaFiles};
  return q;
}

}  // namespace sg
