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

}  // namespace sg
