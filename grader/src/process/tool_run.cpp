#include "process/tool_run.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>

namespace sg {
namespace {

using Clock = std::chrono::steady_clock;

Clock::time_point deadline_after(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(std::max(0.0, seconds)));
}

SpawnOptions tool_spawn_options(const ToolCommand& command, const std::vector<std::string>& env,
                                const std::string& cwd, bool drop_privileges, bool pid_namespace,
                                const Sandbox& sandbox) {
  SpawnOptions opts;
  opts.argv = command.argv;
  opts.env = env;
  opts.workdir = cwd;
  opts.output_file = command.output_file;
  opts.drop_privileges = drop_privileges;
  opts.protocol_pipes = false;
  opts.pid_namespace = pid_namespace;
  opts.sandbox = sandbox;
  return opts;
}

// Watches a tool's output file for ToolCommand::quiet_limit_s: quiet() is
// true once the file has not grown for that long since the watch was made.
class QuietWatch {
 public:
  QuietWatch(const std::string& file, double limit_s) : file_(file), limit_s_(limit_s) {}
  bool quiet() {
    if (limit_s_ <= 0) return false;
    const auto now = Clock::now();
    struct stat st {};
    const long long size = stat(file_.c_str(), &st) == 0 ? static_cast<long long>(st.st_size) : 0;
    if (size != size_) {
      size_ = size;
      grew_ = now;
      return false;
    }
    return now - grew_ > std::chrono::duration<double>(limit_s_);
  }

 private:
  std::string file_;
  double limit_s_;
  long long size_ = -1;
  Clock::time_point grew_ = Clock::now();
};

}  // namespace

std::vector<ToolRun> run_tools(const std::vector<ToolCommand>& commands, const std::vector<std::string>& env,
                               const std::string& cwd, bool drop_privileges, std::size_t output_cap,
                               bool pid_namespace, const Sandbox& sandbox) {
  std::vector<ToolRun> runs(commands.size());
  std::vector<std::optional<Child>> children(commands.size());
  std::vector<Clock::time_point> deadlines(commands.size());
  for (std::size_t i = 0; i < commands.size(); ++i) {
    deadlines[i] = deadline_after(commands[i].timeout_s);
    children[i] =
        Child::spawn(tool_spawn_options(commands[i], env, cwd, drop_privileges, pid_namespace, sandbox),
                     runs[i].start_error);
    runs[i].started = children[i].has_value();
  }
  // Each child is reaped as it ends or passes its deadline, without the
  // sweep; the sweep comes once, after the last.
  std::vector<bool> done(commands.size());
  std::vector<QuietWatch> watches;
  for (const ToolCommand& c : commands) watches.emplace_back(c.output_file, c.quiet_limit_s);
  std::size_t left = 0;
  for (const auto& c : children) left += c.has_value();
  int delay_us = 200;
  while (left > 0) {
    bool any = false;
    for (std::size_t i = 0; i < children.size(); ++i) {
      if (!children[i] || done[i]) continue;
      const auto now = Clock::now();
      if (!children[i]->ended() && watches[i].quiet()) {
        runs[i].went_quiet = true;
        deadlines[i] = now;
      }
      if (!children[i]->ended() && now < deadlines[i]) continue;
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

ToolRun run_gated_tool(const ToolCommand& command, const std::string& gate,
                       const std::function<std::shared_ptr<void>()>& take_turn, const std::vector<std::string>& env,
                       const std::string& cwd, bool drop_privileges, std::size_t output_cap, bool pid_namespace,
                       const Sandbox& sandbox) {
  ToolRun run;
  unlink(gate.c_str());
  if (mkfifo(gate.c_str(), 0644) != 0 || chmod(gate.c_str(), 0644) != 0) {
    run.start_error = "cannot make the FIFO " + gate + ": " + std::strerror(errno);
    return run;
  }
  std::optional<Child> child = Child::spawn(
      tool_spawn_options(command, env, cwd, drop_privileges, pid_namespace, sandbox), run.start_error);
  run.started = child.has_value();
  if (child) {
    auto deadline = deadline_after(command.timeout_s);
    std::shared_ptr<void> turn;
    bool gate_opened = false;
    int delay_us = 200;
    // The tool is at the gate once it has the FIFO open for reading: until
    // then, opening it to write without blocking fails with ENXIO.
    while (!child->ended() && Clock::now() < deadline) {
      const int fd = open(gate.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
      if (fd >= 0) {
        turn = take_turn();
        deadline = deadline_after(command.timeout_s);
        gate_opened = write(fd, "go\n", 3) == 3;
        close(fd);
        if (!gate_opened) turn.reset();  // the tool reads EOF and gives up
        break;
      }
      if (errno != ENXIO) break;  // the FIFO is gone: the tool waits until its deadline
      backoff_sleep(delay_us);
    }
    // Quiet only counts from the turn on: before it the tool waits silently.
    QuietWatch watch(command.output_file, gate_opened ? command.quiet_limit_s : 0);
    while (!child->ended() && Clock::now() < deadline) {
      if (watch.quiet()) {
        run.went_quiet = true;
        break;
      }
      backoff_sleep(delay_us);
    }
    run.exit = child->wait(0, false);  // ended: reaps it; past its deadline or quiet: kills its group
    kill_all_descendants();
    turn.reset();
    run.output = read_capped_text(command.output_file, output_cap);
  }
  unlink(gate.c_str());
  return run;
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
