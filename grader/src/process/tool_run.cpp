#include "process/tool_run.h"

#include <fcntl.h>
#include <poll.h>
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

// A gated command's gate: the FIFO made for it and, once its reader is there,
// the write end (kept open: it polls POLLERR once the reader has closed it).
struct Gate {
  enum class State { None, Waiting, AtGate, Open, Closed };
  State state = State::None;
  int fd = -1;
  ~Gate() {
    if (fd >= 0) close(fd);
  }
};

bool make_gate(const std::string& path, std::string& error) {
  unlink(path.c_str());
  if (mkfifo(path.c_str(), 0644) != 0 || chmod(path.c_str(), 0644) != 0) {
    error = "cannot make the FIFO " + path + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

}  // namespace

std::vector<ToolRun> run_tools(const std::vector<ToolCommand>& commands, const std::vector<std::string>& env,
                               const std::string& cwd, bool drop_privileges, std::size_t output_cap,
                               bool pid_namespace, const Sandbox& sandbox, const TakeTurn& take_turn) {
  const std::size_t n = commands.size();
  std::vector<ToolRun> runs(n);
  std::vector<std::optional<Child>> children(n);
  std::vector<Clock::time_point> deadlines(n);
  std::vector<Gate> gates(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!commands[i].gate.empty()) {
      if (!make_gate(commands[i].gate, runs[i].start_error)) continue;
      gates[i].state = Gate::State::Waiting;
    }
    deadlines[i] = deadline_after(commands[i].timeout_s);
    children[i] =
        Child::spawn(tool_spawn_options(commands[i], env, cwd, drop_privileges, pid_namespace, sandbox),
                     runs[i].start_error);
    runs[i].started = children[i].has_value();
  }
  // Quiet limits count from the turn for gated commands: before it they wait
  // silently. Their start-up must still reach the gate within that limit (a
  // program that hangs before its first launch, e.g. in a static constructor).
  const auto spawned = Clock::now();
  std::vector<std::optional<QuietWatch>> watches(n);
  for (std::size_t i = 0; i < n; ++i)
    if (gates[i].state == Gate::State::None) watches[i].emplace(commands[i].output_file, commands[i].quiet_limit_s);
  GateTurn turn;  // may hold null pointers with deleters: critical_held says whether that part is held
  bool turn_taken = false, critical_held = false;
  // Each child is reaped as it ends or passes its deadline, without the
  // sweep; the sweep comes once, after the last.
  std::vector<bool> done(n);
  std::size_t left = 0;
  for (const auto& c : children) left += c.has_value();
  int delay_us = 200;
  while (left > 0) {
    bool any = false;
    // A gated command is at its gate once it has the FIFO open for reading:
    // until then, opening it to write without blocking fails with ENXIO.
    bool all_at_gates = !turn_taken;
    for (std::size_t i = 0; i < n; ++i) {
      Gate& g = gates[i];
      if (g.state == Gate::State::Waiting && children[i] && !done[i] && !children[i]->ended()) {
        g.fd = open(commands[i].gate.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (g.fd >= 0) {
          g.state = Gate::State::AtGate;
          any = true;
        }
      }
      if (g.state == Gate::State::Waiting && children[i] && !done[i]) all_at_gates = false;
      if (g.state == Gate::State::Open) {
        pollfd p{g.fd, 0, 0};
        if (poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP | POLLNVAL))) {
          close(g.fd);
          g.fd = -1;
          g.state = Gate::State::Closed;
          any = true;
        }
      }
    }
    if (all_at_gates && std::any_of(gates.begin(), gates.end(), [](const Gate& g) { return g.state == Gate::State::AtGate; })) {
      if (take_turn) turn = take_turn();
      turn_taken = critical_held = true;
      for (std::size_t i = 0; i < n; ++i) {
        Gate& g = gates[i];
        if (g.state != Gate::State::AtGate) continue;
        deadlines[i] = deadline_after(commands[i].timeout_s);
        watches[i].emplace(commands[i].output_file, commands[i].quiet_limit_s);
        const bool opened = write(g.fd, "go\n", 3) == 3;
        g.state = opened ? Gate::State::Open : Gate::State::Closed;  // not opened: the tool reads EOF and gives up
        if (!opened) {
          close(g.fd);
          g.fd = -1;
        }
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (!children[i] || done[i]) continue;
      const auto now = Clock::now();
      const bool stuck_before_gate = gates[i].state == Gate::State::Waiting && commands[i].quiet_limit_s > 0 &&
                                     now - spawned > std::chrono::duration<double>(commands[i].quiet_limit_s);
      if (!children[i]->ended() && ((watches[i] && watches[i]->quiet()) || stuck_before_gate)) {
        runs[i].went_quiet = true;
        runs[i].before_gate = stuck_before_gate;
        deadlines[i] = now;
      }
      if (!children[i]->ended() && now < deadlines[i]) continue;
      runs[i].exit = children[i]->wait(0, false);  // ended: reaps it; past its deadline or quiet: kills its group
      done[i] = true;
      --left;
      any = true;
      if (gates[i].fd >= 0) {
        close(gates[i].fd);
        gates[i].fd = -1;
      }
      gates[i].state = gates[i].state == Gate::State::None ? Gate::State::None : Gate::State::Closed;
    }
    // The turn ends once no gated command is inside its gate.
    if (critical_held && std::none_of(gates.begin(), gates.end(), [](const Gate& g) { return g.state == Gate::State::Open; })) {
      turn.critical.reset();
      critical_held = false;
    }
    if (left == 0) break;
    if (any) delay_us = 200;
    backoff_sleep(delay_us);
  }
  kill_all_descendants();
  turn = {};
  for (std::size_t i = 0; i < n; ++i) {
    if (!commands[i].gate.empty()) unlink(commands[i].gate.c_str());
    if (runs[i].started) runs[i].output = read_capped_text(commands[i].output_file, output_cap);
  }
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
