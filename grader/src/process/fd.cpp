#include "process/fd.h"

#include <poll.h>

#include <cerrno>
#include <chrono>

namespace sg {

bool wait_fd_readable(int fd, int timeout_ms) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms < 0 ? 0 : timeout_ms);
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
    pollfd p{fd, POLLIN, 0};
    const int rc = poll(&p, 1, left > 0 ? static_cast<int>(left) : 0);
    if (rc > 0) return true;  // POLLIN, POLLHUP, POLLERR or POLLNVAL: a read will not block
    if (rc < 0 && errno != EINTR) return false;
    // A timeout (poll may wake a little early) or a signal: go again until the deadline.
    if (left <= 0) return false;
  }
}

}  // namespace sg
