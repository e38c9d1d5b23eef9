// Child::spawn, the judge side: everything that can allocate, look up users
// or produce a readable error happens here, before fork; the child itself
// follows the prepared ExecPlan (child_exec.cpp).
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "process/child_exec.h"
#include "process/fd.h"
#include "process/process.h"

namespace sg {

namespace {

// How long a forked child may take to reach exec; only hit if the machine is
// badly overloaded, but the judge never waits without a bound.
constexpr double kStartTimeoutS = 30;
constexpr int kPipeBytes = 1 << 20;  // bigger pipes: fewer wake-ups for A, B and C

std::string errno_text(int err) { return std::strerror(err); }

struct RunnerUser {
  uid_t uid = 0;
  gid_t gid = 0;
};

// The unprivileged user the child becomes: SG_RUNNER_USER from the judge's
// environment, else `nobody`. Refuses anything that is root.
bool resolve_runner_user(RunnerUser& user, std::string& error) {
  const char* from_env = std::getenv("SG_RUNNER_USER");
  const std::string name = from_env && *from_env ? from_env : "nobody";
  const char* origin = from_env && *from_env ? " (from SG_RUNNER_USER)" : "";
  long size = sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buffer(size > 0 ? static_cast<std::size_t>(size) : 16384);
  passwd entry{};
  passwd* found = nullptr;
  int rc;
  while ((rc = getpwnam_r(name.c_str(), &entry, buffer.data(), buffer.size(), &found)) == ERANGE)
    buffer.resize(buffer.size() * 2);
  if (rc != 0) {
    error = "cannot look up runner user '" + name + "'" + origin + ": " + errno_text(rc);
    return false;
  }
  if (!found) {
    error = "runner user '" + name + "'" + origin + " does not exist";
    return false;
  }
  if (found->pw_uid == 0 || found->pw_gid == 0) {
    error = "runner user '" + name + "'" + origin + " is root (uid or gid 0); untrusted code must not run as root";
    return false;
  }
  user.uid = found->pw_uid;
  user.gid = found->pw_gid;
  return true;
}

// Soft and hard limits no higher than the judge's own hard limit (raising
// that would fail).
rlimit clamp_limit(int resource, rlim_t soft, rlim_t hard) {
  rlimit current{};
  getrlimit(resource, &current);
  if (current.rlim_max != RLIM_INFINITY) {
    soft = std::min(soft, current.rlim_max);
    hard = std::min(hard, current.rlim_max);
  }
  return rlimit{soft, hard};
}

std::vector<char*> c_strings(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (const auto& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

bool make_pipe(Fd& read_end, Fd& write_end, std::string& error, const char* what) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    error = std::string("pipe2 for the ") + what + ": " + errno_text(errno);
    return false;
  }
  read_end.reset(fds[0]);
  write_end.reset(fds[1]);
  return true;
}

// Blocks every signal in the calling thread for the lifetime of the object,
// so no judge signal handler can run in the child between fork and exec.
class SignalsBlocked {
 public:
  SignalsBlocked() {
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &saved_);
  }
  ~SignalsBlocked() { pthread_sigmask(SIG_SETMASK, &saved_, nullptr); }
  SignalsBlocked(const SignalsBlocked&) = delete;
  SignalsBlocked& operator=(const SignalsBlocked&) = delete;

 private:
  sigset_t saved_;
};

// Reaps a child that failed to start (it exits at once); bounded.
void reap_failed_start(pid_t pid) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > give_up) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      waitpid(pid, &status, WNOHANG);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace

