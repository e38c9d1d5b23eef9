// For tests that check which processes are left: /proc/<pid>/stat fields
// and every descendant of the test process (the sandbox and runner tests).
#pragma once
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sg::test {

struct ProcStat {
  char state = 0;
  long ppid = 0, pgrp = 0, session = 0;
};

// Fields of /proc/<pid>/stat; nothing when no such process (not even a zombie).
// Plain read(): a process that exits mid-read makes it fail with ESRCH,
// which an istreambuf_iterator would turn into an exception.
inline std::optional<ProcStat> proc_stat(long pid) {
  const int fd = open(("/proc/" + std::to_string(pid) + "/stat").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  char buffer[1024];
  const ssize_t n = read(fd, buffer, sizeof buffer);
  close(fd);
  if (n <= 0) return std::nullopt;
  const std::string text(buffer, static_cast<std::size_t>(n));
  const std::size_t close = text.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  ProcStat s;
  if (std::sscanf(text.c_str() + close + 1, " %c %ld %ld %ld", &s.state, &s.ppid, &s.pgrp, &s.session) != 4)
    return std::nullopt;
  return s;
}

// Every process (zombies included) whose parent chain reaches this test process.
inline std::vector<long> my_descendants() {
  std::vector<std::pair<long, long>> all;  // pid, ppid
  if (DIR* dir = opendir("/proc")) {
    while (const dirent* e = readdir(dir)) {
      char* end = nullptr;
      const long pid = std::strtol(e->d_name, &end, 10);
      if (pid <= 0 || *end) continue;
      if (const auto s = proc_stat(pid)) all.emplace_back(pid, s->ppid);
    }
    closedir(dir);
  }
  std::vector<long> found;
  const long self = getpid();
  for (const auto& [pid, ppid] : all) {
    long up = ppid;
    for (std::size_t hops = 0; hops < all.size() && up > 1 && up != self; ++hops) {
      long next = 0;
      for (const auto& [p, pp] : all)
        if (p == up) next = pp;
      up = next;
    }
    if (up == self && pid != self) found.push_back(pid);
  }
  return found;
}

}  // namespace sg::test
