#include "process/tool_process.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <optional>

#include "process/process.h"

extern char** environ;

namespace sg::build {
namespace {

// What a trusted tool may write (objects, temporaries, its captured output).
constexpr long long kToolFileBytes = 1LL << 30;

}  // namespace

ToolResult run_build_tool(const std::vector<std::string>& argv, double timeout_s, std::size_t cap) {
  using Clock = std::chrono::steady_clock;
  ToolResult r;
  const auto t0 = Clock::now();
  if (argv.empty()) {
    r.error = "no program to run";
    return r;
  }
  SpawnOptions opts;
  opts.argv = argv;
  opts.argv[0] = find_program(argv[0]);
  if (opts.argv[0].empty()) {
    r.error = "cannot find an executable `" + argv[0] + "`";
    return r;
  }
  for (char** e = environ; e && *e; ++e) opts.env.emplace_back(*e);
  opts.drop_privileges = false;  // trusted tools, the judge's own files
  opts.protocol_pipes = false;
  opts.pid_namespace = false;
  opts.limits = Limits::inherited();
  opts.limits.file_bytes = std::max<long long>(kToolFileBytes, static_cast<long long>(cap));
  std::optional<Child> child = Child::spawn(opts, r.error);
  if (!child) return r;
  r.started = true;
  // No sweep: other children of the judge (a runner started early) are not this tool's.
  const ExitInfo exit = child->wait(std::max(0.0, timeout_s), false);
  r.timed_out = exit.timed_out;
  r.exited = exit.exited && !exit.timed_out;
  r.code = r.exited ? exit.code : -1;
  r.signal = exit.timed_out ? 0 : exit.signal;
  const Child::Output out = child->captured_output(cap);
  r.output = out.text;
  r.truncated = out.truncated;
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

}  // namespace sg::build
