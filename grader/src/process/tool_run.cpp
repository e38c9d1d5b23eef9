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
#include <random>

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
  opts.protocol_pipes = command.gated();
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

// A gated command's conversation with its runner (ToolCommand::requests).
struct Gate {
  enum class State {
    None,     // not gated
    Starting, // the Ping sent, its answer awaited: the runner's start-up
    AtGate,   // the Ping answered: waiting for the turn
    InTurn,   // request `next` sent, its answer awaited
    Finished  // every request answered, one refused, or the runner gone
  };
  State state = State::None;
  std::size_t next = 0;
  std::uint64_t nonce = 0;
};

// Seconds a reply has to arrive in full once it has begun (it carries no data).
constexpr double kToolReplyReadS = 2.0;
constexpr double kToolRequestWriteS = 2.0;

bool send_request(const Child& child, proto::RunCaseRequest q, std::uint64_t nonce) {
  q.nonce = nonce;
  return proto::write_all(child.request_fd(), &q, sizeof(q), kToolRequestWriteS);
}

// Whether the runner has begun a reply (POLLIN) or is gone (POLLHUP alone).
enum class ReplyFd { Quiet, Reply, Gone };
ReplyFd reply_state(const Child& child) {
  pollfd p{child.reply_fd(), POLLIN, 0};
  if (poll(&p, 1, 0) != 1) return ReplyFd::Quiet;
  if (p.revents & POLLIN) return ReplyFd::Reply;
  return (p.revents & (POLLHUP | POLLERR | POLLNVAL)) ? ReplyFd::Gone : ReplyFd::Quiet;
}

// Reads the reply the gate waits for (the runner has begun sending: reply_state).
// False when it is not an Ok answer to the request sent: `refused` says why.
bool read_answer(const Child& child, const proto::RunCaseRequest& q, std::uint64_t nonce, std::string& refused) {
  proto::Reply r;
  std::string error;
  if (!proto::read_reply(child.reply_fd(), r, q.m, q.n, kToolReplyReadS, error, false)) {
    refused = "no answer (" + error + ")";
    return false;
  }
  if (r.header.nonce != nonce) {
    refused = "an answer to another request";
    return false;
  }
  if (r.header.status != proto::ReplyStatus::Ok) {
    refused = r.message.empty() ? "the request failed" : r.message;
    return false;
  }
  return true;
}

}  // namespace

