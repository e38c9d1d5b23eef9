#include "batch/grade_pool.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <thread>

namespace sg::batch {
namespace {

std::string seconds_text(double s) { return std::to_string(static_cast<long long>(std::llround(s))); }

// Children of this process that no GradePool entry owns: what a killed or
// crashed grade process left behind (reparented here, the subreaper).
std::vector<pid_t> orphans_of(pid_t self, const std::map<pid_t, bool>& owned) {
  std::vector<pid_t> out;
  DIR* d = ::opendir("/proc");
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    char* end = nullptr;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (*end || pid <= 0) continue;
    std::ifstream stat(std::string("/proc/") + e->d_name + "/stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    // The command name may hold spaces and parentheses; the fields after it do not.
    const std::size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    long ppid = 0;
    if (std::sscanf(line.c_str() + close + 1, " %c %ld", &state, &ppid) != 2) continue;
    if (ppid == self && !owned.count(static_cast<pid_t>(pid))) out.push_back(static_cast<pid_t>(pid));
  }
  ::closedir(d);
  return out;
}

}  // namespace

std::string FinishedJob::describe() const {
  if (spawn_failed) return "could not start: " + error;
  if (timed_out) return "timed out after " + seconds_text(seconds) + " s and was killed";
  if (exited) return "exited with code " + std::to_string(code);
  const char* name = ::strsignal(signal);
  return "killed by signal " + std::to_string(signal) + (name ? std::string(" (") + name + ")" : "");
}

GradePool::GradePool() {
  // Orphans of a grade process we kill come to us, so they can be found and ended.
  ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

GradePool::~GradePool() { kill_all(); }

void GradePool::start(const GradeJob& job) {
  FinishedJob fail;
  fail.index = job.index;
  fail.spawn_failed = true;
  if (job.argv.empty()) {
    fail.error = "empty command line";
    failed_starts_.push_back(fail);
    return;
  }
  // Everything the child needs is prepared before fork: after it, only
  // async-signal-safe calls.
  std::vector<char*> argv, envp;
  for (const auto& a : job.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : job.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  const int log = ::open(job.log_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log < 0) {
    fail.error = "cannot create log " + job.log_file + ": " + std::strerror(errno);
    failed_starts_.push_back(fail);
    return;
  }
  const int null_in = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  int report[2];  // the child writes errno here when exec fails; exec closes it
  if (null_in < 0 || ::pipe2(report, O_CLOEXEC) != 0) {
    fail.error = std::string("cannot set up the child's files: ") + std::strerror(errno);
    ::close(log);
    if (null_in >= 0) ::close(null_in);
    failed_starts_.push_back(fail);
    return;
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);  // a killed batch takes its graders with it
    if (::getppid() != parent) ::_exit(127);       // the batch died before prctl took effect
    ::signal(SIGPIPE, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::dup2(null_in, 0);
    ::dup2(log, 1);
    ::dup2(log, 2);
    ::execve(argv[0], argv.data(), envp.data());
    const int err = errno;
    ssize_t ignored = ::write(report[1], &err, sizeof err);
    (void)ignored;
    ::_exit(127);
  }
  const int fork_errno = errno;
  ::close(report[1]);
  ::close(log);
  ::close(null_in);
  if (pid < 0) {
    ::close(report[0]);
    fail.error = std::string("fork: ") + std::strerror(fork_errno);
    failed_starts_.push_back(fail);
    return;
  }
  ::setpgid(pid, pid);  // also here, so a kill(-pid) right away cannot miss the group
  int child_errno = 0;
  ssize_t got;
  do got = ::read(report[0], &child_errno, sizeof child_errno);
  while (got < 0 && errno == EINTR);
  ::close(report[0]);
  running_[pid] = Running{job.index, Clock::now(), job.time_limit_s};
  if (got == static_cast<ssize_t>(sizeof child_errno)) {
    // exec failed: reap it now and report the reason instead of an exit code.
    ::waitpid(pid, nullptr, 0);
    running_.erase(pid);
    fail.error = "cannot run " + job.argv[0] + ": " + std::strerror(child_errno);
    failed_starts_.push_back(fail);
  }
}

void GradePool::enforce_limits() {
  const auto now = Clock::now();
  for (auto& [pid, r] : running_) {
    if (r.timed_out || r.limit_s <= 0) continue;
    if (std::chrono::duration<double>(now - r.started).count() <= r.limit_s) continue;
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
    r.timed_out = true;
    killed_any_ = true;
  }
}

void GradePool::sweep_orphans() {
  std::map<pid_t, bool> owned;
  for (const auto& kv : running_) owned[kv.first] = true;
  // Killing an orphan hands its own children to us; a few rounds catch them.
  for (int round = 0; round < 20; ++round) {
    const std::vector<pid_t> strays = orphans_of(::getpid(), owned);
    if (strays.empty()) return;
    for (pid_t p : strays) {
      if (::getpgid(p) == p) ::kill(-p, SIGKILL);
      ::kill(p, SIGKILL);
    }
    for (pid_t p : strays) ::waitpid(p, nullptr, 0);
  }
}

std::vector<FinishedJob> GradePool::wait(double max_wait_s) {
  std::vector<FinishedJob> done;
  done.swap(failed_starts_);
  const auto deadline = Clock::now() + std::chrono::duration<double>(max_wait_s);
  bool abnormal = false;
  for (;;) {
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid > 0) {
      const auto it = running_.find(pid);
      if (it == running_.end()) continue;  // an orphan we swept earlier
      FinishedJob f;
      f.index = it->second.index;
      f.seconds = std::chrono::duration<double>(Clock::now() - it->second.started).count();
      f.timed_out = it->second.timed_out;
      f.exited = WIFEXITED(status);
      f.code = f.exited ? WEXITSTATUS(status) : 0;
      f.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
      if (!f.exited || f.timed_out) abnormal = true;
      running_.erase(it);
      done.push_back(f);
      continue;
    }
    if (pid < 0 && errno == EINTR) continue;
    enforce_limits();
    if (!done.empty() || Clock::now() >= deadline || (pid < 0 && errno == ECHILD)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (abnormal || killed_any_) {
    sweep_orphans();
    killed_any_ = false;
  }
  return done;
}

void GradePool::kill_all() {
  for (const auto& kv : running_) {
    ::kill(-kv.first, SIGKILL);
    ::kill(kv.first, SIGKILL);
  }
  for (const auto& kv : running_) ::waitpid(kv.first, nullptr, 0);
  running_.clear();
  sweep_orphans();
}

}  // namespace sg::batch
