// Running a batch's gradings in `grade worker` processes (cli/grade_worker.h),
// one worker a slot, each started by the one spawn API (process/process.h):
// its own process group, a wall-clock limit per grading, and every process a
// worker leaves behind killed. A slot's gradings go to its worker one after
// another, so that the judge's trusted state (its CUDA context) is started
// once a worker instead of once a grading. A worker that crashes, is killed
// past a grading's limit, or ends itself after an internal error takes only
// its current grading with it; the slot's next grading starts a fresh one.
// Single-threaded by design: the batch's main thread forks every child, so
// PR_SET_PDEATHSIG (which fires when the forking *thread* exits) ties each
// worker to the batch's lifetime.
#pragma once
#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "process/process.h"

namespace sg::batch {

// A worker is ended and started afresh after this many gradings: whatever
// the judge's libraries (the driver, CUPTI) may keep growing stays bounded,
// at one process start-up per this many gradings.
constexpr int kGradingsPerWorker = 32;

struct GradeJob {
  std::size_t index = 0;               // caller's handle (position in its list)
  int slot = 0;                        // the worker that grades it: one grading at a time a slot
  std::vector<std::string> worker;     // the worker's argv ({grade, "worker"}), argv[0] the program path
  std::vector<std::string> env;        // the worker's complete environment ("K=V")
  std::vector<std::string> args;       // the grading, as `grade` takes its arguments
  std::string log_file;                // the grading's stdout and stderr (truncated)
  double time_limit_s = 0;             // the worker is killed when its grading exceeds it (0: none)
};

struct FinishedJob {
  std::size_t index = 0;
  bool exited = false;   // the grading ended (code valid)
  int code = 0;
  int signal = 0;        // the worker's terminating signal otherwise
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
  explicit GradePool(int gradings_per_worker = kGradingsPerWorker);  // makes this process a child subreaper
  ~GradePool();             // tells idle workers to end; kills whatever is still running
  GradePool(const GradePool&) = delete;
  GradePool& operator=(const GradePool&) = delete;

  // Sends the job to its slot's worker, started first where there is none
  // (or it ended, or runs with another program or environment). The slot
  // must be free. A failure to start comes back from the next wait().
  void start(const GradeJob& job);
  std::size_t running() const;  // gradings under way
  // Waits up to `max_wait_s` for gradings to end; returns those that ended.
  // Kills workers past their grading's limit and sweeps orphans the killed left.
  std::vector<FinishedJob> wait(double max_wait_s);

 private:
  using Clock = std::chrono::steady_clock;
  struct Grading {
    std::size_t index;
    Clock::time_point started;
    double limit_s;
  };
  struct Worker {
    Child child;
    std::vector<std::string> argv, env;
    std::optional<Grading> grading;  // the one it is doing, if any
    int graded = 0;
    std::string replies;             // what it answered, up to a whole line
  };
  // The slot's worker, started if needed; nullptr with `error` when it cannot be.
  Worker* worker_for(const GradeJob& job, std::string& error);
  using Workers = std::map<int, Worker>;  // by slot
  // Tells the worker to end (end of file on its jobs) and forgets it; the next one.
  Workers::iterator retire(Workers::iterator it);
  // Reads what `w` answered; its grading's reply once a whole line came.
  std::optional<std::string> reply_line(Worker& w);
  // Collects the gradings that ended or passed their limit (those workers are killed).
  void collect(std::vector<FinishedJob>& done);
  FinishedJob ended(const Grading& g, const ExitInfo& exit, bool timed_out) const;
  // Kills what ended workers left behind, sparing the live ones.
  void sweep_orphans();
  int gradings_per_worker_;
  Workers workers_;
  std::vector<Child> retiring_;    // told to end, not yet reaped
  std::vector<FinishedJob> failed_starts_;
};

}  // namespace sg::batch
