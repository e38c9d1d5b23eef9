// Running a trusted tool (nvcc for the link, compute-sanitizer) with a
// deadline, its output captured to a file. Built on process/process.h.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "process/process.h"
#include "proto/protocol.h"

namespace sg {

struct ToolRun {
  ExitInfo exit;
  std::string output;  // capped, sanitised text
  bool started = false;
  std::string start_error;
  bool went_quiet = false;  // ended for its quiet limit (ToolCommand::quiet_limit_s)
  bool before_gate = false;  // ... before it reached its gate (ToolCommand::requests): it hung in its start-up
  // A gated command's requests answered Ok, in order; when fewer than it
  // had, the next one is where it stopped (failed, hung or ended).
  std::size_t answered = 0;
  std::string refused;  // the message of a request's reply that was not Ok
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
  // Not empty: the command is gated. Its program (the runner, under the
  // tool) gets the protocol's pipes (proto/protocol.h) and is sent a Ping at
  // once: its answer says its start-up is done, and it is then at its gate.
  // In the turn (run_tools' `take_turn`) these requests are sent one at a
  // time, each once the one before was answered Ok, then Quit: the critical
  // part ends with the last answer (or the first that is not Ok).
  std::vector<proto::RunCaseRequest> requests{};
  bool gated() const { return !requests.empty(); }
};

// What a turn holds: `critical` until every gated command has had its last
// request answered or ended (e.g. the GPU's one profiler), `whole` until every command
// has ended (e.g. a shared hold on the GPU, which a command's ending may
// still use). Either may be empty.
struct GateTurn {
  std::shared_ptr<void> critical;
  std::shared_ptr<void> whole;
};
using TakeTurn = std::function<GateTurn()>;

// Runs the commands at once, each with its own deadline and process group;
// returns when all have ended, in the order given. Whatever they left running
// is killed once, after the last one ends (an earlier sweep would take the
// others with it), except `spared`: the caller's own live children (a
// grading's runners, when a tool runs between its cases). `drop_privileges`:
// for commands that execute student code. `sandbox`: for commands that read or run student code (process/sandbox.h).
// Gated commands (ToolCommand::requests): once every one still running waits
// at its gate, `take_turn` is called once and their requests are sent; the
// turn is kept as GateTurn says. For work whose start-up may
// overlap others' but whose middle must not: ncu's profiled launch, the
// sanitizer's checked launches on a GPU that other gradings time on. A
// command can only shorten the critical part (by closing its gate early),
// never lengthen the turn past its deadline, which counts from the spawn to
// the gate and again from the turn; its quiet limit counts from the turn, and
// bounds the time from its spawn to its gate. A reply a runner sends is read
// within kToolReplyReadS once it has begun.
std::vector<ToolRun> run_tools(const std::vector<ToolCommand>& commands, const std::vector<std::string>& env,
                               const std::string& cwd, bool drop_privileges, std::size_t output_cap,
                               bool pid_namespace = true, const Sandbox& sandbox = {}, const TakeTurn& take_turn = {},
                               const std::vector<pid_t>& spared = {}, bool sweep = true);

// One tool that runs no code of a submission (the runner's link): run_tools
// with a single command and no sweep after it, since its own process group
// (and PID namespace) ends with it; a runner the judge started meanwhile (the
// baseline runner, while the submission builds) lives on.
ToolRun run_tool(const std::vector<std::string>& argv, const std::vector<std::string>& env, const std::string& cwd,
                 const std::string& output_file, double timeout_s, bool drop_privileges, std::size_t output_cap,
                 bool pid_namespace = true, const Sandbox& sandbox = {});

// The environment the runner and the tools get: a fixed PATH and only the
// variables CUDA needs to find the device, nothing else of the judge's.
std::vector<std::string> scrubbed_environment(const std::string& home);

}  // namespace sg
