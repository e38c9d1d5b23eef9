// Running many `grade` processes at once, each started by the one spawn API
// (process/process.h): its own process group, its output in a log file (never
// a pipe), a wall-clock limit, and every process it leaves behind killed.
// Single-threaded by design: the batch's main thread forks every child, so
// PR_SET_PDEATHSIG (which fires when the forking *thread* exits) ties each
// grade process to the batch's lifetime.
#pragma once
#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "process/process.h"

namespace sg::batch {

struct GradeJob {
  std::size_t index = 0;               // caller's handle (position in its list)
  std::vector<std::string> argv;       // argv[0] = program path
  std::vector<std::string> env;        // complete environment ("K=V")
  std::string log_file;                // stdout and stderr go here (truncated)
  double time_limit_s = 0;             // kill the group when exceeded (0: none)
};

struct FinishedJob {
  std::size_t index = 0;
  bool exited = false;   // normal exit (code valid)
  int code = 0;
  int signal = 0;        // terminating signal otherwise
  bool timed_out = false;
  bool spawn_failed = false;
  std::string error;     // why spawning failed
  double seconds = 0;
  ExitInfo exit() const { return {exited, code, signal, timed_out}; }
  // words/batch_report's sentence: "the grade process exited with code 3", "... killed by signal 9", ...
  std::string describe() const;
};

class GradePool {
 public:
  GradePool();              // makes this process a child subreaper
  ~GradePool();             // kills whatever is still running
  GradePool(const GradePool&) = delete;
  GradePool& operator=(const GradePool&) = delete;

  // Starts the job now; a failure to start comes back from the next wait().
  void start(const GradeJob& job);
  std::size_t running() const { return running_.size(); }
  // Waits up to `max_wait_s` for children to end; returns those that ended.
  // Kills groups past their limit and sweeps orphans the killed groups left.
  std::vector<FinishedJob> wait(double max_wait_s);
  void kill_all();

 private:
  using Clock = std::chrono::steady_clock;
  struct Running {
    Child child;
    std::size_t index;
    Clock::time_point started;
    double limit_s;
  };
  // Collects the children that ended or passed their limit (those are killed).
  void collect(std::vector<FinishedJob>& done);
  // Kills what ended grade processes left behind, sparing the running ones.
  void sweep_orphans();
  std::map<pid_t, Running> running_;
  std::vector<FinishedJob> failed_starts_;
};

}  // namespace sg::batch
