#include "measure/take_policy.h"

#include <chrono>
#include <cstdio>
#include <thread>

namespace sg {
namespace {

// Why a take of samples is taken again (timing.h, kDisturbedSpread).
const char* const kDisturbedWhy =
    "most of its requests were delayed, or the reference ran slower between its samples than it can";

}  // namespace

std::string TakePolicy::pause_before(int take) const {
  if (take <= 1) return "";
  const double pause = retake_pause_s(take);
  if (pause <= 0) return std::string(" again: ") + kDisturbedWhy;
  std::this_thread::sleep_for(std::chrono::duration<double>(pause));
  char buf[64];
  std::snprintf(buf, sizeof buf, " again after a pause of %.2f s: ", pause);
  return buf + std::string(kDisturbedWhy);
}

}  // namespace sg
