#include <algorithm>
#include <future>

#include "pipeline/case_run.h"
#include "pipeline/stages.h"
#include "words/case_report.h"

namespace sg {
namespace {

void correctness_case(Grading& g, const Case& c, std::size_t ci) {
  if (const std::string why = g.backend->cannot_run(c); !why.empty()) {
    mark_not_run(g.r.tests[ci], why, Status::Skipped);
    return;
  }
  // Where the oracle is host work, it runs beside the case (the runner uses one core).
  if (g.backend->oracle_on_host()) {
    const std::unique_ptr<PreparedCase> prepared = g.prepare_beside_run(c);
    check_case(g, c, ci, *prepared);
  } else {
    check_case(g, c, ci, g.take_prepared(c));
  }
}

}  // namespace

bool correctness_stage(Grading& g) {
  // The runners' start-up (a CUDA context each) outside any hold: the
  // student's is waited for before the first case takes its shared hold, the
  // baseline runner's overlaps the correctness cases.
  // (A grading alone started it while the submission built: early_baselines.h.)
  if (!g.timed_cases().empty() && !g.baseline) {
    g.baseline = std::make_unique<RunnerSession>(g.baseline_runner_config(g.build.baseline_runner));
    g.baseline->begin();
    g.session->spare(*g.baseline);  // a failed case's sweep must not take it
  }
  // Alone, the counter of the counted case (the last) is made and enabled on
  // a second thread while the runner starts and the other cases run: no other
  // grading's counter or timing shares the device, and the sanitizer's tools
  // have ended.
  const bool counts = std::any_of(g.suite.cases.begin(), g.suite.cases.end(), [&g](const Case& c) {
    return g.wanted(c.visibility) && !c.has_performance && counts_this_case(g, c);
  });
  if (g.opts.gpu_lock.empty() && counts)
    g.windows_ahead = std::async(std::launch::async, [&g] {
      std::unique_ptr<LoadWindows> windows = g.backend->load_windows();
      if (windows) windows->enable_now();
      return windows;
    });
  for (const Case& c : g.suite.cases)
    if (g.wanted(c.visibility)) {
      (void)g.session->ready(g.backend->case_time_limit(c));
      break;
    }
  // Each case holds the GPU shared on its own. (One hold over all of them
  // was tried: fewer waits for it, but longer ones for everybody's timings,
  // and fewer gradings per minute in all.) The case the structure check
  // counts comes last: on a GPU it takes the device to itself for the rest
  // of the grading's GPU work (case_run.cpp).
  for (const bool counted_shape : {false, true})
    for (const Case& c : g.suite.cases)
      if (g.wanted(c.visibility) && !c.has_performance && g.at_structure_shape(c) == counted_shape)
        correctness_case(g, c, g.index_of(c.name));
  // A counter made ahead that no case used (its case could not run) is
  // disabled here: it would keep ncu off the device.
  if (g.windows_ahead.valid()) (void)g.windows_ahead.get();
  return true;
}

}  // namespace sg
