#include "pipeline/limits.h"

namespace sg {
namespace {
// A deliberately low rate for the CPU backend's fibers (it runs ~0.4 GFLOP/s on 2 cores).
constexpr double kCpuFlopsPerSecondFloor = 1e8;
}  // namespace

double case_time_limit(const Case& c, BackendKind backend) {
  const double flop = 2.0 * c.m * double(c.n) * c.k;
  return c.timeout_s + (backend == BackendKind::Cpu ? flop / kCpuFlopsPerSecondFloor : 0.0);
}

}  // namespace sg
