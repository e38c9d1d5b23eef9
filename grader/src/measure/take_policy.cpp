#include "measure/take_policy.h"

#include <chrono>
#include <thread>

namespace sg {

double TakePolicy::pause_before(int take) const {
  if (take <= 1) return 0;
  const double pause = retake_pause_s(take);
  if (pause > 0) std::this_thread::sleep_for(std::chrono::duration<double>(pause));
  return pause;
}

}  // namespace sg
