// Running a trusted tool (nvcc for the link, compute-sanitizer) with a
// deadline, its output captured to a file. Built on sandbox/process.h.
#pragma once
#include <string>
#include <vector>

#include "sandbox/process.h"

namespace sg {

struct ToolRun {
  ExitInfo exit;
  std::string output;  // capped, sanitised text
  bool started = false;
  std::string start_error;
  bool ok() const { return started && exit.exited && exit.code == 0; }
};

// `drop_privileges`: for commands that execute student code (the sanitizer).
ToolRun run_tool(const std::vector<std::string>& argv, const std::vector<std::string>& env, const std::string& cwd,
                 const std::string& output_file, double timeout_s, bool drop_privileges, std::size_t output_cap,
                 bool pid_namespace = true);

// The environment the runner and the tools get: a fixed PATH and only the
// variables CUDA needs to find the device, nothing else of the judge's.
std::vector<std::string> scrubbed_environment(const std::string& home);

}  // namespace sg
