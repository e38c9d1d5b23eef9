#include "backends/gpu/device_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace sg {
namespace {

// The lock file at `path`, taken `how` (LOCK_SH, LOCK_EX); waits for it.
Fd take(const std::string& path, int how) {
  Fd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (!fd) throw std::runtime_error("cannot open the GPU lock " + path + ": " + std::strerror(errno));
  while (::flock(fd.get(), how) != 0)
    if (errno != EINTR) throw std::runtime_error("cannot lock " + path + ": " + std::strerror(errno));
  return fd;
}

}  // namespace

DeviceLock::DeviceLock(const std::string& path, LockMode mode) {
  if (path.empty()) return;
  // Every process takes these files in one order (the gate's turnstile, the
  // gate, the GPU's turnstile, the GPU) and waits for none while holding a
  // later one: no two requests can wait for each other.
  Fd gate;
  if (mode != LockMode::Shared) {
    const std::string gate_path = path + ".long";
    Fd gate_turn = take(gate_path + ".turn", LOCK_EX);
    gate = take(gate_path, mode == LockMode::Exclusive ? LOCK_EX : LOCK_SH);
  }  // the gate's turnstile let go: a later long request waits at the gate itself
  {
    Fd turn = take(path + ".turn", LOCK_EX);
    fd_ = take(path, mode == LockMode::Exclusive ? LOCK_EX : LOCK_SH);
  }  // the GPU's turnstile let go: the next request through
  // An exclusive holder keeps the GPU itself; the long shared requests that
  // waited at the gate queue at the GPU's turnstile now. A long shared
  // holder keeps its place at the gate until it ends, so that an exclusive
  // request waits for it there and not at the GPU's turnstile.
  if (mode == LockMode::SharedLong) gate_ = std::move(gate);
}

DeviceLock::~DeviceLock() {
  fd_.reset();  // closing releases the lock
  gate_.reset();
}

LockHold::LockHold(const std::string& path, LockMode mode, double* held_s, Log log, HoldKind kind)
    : asked_(Clock::now()), lock_(path, mode), held_s_(held_s), since_(Clock::now()),
      exclusive_(mode == LockMode::Exclusive), kind_(kind), log_(path.empty() ? nullptr : std::move(log)) {
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
