#include "backends/gpu/device_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace sg {
namespace {

int open_lock(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot open the GPU lock " + path + ": " + std::strerror(errno));
  return fd;
}

void take(int fd, int how, const std::string& path) {
  while (::flock(fd, how) != 0)
    if (errno != EINTR) {
      const int err = errno;
      ::close(fd);
      throw std::runtime_error("cannot lock " + path + ": " + std::strerror(err));
    }
}

}  // namespace

DeviceLock::DeviceLock(const std::string& path, bool exclusive) {
  if (path.empty()) return;
  const int turnstile = open_lock(path + ".turn");
  take(turnstile, LOCK_EX, path + ".turn");
  try {
    fd_ = open_lock(path);
    take(fd_, exclusive ? LOCK_EX : LOCK_SH, path);
  } catch (...) {
    fd_ = -1;
    ::close(turnstile);
    throw;
  }
  ::close(turnstile);  // let the next request through
}

DeviceLock::~DeviceLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

LockHold::LockHold(const std::string& path, bool exclusive, double* held_s, Log log, HoldKind kind)
    : asked_(Clock::now()), lock_(path, exclusive), held_s_(held_s), since_(Clock::now()), exclusive_(exclusive),
      kind_(kind), log_(path.empty() ? nullptr : std::move(log)) {
  const double waited = std::chrono::duration<double>(since_ - asked_).count();
  if (log_ && (exclusive_ || waited >= kNoticeableWaitS))
    log_(hold_taken_log_line(kind_, waited));
}

LockHold::~LockHold() {
  const double held = std::chrono::duration<double>(Clock::now() - since_).count();
  if (held_s_) *held_s_ += held;
  if (log_ && (exclusive_ || held >= kLongSharedHoldS)) log_(hold_given_back_log_line(kind_, held));
}

}  // namespace sg
