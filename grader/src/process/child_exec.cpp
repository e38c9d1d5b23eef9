// The child side of spawn. Between fork and exec only async-signal-safe calls
// are allowed (the judge may be multi-threaded: CUDA, cuBLAS), so credentials
// are changed with raw system calls and nothing here allocates.
#include "process/child_exec.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

namespace sg::detail {

const char* to_string(ExecStep step) {
  switch (step) {
    case ExecStep::ProcessGroup: return "setpgid";
    case ExecStep::Descriptors: return "setting up fds 0-4 (dup2)";
    case ExecStep::CloseDescriptors: return "closing inherited fds";
    case ExecStep::ResourceLimits: return "setrlimit";
    case ExecStep::NoNewPrivileges: return "prctl(PR_SET_NO_NEW_PRIVS)";
    case ExecStep::SupplementaryGroups: return "setgroups";
    case ExecStep::GroupId: return "setresgid";
    case ExecStep::UserId: return "setresuid";
    case ExecStep::VerifyDrop: return "privilege drop check (root could be regained)";
    case ExecStep::ParentDeathSignal: return "prctl(PR_SET_PDEATHSIG)";
    case ExecStep::ParentGone: return "judge exited during start-up";
    case ExecStep::WorkingDirectory: return "chdir to the working directory";
    case ExecStep::Exec: return "execve";
    case ExecStep::NamespaceFork: return "fork inside the PID namespace";
  }
  return "unknown start-up step";
}

namespace {

// Where the report pipe sits once the descriptors are arranged; every fd
// above it is closed, and it closes itself on a successful exec.
constexpr int kReportFd = 5;
// Temporary descriptors are moved at or above this so that dup2 onto 0-5
// can never overwrite a source that is still needed.
constexpr int kScratchFdBase = 10;

[[noreturn]] void fail(int report_fd, ExecStep step, int error) noexcept {
  const ExecFailure failure{static_cast<int>(step), error};
  // 8 bytes on a pipe are written atomically; if even this fails there is
  // nobody left to tell, and the exit code still says the start failed.
  const ssize_t written = write(report_fd, &failure, sizeof failure);
  (void)written;
  _exit(127);
}

void reset_signals() noexcept {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  // Ignored signals stay ignored across exec, so reset every one; the
  // calls that fail (SIGKILL, SIGSTOP, libc-internal signals) do not matter.
  for (int s = 1; s < NSIG; ++s) sigaction(s, &dfl, nullptr);
  // An output flood must end in EFBIG (output truncated), not in death.
  struct sigaction ign = dfl;
  ign.sa_handler = SIG_IGN;
  sigaction(SIGXFSZ, &ign, nullptr);
}

// Closes every descriptor from `first` on; false when that is impossible.
bool close_from(int first) noexcept {
#ifdef SYS_close_range
  if (syscall(SYS_close_range, static_cast<unsigned>(first), ~0U, 0U) == 0) return true;
#endif
  // Kernels before 5.9: close one by one up to the descriptor limit.
  rlimit nofile{};
  if (getrlimit(RLIMIT_NOFILE, &nofile) != 0) return false;
  constexpr rlim_t kCeiling = 1 << 20;
  const rlim_t upper = nofile.rlim_cur == RLIM_INFINITY || nofile.rlim_cur > kCeiling ? kCeiling : nofile.rlim_cur;
  for (rlim_t fd = static_cast<rlim_t>(first); fd < upper; ++fd) close(static_cast<int>(fd));
  return true;
}

// Puts /dev/null on 0, the output file on 1 and 2, the protocol pipes on 3
// and 4, the report pipe on 5 and the seccomp program (if any) on 6, then
// closes everything else. Returns the
// report fd to use from now on.
int arrange_descriptors(const ExecPlan& p) noexcept {
  int report = p.report_fd;
  const int null_fd = fcntl(p.stdin_fd, F_DUPFD, kScratchFdBase);
  const int out_fd = fcntl(p.output_fd, F_DUPFD, kScratchFdBase);
  const int req_fd = p.request_fd >= 0 ? fcntl(p.request_fd, F_DUPFD, kScratchFdBase) : -1;
  const int rep_fd = p.reply_fd >= 0 ? fcntl(p.reply_fd, F_DUPFD, kScratchFdBase) : -1;
  const int sec_fd = p.seccomp_fd >= 0 ? fcntl(p.seccomp_fd, F_DUPFD, kScratchFdBase) : -1;
  const int report_high = fcntl(p.report_fd, F_DUPFD_CLOEXEC, kScratchFdBase);
  if (null_fd < 0 || out_fd < 0 || (p.request_fd >= 0 && req_fd < 0) || (p.reply_fd >= 0 && rep_fd < 0) ||
      (p.seccomp_fd >= 0 && sec_fd < 0) || report_high < 0)
    fail(report, ExecStep::Descriptors, errno);
  report = report_high;

  // dup2 onto a different number clears close-on-exec on the copy.
  if (dup2(null_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(out_fd, 2) < 0) fail(report, ExecStep::Descriptors, errno);
  if (req_fd >= 0 && dup2(req_fd, 3) < 0) fail(report, ExecStep::Descriptors, errno);
  if (rep_fd >= 0 && dup2(rep_fd, 4) < 0) fail(report, ExecStep::Descriptors, errno);
  if (dup3(report_high, kReportFd, O_CLOEXEC) < 0) fail(report, ExecStep::Descriptors, errno);
  report = kReportFd;
  if (sec_fd >= 0 && dup2(sec_fd, kSeccompFd) < 0) fail(report, ExecStep::Descriptors, errno);
  if (req_fd < 0) close(3);
  if (rep_fd < 0) close(4);
  if (!close_from(sec_fd >= 0 ? kSeccompFd + 1 : kReportFd + 1)) fail(report, ExecStep::CloseDescriptors, errno);
  return report;
}

void apply_limits(const ExecPlan& p, int report) noexcept {
  if ((p.set_cpu && setrlimit(RLIMIT_CPU, &p.cpu) != 0) || (p.set_fsize && setrlimit(RLIMIT_FSIZE, &p.fsize) != 0) ||
      (p.set_nproc && setrlimit(RLIMIT_NPROC, &p.nproc) != 0) || (p.set_as && setrlimit(RLIMIT_AS, &p.as) != 0) ||
      setrlimit(RLIMIT_CORE, &p.core) != 0)
    fail(report, ExecStep::ResourceLimits, errno);
}

// Raw system calls: in a forked child of a threaded process the libc
// wrappers' cross-thread broadcast is not something to rely on.
void drop_privileges(const ExecPlan& p, int report) noexcept {
  if (syscall(SYS_setgroups, 0, nullptr) != 0) fail(report, ExecStep::SupplementaryGroups, errno);
  if (syscall(SYS_setresgid, p.gid, p.gid, p.gid) != 0) fail(report, ExecStep::GroupId, errno);
  if (syscall(SYS_setresuid, p.uid, p.uid, p.uid) != 0) fail(report, ExecStep::UserId, errno);
  // The drop only counts if it cannot be undone.
  if (syscall(SYS_setuid, 0) == 0 || getuid() != p.uid || geteuid() != p.uid || getgid() != p.gid ||
      getegid() != p.gid)
    fail(report, ExecStep::VerifyDrop, EPERM);
}

}  // namespace

void exec_child(const ExecPlan& p) noexcept {
  int report = p.report_fd;
  // Own process group, so the judge can kill everything the child starts
  // that stays in it; escapees are caught by the subreaper sweep.
  if (p.own_group && setpgid(0, 0) != 0) fail(report, ExecStep::ProcessGroup, errno);
  reset_signals();
  report = arrange_descriptors(p);
  apply_limits(p, report);
  // setuid/setgid binaries (su, sudo, ...) must not regain anything.
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail(report, ExecStep::NoNewPrivileges, errno);
  if (p.drop_privileges) drop_privileges(p, report);
  // After the drop: changing credentials clears the parent-death signal.
  if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) fail(report, ExecStep::ParentDeathSignal, errno);
  // The judge may have died before the line above took effect.
  if (getppid() != p.judge_pid) fail(report, ExecStep::ParentGone, ESRCH);
  if (p.workdir && chdir(p.workdir) != 0) fail(report, ExecStep::WorkingDirectory, errno);
  // The judge blocked every signal around fork; the program starts with none blocked.
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  execve(p.argv[0], p.argv, p.envp);
  fail(report, ExecStep::Exec, errno);
}

long raw_fork(unsigned long flags) noexcept {
  // A null stack means "continue on a copy of this one", exactly like fork.
  return syscall(SYS_clone, flags | SIGCHLD, 0UL, 0UL, 0UL, 0UL);
}

void run_namespace_init(const ExecPlan& p) noexcept {
  const int report = p.report_fd;
  // The judge kills this group (and this process) to end the child.
  if (setpgid(0, 0) != 0) fail(report, ExecStep::ProcessGroup, errno);
  if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) fail(report, ExecStep::ParentDeathSignal, errno);
  for (const int fd : p.judge_fds)
    if (fd >= 0) close(fd);
  // getppid() is 0 across the namespace boundary, so the judge's liveness
  // is read from the report pipe: with its read end gone, POLLERR.
  pollfd judge{report, POLLOUT, 0};
  if (poll(&judge, 1, 0) == 1 && (judge.revents & POLLERR)) _exit(127);

