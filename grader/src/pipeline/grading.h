// The context of one grading, which every stage reads and extends: the
// suite, the options, the backend, the build, the runners and the result
// being filled. Stages are functions over it (pipeline/stages.h); the run
// order is pipeline/grade.cpp.
#pragma once
#include <atomic>
#include <chrono>
#include <cstddef>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "compare/diagnosis.h"
#include "measure/baseline_book.h"
#include "measure/timed_case.h"
#include "model/result.h"
#include "model/suite.h"
#include "pipeline/checks.h"
#include "pipeline/early_baselines.h"
#include "pipeline/grade.h"
#include "services/elapsed.h"
#include "services/inputs.h"
#include "services/runner_session.h"
#include "services/submission.h"
#include "services/work_dir.h"

namespace sg {

// A case's inputs and FP64 oracle result.
struct PreparedCase {
  CaseInputs in;
  std::vector<double> c64, abs_ab;
  // Where the oracle is still being computed beside the case's run (Backend::oracle_on_host).
  std::shared_future<void> oracle;
};

// How much of the program's output a result keeps.
constexpr std::size_t kStudentOutputCap = 64 << 10;

struct Grading {
  Grading(const Suite& suite, const GradeOptions& opts, const GraderPaths& paths)
      : suite(suite),
        opts(opts),
        paths(paths),
        work(opts.work_root, opts.keep_work, paths.sandbox.identity.run_as, opts.mounts) {}

  const Suite& suite;
  const GradeOptions& opts;
  const GraderPaths& paths;
  WorkDir work;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  GradeResult r;
  LocatedSubmission sub;
  std::unique_ptr<Backend> backend;
  BuildOutput build;
  RunnerConfig runner_config;  // how this grading's runners are started
  // How the runner starts under compute-sanitizer and ncu: a scratch folder
  // of its own (tool-scratch/), so that a tool's run, which may run beside
  // the judge reading the timed outputs, cannot reach them.
  RunnerConfig tool_config;
  // Before session, so that it outlives session's sweeps (RunnerSession::spare).
  std::unique_ptr<RunnerSession> baseline;  // the grader's baseline runner, where cases are timed
  std::unique_ptr<RunnerSession> session;
  // The device held to itself for the counted launches (pipeline/case_run.cpp),
  // released before the performance cases' checks (performance_stage.cpp).
  // After backend, which it reports to.
  std::unique_ptr<DeviceHold> alone;
  // A grading alone: its baselines timed while the submission built
  // (pipeline/early_baselines.h), while they are, then the records they left.
  // After backend and the runners, which it uses (destroyed before them).
  std::unique_ptr<EarlyBaselines> early_baselines;
  std::vector<BaselineRecord> early_records;
  // A grading alone: the counted case's load counter, made and enabled on a
  // second thread while the other correctness cases run (correctness_stage.cpp).
  std::future<std::unique_ptr<LoadWindows>> windows_ahead;
  std::vector<TimedCase> to_time;  // performance cases checked correct, waiting for their timing
  std::vector<SizeOutcome> outcomes;
  std::vector<CountedCase> counted;  // each case's checked launch as the CPU layer counted it
  // Correctness cases whose runner reported an out-of-bounds access, or stores
  // of two blocks racing (the CPU layer's reports): facts the sanitizer check reads.
  std::vector<std::string> cases_out_of_bounds, cases_with_block_races;
  // Correctness cases whose output a bug's prediction reproduced: their own
  // diagnoses say what is wrong, so the rules across sizes add nothing there.
  std::vector<std::string> cases_reproduced;
  bool a_case_hung = false;          // later cases get case_time_limit_after_hang
  std::mutex oracle_mutex;           // the cases' oracles are made on a second thread
  std::mutex hold_stats_mutex;
  double shared_wait_s = 0;  // time spent waiting for untimed holds
  int shared_holds = 0;
  std::map<std::string, PreparedCase> made_ahead;  // making_ahead's result, once waited for
  std::atomic<bool> stop_making_ahead{false};      // set where no case will run (the build failed)
  // The cases' inputs and oracle results, made on a second thread where the
  // oracle is device work: while the sanitizer runs, or, alone, while the
  // submission builds, once its baselines are timed. Destroyed before the
  // members above, it waits for that thread, which uses them.
  std::future<std::map<std::string, PreparedCase>> making_ahead;
  // The sanitizer last (sanitizer_last): after making_ahead, destroyed
  // before it, waiting for its thread, which uses the members above.
  // Shared, so that it stays valid once waited for: the sanitizer runs once.
  std::shared_future<void> sanitizer_beside;

