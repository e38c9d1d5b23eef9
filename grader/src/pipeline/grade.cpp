#include "pipeline/grade.h"

#include <chrono>
#include <iterator>

#include "pipeline/stages.h"

namespace sg {
namespace {

// The run order. The sanitizer comes before the cases (its tools start their
// own processes), and the correctness and timed cases share one runner: each
// CUDA process started costs start-up time that several gradings of one GPU
// queue for. On a shared GPU each untimed step holds it shared; the timed
// cases hold it exclusive from the first to the last.
constexpr Stage kRunOrder[] = {
    {"setup", setup_stage},
    {"build", build_stage},
    {"sanitizer", sanitizer_stage},
    {"correctness", correctness_stage},
    {"prepare", performance_check_stage},
    {"performance", timing_stage},
};

}  // namespace

GradeResult grade(const Suite& suite, const GradeOptions& opts, const GraderPaths& paths) {
  Grading g(suite, opts, paths);
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
  g.r.execution_time = seconds_since(g.started);
  return g.r;
}

}  // namespace sg
