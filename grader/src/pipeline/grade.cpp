#include "pipeline/grade.h"

#include <chrono>
#include <iterator>
#include <new>

#include "backends/backend.h"
#include "pipeline/stages.h"
#include "services/limits.h"
#include "words/grading_log.h"

namespace sg {
namespace {

// The run order. The sanitizer comes before the cases (its tools start their
// own processes), and the correctness and timed cases share one runner: each
// CUDA process started costs start-up time that several gradings of one GPU
// queue for. On a shared GPU each untimed step holds it shared; the timed
// cases hold it exclusive from the first to the last. A grading alone runs
// its sanitizer after the timing instead (Grading::sanitizer_last).
constexpr Stage kRunOrder[] = {
    {"setup", setup_stage},
    {"build", build_stage},
    {"sanitizer", sanitizer_stage},
    {"correctness", correctness_stage},
    {"prepare", performance_check_stage},
    {"performance", timing_stage},
    {"checks", checks_stage},
};

// One grading. The machine's own resource failure (MachineFailure, or the
// judge out of memory) is thrown on, unless this is the `last` try: then the
// result records it as an internal error, every test not run.
GradeResult grade_once(const Suite& suite, const GradeOptions& opts, const GraderPaths& paths, bool last) {
  Grading g(suite, opts, paths);
  std::string failure;
  try {
    auto phase_start = g.started;
    for (const Stage& stage : kRunOrder) {
      if (!stage.run(g)) {
        g.r.execution_time = seconds_since(g.started);
        return g.r;
      }
      g.r.phase_seconds.emplace_back(stage.phase, seconds_since(phase_start));
      phase_start = std::chrono::steady_clock::now();
    }
    finish_stage(g);
  } catch (const MachineFailure& e) {
    if (!last) throw;
    failure = e.what();
    g.log(machine_ran_out_log_line(failure, e.detail, true));
  } catch (const std::bad_alloc&) {
    if (!last) throw;
    failure = judge_out_of_memory();
  }
  if (!failure.empty())
    g.fail_all(GradeState::InternalError, machine_ran_out_twice(failure));
  g.r.execution_time = seconds_since(g.started);
  return g.r;
}

// Graded again once, from the start, in a fresh work folder, when the
// machine failed: the failure may have been passing (another process's
// burst), and a grading cut short has no trustworthy score.
GradeResult grade_on(const Suite& suite, const GradeOptions& opts, const GraderPaths& paths) {
  try {
    return grade_once(suite, opts, paths, false);
  } catch (const MachineFailure& e) {
    if (opts.log)
      opts.log(machine_ran_out_log_line(e.what(), e.detail, false));
  } catch (const std::bad_alloc&) {
    if (opts.log) opts.log(judge_out_of_memory_log_line());
  }
  return grade_once(suite, opts, paths, true);
}

}  // namespace

GradeResult grade(const Suite& suite, const GradeOptions& opts, const GraderPaths& paths) {
  try {
    return grade_on(suite, opts, paths);
  } catch (const NoGpuAfterAll& e) {
    // --backend unset and the GPU chosen before CUDA described it: none is
    // usable, so the cpu backend grades, from the start (backends/registry.cpp).
    if (opts.log) opts.log(no_gpu_after_all_log_line(e.what()));
    GradeOptions on_cpu = opts;
    on_cpu.backend = BackendKind::Cpu;
    return grade_on(suite, on_cpu, paths);
  }
}

}  // namespace sg
