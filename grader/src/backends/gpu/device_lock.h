#pragma once
#include <string>

namespace sg {

// Holds a flock on the shared GPU's lock file while it lives. Several grade
// processes share a GPU: untimed work (a correctness case, a sanitizer run)
// holds it shared, timed work exclusive, so nothing runs beside a timing.
// Shared holds are short (one case, one sanitizer run), exclusive ones cover
// the timed launches only, and a waiting exclusive request goes
// first: requests pass one at a time through a second lock file (the
// turnstile), which an exclusive request keeps until it has the GPU, so new
// shared requests queue behind it instead of starving it.
// An empty path locks nothing (a GPU of one's own, the CPU backend).
class DeviceLock {
 public:
  DeviceLock(const std::string& path, bool exclusive);
  ~DeviceLock();
  DeviceLock(const DeviceLock&) = delete;
  DeviceLock& operator=(const DeviceLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace sg
