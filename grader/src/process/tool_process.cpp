#include "process/tool_process.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>

#include "process/process.h"

extern char** environ;

namespace sg::build {
namespace {

// What a trusted tool may write (objects, temporaries, its captured output).
constexpr long long kToolFileBytes = 1LL << 30;
// A compiler's address space: nvcc's stages and cc1plus need well under
// 2 GiB for any honest kernel (nvcc -O3 of the reference builds under a
// 2 GiB limit); twice that leaves room.
constexpr long long kCompileAddressSpace = 4LL << 30;

}  // namespace

Limits compile_limits(double timeout_s) {
  Limits l = Limits::inherited();
  l.file_bytes = kToolFileBytes;
  l.address_space_bytes = kCompileAddressSpace;
  l.cpu_seconds = std::max(1.0, timeout_s);  // per process: a stage that spins ends even if the clock is generous
  return l;
}

ToolResult run_build_tool(const std::vector<std::string>& argv, double timeout_s, std::size_t cap,
                          const Sandbox& sandbox) {
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
  const bool sandboxed = sandbox.profile != SandboxProfile::None && !sandbox.bwrap.empty();
  for (char** e = environ; e && *e; ++e) {
    // In the sandbox the judge's TMPDIR is not visible; its private /tmp is.
    if (sandboxed && std::strncmp(*e, "TMPDIR=", 7) == 0) continue;
    opts.env.emplace_back(*e);
  }
  if (sandboxed) opts.env.emplace_back("TMPDIR=/tmp");
  opts.drop_privileges = false;  // trusted tools, the judge's own files
  opts.protocol_pipes = false;
  opts.pid_namespace = false;
  opts.limits = Limits::inherited();
  if (sandbox.profile == SandboxProfile::Compile) opts.limits = compile_limits(timeout_s);
  opts.limits.file_bytes = std::max<long long>(kToolFileBytes, static_cast<long long>(cap));
  opts.sandbox = sandbox;
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
