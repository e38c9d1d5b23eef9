#include "launch_shape.h"

#include <cstdint>
#include <cstdio>

namespace cudacpu::detail {
namespace {

std::string dims(const char* what, dim3 d) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%s (%u, %u, %u)", what, d.x, d.y, d.z);
  return buf;
}

}  // namespace

std::string shape_problem(const LaunchShape& s, std::size_t max_dynamic, cudaError_t& err) {
  const dim3 g = s.grid, b = s.block;
  err = cudaErrorInvalidConfiguration;
  if (b.x == 0 || b.y == 0 || b.z == 0) return dims("block", b) + " has a zero dimension";
  if (g.x == 0 || g.y == 0 || g.z == 0) return dims("grid", g) + " has a zero dimension";
  if (b.x > 1024 || b.y > 1024 || b.z > 64) return dims("block", b) + " exceeds the limits (1024, 1024, 64)";
  const std::uint64_t threads = std::uint64_t(b.x) * b.y * b.z;
  if (threads > 1024)
    return dims("block", b) + " has " + std::to_string(threads) + " threads; at most 1024 are allowed";
  if (g.x > 2147483647u || g.y > 65535 || g.z > 65535)
    return dims("grid", g) + " exceeds the limits (2147483647, 65535, 65535)";
  if (s.dynamic_shared > max_dynamic) {
    err = cudaErrorInvalidValue;
    return "the launch asks for " + std::to_string(s.dynamic_shared) + " bytes of dynamic shared memory; at most " +
           std::to_string(max_dynamic) + " are allowed";
  }
  return "";
}

}  // namespace cudacpu::detail
