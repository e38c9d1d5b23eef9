// The judge's handle on a running child: bounded waits, killing and reaping.
// "Kill every descendant" after a child ends is the containment rule; children
// run side by side (the two sanitizer tools) defer it until all have ended.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cmath>
#include <utility>
#include <thread>

#include "process/capped_read.h"
#include "process/fd.h"
#include "process/process.h"

namespace sg {

namespace {

using Clock = std::chrono::steady_clock;

// After SIGKILL a process normally vanishes in milliseconds; one stuck in
// the kernel (e.g. inside a GPU driver call) is given this long.
constexpr double kReapAfterKillS = 10;

ExitInfo exit_info_from_status(int status) {
  ExitInfo info;
  if (WIFEXITED(status)) {
    info.exited = true;
    info.code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    info.signal = WTERMSIG(status);
  }
  return info;
}

// Has `pid` terminated? Leaves it unreaped (a zombie keeps its pid and
// process-group id reserved, so killing the group afterwards is safe).
bool has_terminated(pid_t pid) {
  siginfo_t info{};
  for (;;) {
    if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0) return info.si_pid == pid;
    if (errno != EINTR) return true;  // ECHILD: nothing left to wait for
  }
}

enum class Reaped { Yes, Lost, No };

// Reaps `pid`, waiting at most timeout_s. Lost: someone else reaped it (a
// sweep by kill_all_descendants), so its status is gone; No: still there.
Reaped reap(pid_t pid, double timeout_s, int& status) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  int delay_us = 100;
  for (;;) {
    const pid_t rc = waitpid(pid, &status, WNOHANG);
    if (rc == pid) return Reaped::Yes;
    if (rc < 0 && errno != EINTR) return Reaped::Lost;
    if (Clock::now() >= deadline) return Reaped::No;
    backoff_sleep(delay_us);
  }
}

// The ending to report after reap(); a lost status is reported as the
// SIGKILL that the judge's sweep sends.
bool record_ending(Reaped reaped, int status, ExitInfo& exit, bool sandboxed) {
  if (reaped == Reaped::No) return false;
  const bool timed_out = exit.timed_out;
  if (reaped == Reaped::Yes) {
    exit = exit_info_from_status(status);
  } else {
    exit = ExitInfo{};
    exit.signal = SIGKILL;
  }
  // bubblewrap passes on its program's death by signal N as exit code 128 + N:
  // the student's SIGSEGV, not a code, is what the report should name.
  if (sandboxed && exit.exited && exit.code > 128 && exit.code < 128 + NSIG) {
    exit.signal = exit.code - 128;
    exit.exited = false;
    exit.code = 0;
  }
  exit.timed_out = timed_out;
  return true;
}

// Namespace mode: the init wrote the runner's wait status before it exited;
// nothing there means the init itself was killed (by the judge's SIGKILL).
void use_runner_status(int status_fd, Reaped reaped, int& status) {
  if (status_fd < 0 || reaped != Reaped::Yes) return;
  if (!wait_fd_readable(status_fd, 0)) return;
  int runner_status = 0;
  ssize_t n;
  do n = read(status_fd, &runner_status, sizeof runner_status);
  while (n < 0 && errno == EINTR);
  if (n == static_cast<ssize_t>(sizeof runner_status)) status = runner_status;
}

}  // namespace

void backoff_sleep(int& delay_us) {
  std::this_thread::sleep_for(std::chrono::microseconds(delay_us));
  delay_us = std::min(delay_us * 2, 10000);
}

Child::Child(Child&& other) noexcept
    : pid_(other.pid_), to_child_(other.to_child_), from_child_(other.from_child_), status_fd_(other.status_fd_),
      capture_fd_(other.capture_fd_), sandboxed_(other.sandboxed_), reaped_(other.reaped_), exit_(other.exit_) {
  other.pid_ = -1;
  other.to_child_ = other.from_child_ = other.status_fd_ = other.capture_fd_ = -1;
  other.reaped_ = true;
}

Child& Child::operator=(Child&& other) noexcept {
  // Take over `other`; the previous child (now in `old`) is killed and closed
  // by old's destructor.
  Child old(std::move(other));
  std::swap(pid_, old.pid_);
  std::swap(to_child_, old.to_child_);
  std::swap(from_child_, old.from_child_);
  std::swap(status_fd_, old.status_fd_);
  std::swap(capture_fd_, old.capture_fd_);
  std::swap(sandboxed_, old.sandboxed_);
  std::swap(reaped_, old.reaped_);
  std::swap(exit_, old.exit_);
  return *this;
}

Child::~Child() {
  if (pid_ > 0 && !reaped_) kill_all();
  if (to_child_ >= 0) close(to_child_);
  if (from_child_ >= 0) close(from_child_);
  if (status_fd_ >= 0) close(status_fd_);
  if (capture_fd_ >= 0) close(capture_fd_);
  to_child_ = from_child_ = status_fd_ = capture_fd_ = -1;
}

void Child::close_requests() {
  if (to_child_ >= 0) close(to_child_);
  to_child_ = -1;
}

bool Child::wait_readable(int fd, double timeout_s) const {
  const double ms = std::max(0.0, timeout_s) * 1000.0;
  return wait_fd_readable(fd, ms >= INT_MAX ? INT_MAX : static_cast<int>(std::ceil(ms)));
}

Child::Output Child::captured_output(std::size_t cap) const {
  Output out;
  if (capture_fd_ < 0) return out;
  const detail::CappedRead read = detail::read_capped_fd(capture_fd_, cap);
  out.text = read.text;
  out.total_bytes = read.total_bytes;
  out.truncated = read.truncated;
  return out;
}

bool Child::ended() const { return pid_ <= 0 || reaped_ || has_terminated(pid_); }

ExitInfo Child::kill_all(bool sweep) {
  if (pid_ > 0 && !reaped_) {
    kill(-pid_, SIGKILL);
    kill(pid_, SIGKILL);  // in case it moved itself to another group
    int status = 0;
    const Reaped reaped = reap(pid_, kReapAfterKillS, status);
    use_runner_status(status_fd_, reaped, status);
    if (record_ending(reaped, status, exit_, sandboxed_))
      reaped_ = true;
    else
      exit_.signal = SIGKILL;  // stuck in the kernel for now; the destructor tries again
  }
  if (sweep) kill_all_descendants();
  return exit_;
}

ExitInfo Child::wait(double timeout_s, bool sweep) {
  if (pid_ <= 0 || reaped_) return exit_;
  const auto deadline = Clock::now() + std::chrono::duration<double>(std::max(0.0, timeout_s));
  int delay_us = 100;
  while (!has_terminated(pid_)) {
    if (Clock::now() >= deadline) {
      exit_.timed_out = true;
      return kill_all(sweep);
    }
    backoff_sleep(delay_us);
  }
  // It ended by itself: whatever it left running in its group or elsewhere
  // dies now, before the group id can be reused.
  kill(-pid_, SIGKILL);
  int status = 0;
  const Reaped reaped = reap(pid_, kReapAfterKillS, status);
  use_runner_status(status_fd_, reaped, status);
  if (record_ending(reaped, status, exit_, sandboxed_)) reaped_ = true;
  if (sweep) kill_all_descendants();
  return exit_;
}

}  // namespace sg
