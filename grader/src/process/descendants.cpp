// Finding and killing every process descended from the judge. A runner's
// children can leave its process group (setpgid, setsid) but, with the judge
// a child subreaper, not its ancestry: orphans are reparented to the judge.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_set>
#include <utility>
#include <vector>

#include "process/process.h"

namespace sg {

namespace {

using Clock = std::chrono::steady_clock;

// A fork chain can outpace one scan, so the sweep repeats until it finds
// nothing this many times in a row, or gives up at the deadline (the
// judge never waits without a bound).
constexpr int kQuietScans = 2;
constexpr double kSweepDeadlineS = 3;

// Parent pid from /proc/<pid>/stat, or -1 when the process is gone. The
// command name may contain spaces and ')', so parse after the last ')'.
pid_t parent_of(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%ld/stat", static_cast<long>(pid));
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char stat[512];
  const ssize_t n = read(fd, stat, sizeof stat - 1);
  close(fd);
  if (n <= 0) return -1;
  stat[n] = '\0';
  const char* close_paren = std::strrchr(stat, ')');
  if (!close_paren) return -1;
  char state = 0;
  long ppid = -1;
  if (std::sscanf(close_paren + 1, " %c %ld", &state, &ppid) != 2) return -1;
  return static_cast<pid_t>(ppid);
}

// The children of every thread of `pid`, from /proc/<pid>/task/<tid>/children
// (empty where the kernel lacks the file or the process is gone).
std::vector<pid_t> children_of(pid_t pid) {
  std::vector<pid_t> out;
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%ld/task", static_cast<long>(pid));
  DIR* tasks = opendir(path);
  if (!tasks) return out;
  while (const dirent* t = readdir(tasks)) {
    if (t->d_name[0] < '1' || t->d_name[0] > '9') continue;
    char file[320];
    std::snprintf(file, sizeof file, "/proc/%ld/task/%s/children", static_cast<long>(pid), t->d_name);
    const int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    std::string text;
    char buf[4096];
    for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
    close(fd);
    const char* p = text.c_str();
    for (char* end = nullptr;; p = end) {
      const long child = std::strtol(p, &end, 10);
      if (end == p) break;
      out.push_back(static_cast<pid_t>(child));
    }
  }
  closedir(tasks);
  return out;
}

// One pass over /proc: every live process whose chain of parents reaches
// `root` (root excluded), each sent SIGSTOP the moment it is recognised so
// that it can fork no further while the pass goes on. A child normally has
// a higher pid than its parent and so comes later in /proc; after pid
// wrap-around it may not, which the closure at the end catches. `spared`
// (when not 0) and everything below it are left out.
std::vector<pid_t> stop_descendants_of(pid_t root, const std::unordered_set<pid_t>& spared) {
  std::unordered_set<pid_t> found;
  // First down the tree by each process's list of children: a few small
  // reads per process, fast enough to catch a chain that forks and exits
  // (its orphans come back to us, the subreaper) faster than a scan of the
  // whole of /proc goes on a busy machine.
  for (std::vector<pid_t> todo = children_of(root); !todo.empty();) {
    const pid_t pid = todo.back();
    todo.pop_back();
    if (pid == root || spared.count(pid) || !found.insert(pid).second) continue;
    kill(pid, SIGSTOP);
    for (const pid_t c : children_of(pid)) todo.push_back(c);
  }
  // Then the whole of /proc, for what the lists missed.
  std::vector<std::pair<pid_t, pid_t>> others;  // pid, parent: not (yet) known to descend
  if (DIR* proc = opendir("/proc")) {
    while (const dirent* entry = readdir(proc)) {
      const char* name = entry->d_name;
      if (*name < '1' || *name > '9') continue;
      char* end = nullptr;
      const long number = std::strtol(name, &end, 10);
      if (*end != '\0') continue;
      const auto pid = static_cast<pid_t>(number);
      const pid_t ppid = parent_of(pid);
      if (ppid < 0 || pid == root || spared.count(pid)) continue;
      if (ppid == root || found.count(ppid)) {
        kill(pid, SIGSTOP);
        found.insert(pid);
      } else {
        others.emplace_back(pid, ppid);
      }
    }
    closedir(proc);
  }
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [pid, ppid] : others)
      if (!found.count(pid) && found.count(ppid)) {
        kill(pid, SIGSTOP);
        found.insert(pid);
        grew = true;
      }
  }
  return std::vector<pid_t>(found.begin(), found.end());
}

// Reaps every child that has ended (ours or reparented to us), except the
// spared ones, whose owners still want their exit status; true if any.
bool reap_ended_children(pid_t self, const std::unordered_set<pid_t>& spared) {
  bool any = false;
  int status = 0;
  if (!spared.empty()) {
    for (const pid_t child : children_of(self))
      if (!spared.count(child) && waitpid(child, &status, WNOHANG) > 0) any = true;
    return any;
  }
  for (;;) {
    const pid_t rc = waitpid(-1, &status, WNOHANG);
    if (rc > 0) {
      any = true;
      continue;
    }
    if (rc < 0 && errno == EINTR) continue;
    return any;
  }
}

}  // namespace

void become_subreaper() {
  if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
    throw std::runtime_error(std::string("prctl(PR_SET_CHILD_SUBREAPER): ") + std::strerror(errno));
}

void kill_all_descendants(const std::vector<pid_t>& spared_list) {
  const pid_t self = getpid();
  std::unordered_set<pid_t> spared;
  for (const pid_t p : spared_list)
    if (p > 0) spared.insert(p);
  const auto deadline = Clock::now() + std::chrono::duration<double>(kSweepDeadlineS);
  int quiet = 0;
  int delay_us = 100;
  for (;;) {
    // Freeze first, then kill: a stopped process cannot fork a successor
    // between being seen and being killed.
    const std::vector<pid_t> found = stop_descendants_of(self, spared);
    for (const pid_t pid : found) kill(pid, SIGKILL);
    const bool reaped = reap_ended_children(self, spared);
    // Zombies are descendants too until reaped, so only a scan that finds
    // nothing and reaps nothing counts as quiet.
    quiet = found.empty() && !reaped ? quiet + 1 : 0;
    if (quiet >= kQuietScans || Clock::now() >= deadline) return;
    std::this_thread::sleep_for(std::chrono::microseconds(delay_us));
    delay_us = std::min(delay_us * 2, 5000);
  }
}

}  // namespace sg