std::vector<ToolRun> run_tools(const std::vector<ToolCommand>& commands, const std::vector<std::string>& env,
                               const std::string& cwd, bool drop_privileges, std::size_t output_cap,
                               bool pid_namespace, const Sandbox& sandbox, const TakeTurn& take_turn,
                               const std::vector<pid_t>& spared, bool sweep) {
  const std::size_t n = commands.size();
  std::vector<ToolRun> runs(n);
  std::vector<std::optional<Child>> children(n);
  std::vector<Clock::time_point> deadlines(n);
  std::vector<Gate> gates(n);
  std::uint64_t nonce = std::random_device{}();
  for (std::size_t i = 0; i < n; ++i) {
    deadlines[i] = deadline_after(commands[i].timeout_s);
    children[i] =
        Child::spawn(tool_spawn_options(commands[i], env, cwd, drop_privileges, pid_namespace, sandbox),
                     runs[i].start_error);
    runs[i].started = children[i].has_value();
    if (!children[i] || !commands[i].gated()) continue;
    gates[i].nonce = ++nonce;
    gates[i].state = send_request(*children[i], proto::ping_request(), gates[i].nonce) ? Gate::State::Starting
                                                                                : Gate::State::Finished;
  }
  // Quiet limits count from the turn for gated commands: before it they wait
  // silently. Their start-up must still reach the gate within that limit (a
  // program that hangs before its first launch, e.g. in a static constructor).
  const auto spawned = Clock::now();
  std::vector<std::optional<QuietWatch>> watches(n);
  for (std::size_t i = 0; i < n; ++i)
    if (!commands[i].gated()) watches[i].emplace(commands[i].output_file, commands[i].quiet_limit_s);
  GateTurn turn;  // may hold null pointers with deleters: critical_held says whether that part is held
  bool turn_taken = false, critical_held = false;
  // Each child is reaped as it ends or passes its deadline, without the
  // sweep; the sweep comes once, after the last.
  std::vector<bool> done(n);
  std::size_t left = 0;
  for (const auto& c : children) left += c.has_value();
  // The runner of command i answered (or failed to): the next step of its conversation.
  // A runner that is gone without a word refused nothing: it ended (ToolRun::answered says where).
  auto on_answer = [&](std::size_t i, bool gone) {
    Gate& g = gates[i];
    const Child& child = *children[i];
    const proto::RunCaseRequest asked = g.state == Gate::State::Starting ? proto::ping_request() : commands[i].requests[g.next];
    std::string refused;
    if (gone || !read_answer(child, asked, g.nonce, refused)) {
      if (g.state == Gate::State::InTurn) runs[i].refused = refused;
      g.state = Gate::State::Finished;
      send_request(child, proto::quit_request(), 0);
      return;
    }
    if (g.state == Gate::State::Starting) {
      g.state = Gate::State::AtGate;
      return;
    }
    runs[i].answered = ++g.next;
    if (g.next < commands[i].requests.size()) {
      g.nonce = ++nonce;
      if (send_request(child, commands[i].requests[g.next], g.nonce)) return;
    }
    g.state = Gate::State::Finished;
    send_request(child, proto::quit_request(), 0);
  };
  int delay_us = 200;
  while (left > 0) {
    bool any = false;
    for (std::size_t i = 0; i < n; ++i) {
      Gate& g = gates[i];
      if ((g.state != Gate::State::Starting && g.state != Gate::State::InTurn) || done[i]) continue;
      const ReplyFd fd = reply_state(*children[i]);
      if (fd == ReplyFd::Quiet) continue;
      on_answer(i, fd == ReplyFd::Gone);
      any = true;
    }
    const bool all_at_gates =
        !turn_taken && std::none_of(gates.begin(), gates.end(), [](const Gate& g) { return g.state == Gate::State::Starting; });
    if (all_at_gates && std::any_of(gates.begin(), gates.end(), [](const Gate& g) { return g.state == Gate::State::AtGate; })) {
      if (take_turn) turn = take_turn();
      turn_taken = critical_held = true;
      for (std::size_t i = 0; i < n; ++i) {
        Gate& g = gates[i];
        if (g.state != Gate::State::AtGate) continue;
        deadlines[i] = deadline_after(commands[i].timeout_s);
        watches[i].emplace(commands[i].output_file, commands[i].quiet_limit_s);
        g.nonce = ++nonce;
        g.state = send_request(*children[i], commands[i].requests[0], g.nonce) ? Gate::State::InTurn
                                                                                : Gate::State::Finished;
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (!children[i] || done[i]) continue;
      const auto now = Clock::now();
      const bool stuck_before_gate = gates[i].state == Gate::State::Starting && commands[i].quiet_limit_s > 0 &&
                                     now - spawned > std::chrono::duration<double>(commands[i].quiet_limit_s);
      if (!children[i]->ended() && ((watches[i] && watches[i]->quiet()) || stuck_before_gate)) {
        runs[i].went_quiet = true;
        runs[i].before_gate = stuck_before_gate;
        deadlines[i] = now;
      }
      if (!children[i]->ended() && now < deadlines[i]) continue;
      // A runner that ended right after answering left its answers in the
      // pipe: they are read before it counts as gone (bounded by its requests).
      while (children[i]->ended() &&
             (gates[i].state == Gate::State::Starting || gates[i].state == Gate::State::InTurn) &&
             reply_state(*children[i]) == ReplyFd::Reply)
        on_answer(i, false);
      runs[i].exit = children[i]->wait(0, false);  // ended: reaps it; past its deadline or quiet: kills its group
      done[i] = true;
      --left;
      any = true;
      if (gates[i].state != Gate::State::None) gates[i].state = Gate::State::Finished;
    }
    // The critical part ends once no gated command has a request in flight.
    if (critical_held && std::none_of(gates.begin(), gates.end(), [](const Gate& g) { return g.state == Gate::State::InTurn; })) {
      turn.critical.reset();
      critical_held = false;
    }
    if (left == 0) break;
    if (any) delay_us = 200;
    backoff_sleep(delay_us);
  }
  if (sweep) kill_all_descendants(spared);
  turn = {};
  for (std::size_t i = 0; i < n; ++i)
    if (runs[i].started) runs[i].output = read_capped_text(commands[i].output_file, output_cap);
  return runs;
}

ToolRun run_tool(const std::vector<std::string>& argv, const std::vector<std::string>& env, const std::string& cwd,
                 const std::string& output_file, double timeout_s, bool drop_privileges, std::size_t output_cap,
                 bool pid_namespace, const Sandbox& sandbox) {
  return run_tools({{argv, output_file, timeout_s}}, env, cwd, drop_privileges, output_cap, pid_namespace, sandbox, {},
                   {}, false)
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
