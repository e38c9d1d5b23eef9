#include "process/tool_run.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>

namespace sg {

std::vector<ToolRun> run_tools(const std::vector<ToolCommand>& commands, const std::vector<std::string>& env,
                               const std::string& cwd, bool drop_privileges, std::size_t output_cap,
                               bool pid_namespace, const Sandbox& sandbox) {
  using Clock = std::chrono::steady_clock;
  std::vector<ToolRun> runs(commands.size());
  std::vector<std::optional<Child>> children(commands.size());
  std::vector<Clock::time_point> deadlines(commands.size());
  for (std::size_t i = 0; i < commands.size(); ++i) {
    SpawnOptions opts;
    opts.argv = commands[i].argv;
    opts.env = env;
    opts.workdir = cwd;
    opts.output_file = commands[i].output_file;
    opts.drop_privileges = drop_privileges;
    opts.protocol_pipes = false;
    opts.pid_namespace = pid_namespace;
    opts.sandbox = sandbox;
    deadlines[i] = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                      std::chrono::duration<double>(std::max(0.0, commands[i].timeout_s)));
    children[i] = Child::spawn(opts, runs[i].start_error);
    runs[i].started = children[i].has_value();
  }
  // Each child is reaped as it ends or passes its deadline, without the
  // sweep; the sweep comes once, after the last.
  std::vector<bool> done(commands.size());
  std::size_t left = 0;
  for (const auto& c : children) left += c.has_value();
  int delay_us = 200;
  while (left > 0) {
    bool any = false;
    for (std::size_t i = 0; i < children.size(); ++i) {
      if (!children[i] || done[i]) continue;
      if (!children[i]->ended() && Clock::now() < deadlines[i]) continue;
      runs[i].exit = children[i]->wait(0, false);  // ended: reaps it; past its deadline: kills its group
      done[i] = true;
      --left;
      any = true;
    }
    if (left == 0) break;
    if (any) delay_us = 200;
    backoff_sleep(delay_us);
  }
  kill_all_descendants();
  for (std::size_t i = 0; i < commands.size(); ++i)
    if (runs[i].started) runs[i].output = read_capped_text(commands[i].output_file, output_cap);
  return runs;
}

ToolRun run_tool(const std::vector<std::string>& argv, const std::vector<std::string>& env, const std::string& cwd,
                 const std::string& output_file, double timeout_s, bool drop_privileges, std::size_t output_cap,
                 bool pid_namespace, const Sandbox& sandbox) {
  return run_tools({{argv, output_file, timeout_s}}, env, cwd, drop_privileges, output_cap, pid_namespace, sandbox)
      .front();
}

std::vector<std::string> scrubbed_environment(const std::string& home) {
  std::vector<std::string> env = {"PATH=/usr/local/cuda/bin:/usr/bin:/bin", "HOME=" + home, "LANG=C", "LC_ALL=C",
                                  "CUDA_CACHE_DISABLE=1", "TMPDIR=" + home};
  // The driver's location and the device choice are the TA's settings, not the student's.
  for (const char* name : {"LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES",
                           "NVIDIA_DRIVER_CAPABILITIES", "CUDA_DEVICE_ORDER"}) {
    if (const char* v = std::getenv(name)) env.push_back(std::string(name) + "=" + v);
  }
  return env;
}

}  // namespace sg