std::optional<Child> Child::spawn(const SpawnOptions& opts, std::string& error) {
  error.clear();
  if (opts.argv.empty() || opts.argv[0].empty()) {
    error = "spawn: SpawnOptions.argv is empty (argv[0] must be the program path)";
    return std::nullopt;
  }
  const std::string& program = opts.argv[0];
  const std::string prefix = "cannot start " + program + ": ";

  detail::ExecPlan plan;
  RunnerUser user;
  plan.drop_privileges = opts.drop_privileges && geteuid() == 0;
  if (plan.drop_privileges && opts.sandbox.run_as.set()) {
    user.uid = opts.sandbox.run_as.uid;  // this grading's own uid (process/job_identity.h)
    user.gid = opts.sandbox.run_as.gid;
  } else if (plan.drop_privileges && !resolve_runner_user(user, error)) {
    error = prefix + error;
    return std::nullopt;
  }
  plan.uid = user.uid;
  plan.gid = user.gid;

  // Opened here rather than in the child so that a bad path is a clear error.
  // O_NOFOLLOW: never truncate whatever a planted symlink points to.
  const bool capture = opts.output_file.empty();
  Fd output(capture ? memfd_create("sg-output", MFD_CLOEXEC)
                    : open(opts.output_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
                           opts.output_mode));
  if (!output) {
    error = prefix + (capture ? "memfd_create for its output" : "cannot open output file " + opts.output_file) + ": " +
            errno_text(errno);
    return std::nullopt;
  }
  // Another descriptor of the same in-memory file, for reading it back.
  Fd captured(capture ? fcntl(output.get(), F_DUPFD_CLOEXEC, 0) : -1);
  if (capture && !captured) {
    error = prefix + "dup of the output file: " + errno_text(errno);
    return std::nullopt;
  }
  if (plan.drop_privileges && fchown(output.get(), user.uid, user.gid) != 0) {
    error = prefix + "fchown of output file " + opts.output_file + ": " + errno_text(errno);
    return std::nullopt;
  }
  Fd dev_null(open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!dev_null) {
    error = prefix + "cannot open /dev/null: " + errno_text(errno);
    return std::nullopt;
  }

  Fd request_read, request_write, reply_read, reply_write, report_read, report_write;
  if (opts.protocol_pipes && (!make_pipe(request_read, request_write, error, "request pipe") ||
                              !make_pipe(reply_read, reply_write, error, "reply pipe"))) {
    error = prefix + error;
    return std::nullopt;
  }
  if (!make_pipe(report_read, report_write, error, "start-up report pipe")) {
    error = prefix + error;
    return std::nullopt;
  }

  // The sandbox: bwrap runs the program, reading its seccomp program from a
  // descriptor the child inherits; bwrap's PID namespace replaces ours.
  const bool sandboxed = opts.sandbox.profile != SandboxProfile::None && !opts.sandbox.bwrap.empty();
  Fd seccomp;
  std::vector<std::string> command = opts.argv;
  if (sandboxed) {
    seccomp.reset(seccomp_program_fd(opts.sandbox.profile, error));
    if (!seccomp) {
      error = prefix + error;
      return std::nullopt;
    }
    command = sandbox_argv(opts.sandbox, opts.argv, opts.workdir, detail::kSeccompFd);
  }
  plan.seccomp_fd = seccomp.get();
  const std::vector<char*> argv = c_strings(command);
  const std::vector<char*> envp = c_strings(opts.env);
  plan.argv = argv.data();
  plan.envp = envp.data();
  plan.workdir = opts.workdir.empty() ? nullptr : opts.workdir.c_str();
  plan.stdin_fd = dev_null.get();
  plan.output_fd = output.get();
  plan.request_fd = request_read.get();
  plan.reply_fd = reply_write.get();
  plan.report_fd = report_write.get();
  // 0 keeps the judge's limit; at least a second otherwise, and NaN or
  // absurd values become the largest sane limit.
  const Limits& lim = opts.limits;
  plan.set_cpu = lim.cpu_seconds != 0;
  double cpu = std::ceil(lim.cpu_seconds);
  if (!(cpu >= 1)) cpu = 1;
  if (cpu > 1e9) cpu = 1e9;
  // Hard CPU limit one second later: SIGXCPU ("CPU time limit exceeded")
  // names the cause; SIGKILL follows if the program catches it.
  plan.cpu = clamp_limit(RLIMIT_CPU, static_cast<rlim_t>(cpu), static_cast<rlim_t>(cpu) + 1);
  plan.set_fsize = lim.file_bytes > 0;
  const auto fsize = static_cast<rlim_t>(std::max(0LL, lim.file_bytes));
  plan.fsize = clamp_limit(RLIMIT_FSIZE, fsize, fsize);
  plan.set_nproc = lim.nprocs > 0;
  const auto nproc = static_cast<rlim_t>(std::max(1L, lim.nprocs));
  plan.nproc = clamp_limit(RLIMIT_NPROC, nproc, nproc);
  plan.set_as = lim.address_space_bytes > 0;
  const auto as = static_cast<rlim_t>(std::max(0LL, lim.address_space_bytes));
  plan.as = clamp_limit(RLIMIT_AS, as, as);
  plan.core = rlimit{0, 0};
  plan.judge_pid = getpid();

  // Namespace mode: the init reports the runner's wait status on its own pipe.
  Fd status_read, status_write;
  bool in_namespace = opts.pid_namespace && geteuid() == 0 && !sandboxed;
  if (in_namespace && !make_pipe(status_read, status_write, error, "status pipe")) {
    error = prefix + error;
    return std::nullopt;
  }
  plan.status_fd = status_write.get();
  plan.judge_fds[0] = report_read.get();
  plan.judge_fds[1] = request_write.get();
  plan.judge_fds[2] = reply_read.get();
  plan.judge_fds[3] = status_read.get();

  // The child gets SIGKILL when the thread that forked it ends (that is how
  // PR_SET_PDEATHSIG works), so spawn from a thread that outlives the child.
  pid_t pid = -1;
  {
    SignalsBlocked blocked;
    if (in_namespace) {
      pid = static_cast<pid_t>(detail::raw_fork(CLONE_NEWPID));
      if (pid == 0) detail::run_namespace_init(plan);
      // Refused (no CAP_SYS_ADMIN in a container, namespace limits): the
      // plain process group and the /proc sweep still contain the child.
      if (pid < 0 && (errno == EPERM || errno == EINVAL || errno == ENOSPC || errno == EUSERS)) in_namespace = false;
    }
    if (!in_namespace) {
      pid = fork();
      if (pid == 0) detail::exec_child(plan);
    }
  }
  if (pid < 0) {
    error = prefix + (in_namespace ? "clone(CLONE_NEWPID): " : "fork: ") + errno_text(errno);
    return std::nullopt;
  }

  // Keep only the judge's ends; the report pipe's write end must go so that
  // a successful exec shows up as end-of-file.
  status_write.reset();
  if (!in_namespace) status_read.reset();
  report_write.reset();
  request_read.reset();
  reply_write.reset();
  output.reset();
  dev_null.reset();
  seccomp.reset();

  detail::ExecFailure failure;
  std::size_t got = 0;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::duration<double>(kStartTimeoutS);
  bool timed_out = false, read_failed = false;
  while (got < sizeof failure) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(give_up - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    if (!wait_fd_readable(report_read.get(), static_cast<int>(left.count()))) continue;
    const ssize_t n = read(report_read.get(), reinterpret_cast<char*>(&failure) + got, sizeof failure - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) read_failed = true;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (timed_out || read_failed || got != 0) {
    if (timed_out)
      error = prefix + "the child did not reach exec within " + std::to_string(static_cast<int>(kStartTimeoutS)) + " s";
    else if (read_failed || got != sizeof failure)
      error = prefix + "lost the start-up report from the child";
    else
      error = prefix + detail::to_string(static_cast<detail::ExecStep>(failure.step)) + ": " + errno_text(failure.error);
    if (timed_out || read_failed) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
    }
    reap_failed_start(pid);
    return std::nullopt;
  }

  // Larger pipes are an optimisation only (A, B and C are megabytes); the
  // judge's ends stay blocking, and the bounded proto:: helpers add the deadline.
  if (opts.protocol_pipes)
    for (const Fd* fd : {&request_write, &reply_read}) fcntl(fd->get(), F_SETPIPE_SZ, kPipeBytes);

  Child child;
  child.pid_ = pid;
  child.to_child_ = request_write.release();
  child.from_child_ = reply_read.release();
  child.status_fd_ = status_read.release();
  child.capture_fd_ = captured.release();
  child.sandboxed_ = sandboxed;
  return child;
}

std::string machine_resource_error(const std::string& spawn_error) {
  for (const char* words : {"Cannot allocate memory", "Too many open files", "No space left on device",
                            "Disk quota exceeded"})
    if (spawn_error.find(words) != std::string::npos) return words;
  // The child's descriptors are the grader's to arrange: failing there is
  // its own descriptor limit (dup2 past RLIMIT_NOFILE says EINVAL).
  if (spawn_error.find("setting up fds 0-4 (dup2): ") != std::string::npos) return "out of descriptors";
  for (const char* step : {"fork: ", "clone(CLONE_NEWPID): ", "fork inside the PID namespace: "})
    if (spawn_error.find(std::string(step) + std::strerror(EAGAIN)) != std::string::npos)
      return "no process could be started";
  return "";
}

}  // namespace sg