  void log(const std::string& line) const {
    if (opts.log) opts.log(line);
  }
  bool wanted(Visibility v) const { return !opts.public_only || v == Visibility::Public; }
  // The performance cases this grading times, where its backend times any.
  std::vector<const Case*> timed_cases() const;
  // How the grader's baseline runner `program` starts: its own scratch
  // folder, its output files as large as the largest timed output.
  RunnerConfig baseline_runner_config(const std::string& program) const;
  // The largest timed output's bytes (runners write them to files: their
  // file-size limit holds it).
  long long largest_timed_output_bytes() const;
  // The baseline runner as a record knows it (measure/baseline_book.h).
  std::string baseline_runner_identity() const;
  std::size_t index_of(const std::string& test_name) const;
  // A case at the shape of a structure check this grading runs: the case whose
  // loads the check counts. It runs after the other correctness cases, on
  // every backend (correctness_stage.cpp), so that a case is the same call of
  // the program on each.
  bool at_structure_shape(const Case& c) const;
  // Every test not set aside is marked not run, with `why`.
  void fail_all(GradeState state, const std::string& why);
  // Grades the part of each of the suite's checks that belongs to `stage`.
  void run_checks(CheckStage stage);
  void run_checks(CheckStage stage, const CheckContext& ctx);  // with a context gathered before
  // What the checks read at `stage`, gathered now.
  CheckContext check_context(CheckStage stage) const;
  // A grading alone on a GPU with cases to time, its runners sandboxed,
  // runs its sanitizer last: started once its timing is done, on a second
  // thread, beside the check of the timed outputs (host work), instead of
  // before the cases. No other grading waits for the GPU meanwhile, and the
  // tools' runs, sandboxed in tool-scratch/, cannot reach the outputs being checked.
  bool sanitizer_last() const;
  void start_sanitizer();
  // Waits for it (started here if it was not): its result is in r.tests; a
  // failure of the machine in it is thrown on. Nothing where !sanitizer_last().
  void finish_sanitizer();
  // A shared hold on the device for one untimed step; nullptr while this
  // grading holds the device to itself (`alone`): it would wait for itself.
  std::unique_ptr<DeviceHold> take_shared_hold(SharedHold length = SharedHold::Short);
  // Takes the device to itself until `alone` is released, if it does not hold
  // it already: first the cases made ahead are waited for (their thread
  // takes a shared hold) and the baseline runner's start-up (no process
  // start-up inside the hold).
  void hold_alone(double baseline_start_s);
  // The cases made ahead (making_ahead), waited for (once).
  std::map<std::string, PreparedCase>& cases_made_ahead();
  // The case made ahead, taken out of cases_made_ahead(); else made now.
  PreparedCase take_prepared(const Case& c);
  // A case's inputs and FP64 oracle result.
  PreparedCase prepare(const Case& c);
  // The same for several cases, their oracles in one shared hold: each hold
  // may wait behind another grading's timing (on a second thread). The
  // device work waits for `gpu_free` where it is given; a case whose oracle
  // was not made (stop_making_ahead) is left out.
  std::map<std::string, PreparedCase> prepare_all(const std::vector<const Case*>& cases,
                                                  const std::shared_future<void>& gpu_free = {});
  // The cases made ahead: the performance cases always (where they are
  // timed), the others while what they hold at once stays under a bound (a
  // suite of large correctness cases makes the rest at their turn, each in a
  // hold of its own).
  std::vector<const Case*> cases_to_make_ahead() const;
  // making_ahead begun: prepare_all(cases_to_make_ahead(), gpu_free).
  void start_making_ahead(std::shared_future<void> gpu_free = {});
  // The same with the oracle still being computed on a second thread
  // (PreparedCase::oracle): the case's run waits for it after the run.
  std::unique_ptr<PreparedCase> prepare_beside_run(const Case& c);
};

}  // namespace sg
