// Running a trusted tool (nvcc for the link, compute-sanitizer) with a
// deadline, its output captured to a file. Built on process/process.h.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "process/process.h"

namespace sg {

struct ToolRun {
  ExitInfo exit;
  std::string output;  // capped, sanitised text
  bool started = false;
  std::string start_error;
  bool went_quiet = false;  // ended for its quiet limit (ToolCommand::quiet_limit_s)
  bool ok() const { return started && exit.exited && exit.code == 0; }
};

// One of several tools run side by side.
struct ToolCommand {
  std::vector<std::string> argv;
  std::string output_file;
  double timeout_s = 0;
  // > 0: the tool is also ended (as past its deadline) once its output file
  // has not grown for this long: a program that reports each step's start
  // and then hangs is stopped long before a deadline sized for all steps.
  double quiet_limit_s = 0;
};

// Runs the commands at once, each with its own deadline and process group;
// returns when all have ended, in the order given. Whatever they left running
// is killed once, after the last one ends (an earlier sweep would take the
// others with it). `drop_privileges`: for commands that execute student code.
// `sandbox`: for commands that read or run student code (process/sandbox.h).
std::vector<ToolRun> run_tools(const std::vector<ToolCommand>& commands, const std::vector<std::string>& env,
                               const std::string& cwd, bool drop_privileges, std::size_t output_cap,
                               bool pid_namespace = true, const Sandbox& sandbox = {});

// One tool: run_tools with a single command.
ToolRun run_tool(const std::vector<std::string>& argv, const std::vector<std::string>& env, const std::string& cwd,
                 const std::string& output_file, double timeout_s, bool drop_privileges, std::size_t output_cap,
                 bool pid_namespace = true, const Sandbox& sandbox = {});

// One tool whose command waits, once its own start-up is done, at `gate`: a
// FIFO made here, which the command opens for reading (e.g. `read -r _ <gate`)
// before its real work. When the tool is waiting there, `take_turn` is
// called and what it returns is kept until the tool has ended; then the
// gate opens (a line is written to it). For work whose start-up may overlap
// others' but whose middle must not: ncu's turn on the GPU's one profiler.
// The deadline counts from the spawn to the gate, and again from the turn.
ToolRun run_gated_tool(const ToolCommand& command, const std::string& gate,
                       const std::function<std::shared_ptr<void>()>& take_turn, const std::vector<std::string>& env,
                       const std::string& cwd, bool drop_privileges, std::size_t output_cap, bool pid_namespace,
                       const Sandbox& sandbox);

// The environment the runner and the tools get: a fixed PATH and only the
// variables CUDA needs to find the device, nothing else of the judge's.
std::vector<std::string> scrubbed_environment(const std::string& home);

}  // namespace sg
