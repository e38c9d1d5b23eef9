// A stand-in for a hostile or broken runner, driven by sandbox_test.cpp.
// Each mode does one thing the sandbox must survive or reveal:
//   exit N       exit with code N
//   segv         die of a real segmentation fault
//   hang         sleep forever
//   spin         burn CPU forever
//   grandchild   leave a child sleeping an hour with stdout and fd 4 open, then exit
//   escape       double fork + setsid so a grandchild leaves the process group
//   runaway      a chain of processes, each in a new session, each forking its
//                successor and exiting, so the live one keeps changing pid
//   runaway_hang start that chain in a child, then hang (the runner stays alive)
//   pid          print "pid P ppid Q" as this process sees them
//   flood BYTES  write BYTES to stdout; exit 0 only if a write failed with EFBIG
//   env          print the environment, one entry a line
//   fds          print the open descriptors and what stdin is
//   signals      print SIGINT's and SIGXFSZ's dispositions and the blocked mask
//   echo         read a uint32 on fd 3, write it plus one on fd 4
#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern char** environ;

namespace {

void say(const std::string& text) {
  const ssize_t n = write(1, text.data(), text.size());
  (void)n;
}

[[noreturn]] void sleep_forever() {
  for (;;) pause();
}

int flood(long long bytes) {
  std::vector<char> chunk(64 * 1024, 'x');
  bool saw_efbig = false;
  for (long long done = 0; done < bytes; done += static_cast<long long>(chunk.size())) {
    if (write(1, chunk.data(), chunk.size()) < 0) {
      if (errno != EFBIG) return 2;
      saw_efbig = true;
    }
  }
  return saw_efbig ? 0 : 1;
}

void list_fds() {
  DIR* dir = opendir("/proc/self/fd");
  if (!dir) {
    say("opendir failed\n");
    return;
  }
  std::vector<int> fds;
  while (const dirent* e = readdir(dir)) {
    if (e->d_name[0] == '.') continue;
    const int fd = std::atoi(e->d_name);
    if (fd != dirfd(dir)) fds.push_back(fd);
  }
  closedir(dir);
  std::sort(fds.begin(), fds.end());
  std::string line;
  for (const int fd : fds) line += (line.empty() ? "" : " ") + std::to_string(fd);
  char target[256] = {};
  const ssize_t n = readlink("/proc/self/fd/0", target, sizeof target - 1);
  say(line + "\nstdin=" + std::string(target, n > 0 ? static_cast<std::size_t>(n) : 0) + "\n");
}

void show_signals() {
  struct sigaction sa {};
  std::string text;
  sigaction(SIGINT, nullptr, &sa);
  text += std::string("int=") + (sa.sa_handler == SIG_IGN ? "ignored" : sa.sa_handler == SIG_DFL ? "default" : "handled");
  sigaction(SIGXFSZ, nullptr, &sa);
  text += std::string(" xfsz=") + (sa.sa_handler == SIG_IGN ? "ignored" : sa.sa_handler == SIG_DFL ? "default" : "handled");
  sigset_t blocked;
  sigprocmask(SIG_SETMASK, nullptr, &blocked);
  int count = 0;
  for (int s = 1; s < NSIG; ++s) count += sigismember(&blocked, s) == 1;
  say(text + " blocked=" + std::to_string(count) + "\n");
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "exit" && argc > 2) return std::atoi(argv[2]);
  if (mode == "segv") {
    // Both volatile: the pointer so the compiler cannot see it is null, the
    // target so the store is not dropped as dead.
    volatile int* volatile nowhere = nullptr;
    *nowhere = 1;
    return 0;
  }
  if (mode == "hang") sleep_forever();
  if (mode == "spin") {
    volatile unsigned long long n = 0;
    for (;;) n = n + 1;
  }
  if (mode == "grandchild") {
    const pid_t child = fork();
    if (child == 0) {
      sleep(3600);
      _exit(0);
    }
    if (child < 0) return 2;
    say("grandchild " + std::to_string(child) + "\n");
    return 0;
  }
  if (mode == "escape") {
    const pid_t middle = fork();
    if (middle < 0) return 2;
    if (middle == 0) {
      if (setsid() < 0) _exit(3);
      const pid_t escaped = fork();
      if (escaped == 0) {
        say("escaped " + std::to_string(getpid()) + "\n");
        sleep(3600);
        _exit(0);
      }
      _exit(escaped < 0 ? 4 : 0);
    }
    int status = 0;
    waitpid(middle, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 5;
  }
  if (mode == "pid") {
    say("pid " + std::to_string(getpid()) + " ppid " + std::to_string(getppid()) + "\n");
    return 0;
  }
  if (mode == "runaway" || mode == "runaway_hang") {
    if (mode == "runaway_hang") {
      const pid_t chain = fork();
      if (chain < 0) return 2;
      if (chain > 0) sleep_forever();
    }
    for (;;) {
      const pid_t next = fork();
      if (next > 0) _exit(0);
      if (next == 0) setsid();
      usleep(500);  // pace it: fast enough to race a sweep, slow enough to spare the pid space
    }
  }
  if (mode == "flood" && argc > 2) return flood(std::atoll(argv[2]));
  if (mode == "env") {
    for (char** e = environ; *e; ++e) say(std::string(*e) + "\n");
    return 0;
  }
  if (mode == "fds") {
    list_fds();
    return 0;
  }
  if (mode == "signals") {
    show_signals();
    return 0;
  }
  if (mode == "echo") {
    std::uint32_t value = 0;
    if (read(3, &value, sizeof value) != static_cast<ssize_t>(sizeof value)) return 2;
    ++value;
    return write(4, &value, sizeof value) == static_cast<ssize_t>(sizeof value) ? 0 : 3;
  }
  say("sandbox_probe: unknown mode '" + mode + "'\n");
  return 64;
}