  ExecPlan runner = p;
  runner.judge_pid = 1;       // this init
  runner.own_group = false;   // stay in the group the judge kills
  const long pid = raw_fork(0);
  if (pid == 0) exec_child(runner);
  if (pid < 0) fail(report, ExecStep::NamespaceFork, errno);
  // Keep only the status pipe: the runner's exec must be the only thing
  // that holds the report pipe open, and no copy of fds 3/4 may linger here.
  const int inherited[] = {p.stdin_fd, p.output_fd, p.request_fd, p.reply_fd, p.report_fd, p.seccomp_fd};
  for (const int fd : inherited)
    if (fd >= 0 && fd != p.status_fd) close(fd);
#ifdef SYS_close_range
  // Best effort for anything else inherited (none of it matters for EOF).
  if (p.status_fd > 0) syscall(SYS_close_range, 0U, static_cast<unsigned>(p.status_fd - 1), 0U);
  syscall(SYS_close_range, static_cast<unsigned>(p.status_fd + 1), ~0U, 0U);
#endif
  for (;;) {
    int status = 0;
    const pid_t ended = waitpid(-1, &status, 0);
    if (ended == pid) {
      const ssize_t written = write(p.status_fd, &status, sizeof status);
      (void)written;
      _exit(0);  // the kernel now kills everything left in the namespace
    }
    if (ended < 0 && errno != EINTR) _exit(126);  // cannot happen: the runner is our child
  }
}

}  // namespace sg::detail
