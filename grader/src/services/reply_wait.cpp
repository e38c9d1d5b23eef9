#include "services/reply_wait.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>

#include "services/elapsed.h"

namespace sg {
namespace {

// Whether the reply has begun (or the runner's end is there), waiting at most
// wait_ms; false on a timeout or an interruption. Another error counts as
// begun: read_reply says what it was.
bool reply_there(int fd, int wait_ms) {
  pollfd p{fd, POLLIN, 0};
  const int rc = poll(&p, 1, wait_ms);
  return rc > 0 || (rc < 0 && errno != EINTR);
}

}  // namespace

std::uint64_t blocks_done(const std::string& path) {
  std::uint64_t n = 0;
  if (path.empty()) return n;
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return 0;
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || pread(fd, &n, sizeof n, 0) != static_cast<ssize_t>(sizeof n))
    n = 0;
  close(fd);
  return n;
}

ReplyWait wait_for_reply(int fd, std::chrono::steady_clock::time_point t0, double timeout_s,
                         const std::string& progress_file, double factor, double& budget_s, double spin_s) {
  ReplyWait w;
  w.limit_s = timeout_s;
  while (spin_s > 0 && seconds_since(t0) < spin_s)
    if (reply_there(fd, 0)) {
      w.begun = true;
      return w;
    }
  const double cap = timeout_s * std::max(1.0, factor);
  std::uint64_t seen = blocks_done(progress_file);
  for (;;) {
    const double wait = w.limit_s - seconds_since(t0);
    // Past the limit the judge still looks once, without waiting.
    if (reply_there(fd, wait > 0 ? static_cast<int>(std::ceil(wait * 1000)) : 0)) {
      w.begun = true;
      return w;
    }
    if (w.limit_s - seconds_since(t0) > 0) continue;  // woken early
    const std::uint64_t now = blocks_done(progress_file);
    const double span = std::min({timeout_s, cap - w.limit_s, budget_s});
    if (now == seen || span <= 0) return w;
    seen = now;
    w.limit_s += span;
    budget_s -= span;
    w.extended = true;
  }
}

double reply_read_seconds(const ReplyWait& w, double left_s, double transfer_s) {
  return w.begun ? std::max(left_s, transfer_s) : 0.0;
}

}  // namespace sg
