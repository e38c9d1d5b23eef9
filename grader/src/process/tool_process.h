// Running a trusted build tool (nvcc, nm, objdump) with a deadline, its output
// captured in memory and capped: a thin caller of Child::spawn (process.h).
// The tool runs in its own process group so a timeout kills everything it started.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "process/process.h"
#include "process/program_path.h"
#include "process/sandbox.h"

namespace sg::build {

struct ToolResult {
  bool started = false;    // exec succeeded (false: `error` says why)
  bool exited = false;     // ended normally (not by a signal, not killed on timeout)
  int code = -1;           // exit code when exited
  int signal = 0;          // terminating signal otherwise
  bool timed_out = false;  // killed at the deadline
  std::string output;      // stdout and stderr interleaved, at most `cap` bytes, cleaned (io/clean_text.h)
  bool truncated = false;  // the tool wrote more than `cap` bytes
  std::string error;       // why the tool could not be started
  double seconds = 0;

  bool succeeded() const { return started && exited && code == 0 && !timed_out; }
};

// Runs argv[0] (searched in PATH when it has no '/') with the current
// environment and stdin from /dev/null. Never waits past `timeout_s`.
// `sandbox`: for tools that read student input (the compilers), which then
// also get the compile limits (address space, CPU time).
ToolResult run_build_tool(const std::vector<std::string>& argv, double timeout_s, std::size_t cap,
                          const Sandbox& sandbox = {});

// The limits of a compiler run on student code, sandboxed or not: an
// `#include </dev/zero>` or a pathological template must end in an error,
// not take the machine's memory.
Limits compile_limits(double timeout_s);

}  // namespace sg::build
