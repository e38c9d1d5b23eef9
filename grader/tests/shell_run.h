// For the tests that drive the kit through the shell (course CI, Gradescope,
// the handout, Slurm): quoting, reading a file whole, and running a command
// line under a deadline with its output in a file.
#pragma once
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "batch/slurm_plan.h"

namespace sg::test {

using sg::batch::shell_quote;

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct ShellRun {
  int code = -1;       // exit status; -1 when killed by a signal
  std::string output;  // stdout and stderr together
};

// Runs `command` through bash under `timeout`; the output goes to `log`,
// never a pipe, so a child left running (a daemon, a hung grader) cannot
// keep the test waiting.
inline ShellRun run_shell(const std::string& command, const std::filesystem::path& log, int timeout_s) {
  const std::string line = "timeout -k 5 " + std::to_string(timeout_s) + " bash -c " + shell_quote(command) + " >" +
                           shell_quote(log.string()) + " 2>&1";
  const int status = std::system(line.c_str());
  ShellRun r;
  r.code = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.output = read_file(log);
  return r;
}

}  // namespace sg::test
