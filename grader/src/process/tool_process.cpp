#include "process/tool_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace sg::build {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Milliseconds left until the deadline, clamped to [0, 1000] so that poll
// wakes up regularly (and never takes a negative timeout).
int ms_left(Clock::time_point deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  if (left <= 0) return 0;
  return left > 1000 ? 1000 : static_cast<int>(left);
}

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// Kills the tool's whole process group: nvcc starts cicc, ptxas and the host
// compiler, and all of them must go when the deadline passes.
void kill_group(pid_t pid) {
  ::kill(-pid, SIGKILL);
  ::kill(pid, SIGKILL);
}

}  // namespace

std::string resolve_program(const std::string& name) {
  if (name.empty()) return "";
  if (name.find('/') != std::string::npos) return is_executable_file(name) ? name : "";
  const char* env = std::getenv("PATH");
  const std::string path = env && *env ? env : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    if (dir.empty()) dir = ".";
    const std::string candidate = dir + "/" + name;
    if (is_executable_file(candidate)) return candidate;
    start = end + 1;
  }
  return "";
}

ToolResult run_build_tool(const std::vector<std::string>& argv, double timeout_s, std::size_t cap) {
  ToolResult r;
  const auto t0 = Clock::now();
  const auto deadline = t0 + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(timeout_s > 0 ? timeout_s : 0));
  if (argv.empty()) {
    r.error = "no program to run";
    return r;
  }
  const std::string program = resolve_program(argv[0]);
  if (program.empty()) {
    r.error = "cannot find an executable `" + argv[0] + "`";
    return r;
  }

  // Everything the child needs is prepared before fork: between fork and exec
  // only async-signal-safe calls are allowed (the judge may have threads).
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  int out[2] = {-1, -1};
  int exec_status[2] = {-1, -1};  // carries errno back when exec fails
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(exec_status, O_CLOEXEC) != 0) {
    r.error = std::string("pipe2 failed: ") + std::strerror(errno);
    close_fd(out[0]); close_fd(out[1]);
    return r;
  }

  const pid_t pid = ::fork();
  if (pid < 0) {
    r.error = std::string("fork failed: ") + std::strerror(errno);
    close_fd(out[0]); close_fd(out[1]); close_fd(exec_status[0]); close_fd(exec_status[1]);
    return r;
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    const int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    ::dup2(out[1], 1);
    ::dup2(out[1], 2);
    ::execv(program.c_str(), args.data());
    const int err = errno;
    ssize_t ignored = ::write(exec_status[1], &err, sizeof err);
    (void)ignored;
    ::_exit(127);
  }

  ::setpgid(pid, pid);  // also done by the child; whichever runs first wins the race
  close_fd(out[1]);
  close_fd(exec_status[1]);

  int exec_errno = 0;
  ssize_t got;
  do {
    got = ::read(exec_status[0], &exec_errno, sizeof exec_errno);
  } while (got < 0 && errno == EINTR);
  close_fd(exec_status[0]);
  r.started = got != static_cast<ssize_t>(sizeof exec_errno);
  if (!r.started) r.error = "cannot execute `" + program + "`: " + std::strerror(exec_errno);

  // Read until EOF or the deadline; past the cap, keep draining so the tool never blocks.
  char buf[65536];
  bool eof = false;
  while (!eof) {
    if (Clock::now() >= deadline) {
      r.timed_out = true;
      break;
    }
    pollfd p{out[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, ms_left(deadline));
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (ready == 0) continue;
    const ssize_t n = ::read(out[0], buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      break;
    }
    if (n == 0) {
      eof = true;
      break;
    }
    const std::size_t room = r.output.size() < cap ? cap - r.output.size() : 0;
    const std::size_t take = static_cast<std::size_t>(n) < room ? static_cast<std::size_t>(n) : room;
    r.output.append(buf, take);
    if (take < static_cast<std::size_t>(n)) r.truncated = true;
  }
  close_fd(out[0]);

  // Observe the exit without reaping, so the group id cannot be reused before
  // the stragglers are killed.
  if (!r.timed_out) {
    for (;;) {
      siginfo_t info;
      std::memset(&info, 0, sizeof info);
      const int w = ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
      if (w == 0 && info.si_pid == pid) break;
      if (w < 0 && errno != EINTR) break;
      if (Clock::now() >= deadline) {
        r.timed_out = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  kill_group(pid);

  int status = 0;
  pid_t w;
  do {
    w = ::waitpid(pid, &status, 0);
  } while (w < 0 && errno == EINTR);
  if (w == pid && !r.timed_out) {
    if (WIFEXITED(status)) {
      r.exited = true;
      r.code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      r.signal = WTERMSIG(status);
    }
  }
  r.seconds = seconds_since(t0);
  return r;
}

std::string printable_text(const std::string& raw) {
  std::string out;
  out.reserve(raw.size());
  std::size_t i = 0;
  while (i < raw.size()) {
    const auto c = static_cast<unsigned char>(raw[i]);
    if (c < 0x80) {
      const bool keep = c == '\n' || c == '\t' || (c >= 0x20 && c != 0x7f);
      out += keep ? static_cast<char>(c) : '?';
      ++i;
      continue;
    }
    // Length and minimum value of a well-formed multi-byte sequence.
    std::size_t len = 0;
    unsigned cp = 0, min = 0;
    if ((c & 0xe0) == 0xc0) { len = 2; cp = c & 0x1f; min = 0x80; }
    else if ((c & 0xf0) == 0xe0) { len = 3; cp = c & 0x0f; min = 0x800; }
    else if ((c & 0xf8) == 0xf0) { len = 4; cp = c & 0x07; min = 0x10000; }
    bool valid = len != 0 && i + len <= raw.size();
    for (std::size_t j = 1; valid && j < len; ++j) {
      const auto cc = static_cast<unsigned char>(raw[i + j]);
      if ((cc & 0xc0) != 0x80) valid = false;
      else cp = (cp << 6) | (cc & 0x3f);
    }
    valid = valid && cp >= min && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
    if (valid) {
      out.append(raw, i, len);
      i += len;
    } else {
      out += '?';
      ++i;
    }
  }
  return out;
}

}  // namespace sg::build
