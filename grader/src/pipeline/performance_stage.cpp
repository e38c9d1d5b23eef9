#include <algorithm>

#include "measure/timed_case.h"
#include "pipeline/case_run.h"
#include "pipeline/stages.h"
#include "words/case_report.h"
#include "words/grading_log.h"
#include "words/timing_log.h"
#include "words/timing_report.h"

namespace sg {
namespace {

// The untimed half of a performance case: its correctness test. The case to
// time when it passed.
std::optional<TimedCase> check_performance_case(Grading& g, const Case& c, std::size_t ci, PreparedCase prepared) {
  const std::size_t pi = ci + 1;
  if (!g.backend->why_not_timed().empty()) return std::nullopt;  // set aside by plan_tests
  if (const std::string why = g.backend->cannot_run(c); !why.empty()) {
    for (std::size_t i : {ci, pi}) mark_not_run(g.r.tests[i], why, Status::Skipped);
    return std::nullopt;
  }
  if (prepared.in.a.empty()) prepared = g.prepare(c);  // not made ahead
  if (!check_case(g, c, ci, prepared)) {
    const TestResult& t = g.r.tests[ci];
    mark_not_run(g.r.tests[pi], performance_not_measured(t.comparison.has_value(), t.verdict));
    return std::nullopt;
  }
  TimedCase timed;
  timed.c = &c;
  timed.pi = pi;
  timed.inputs = std::move(prepared.in);  // the oracle's arrays are done with; the inputs stay for cuBLAS
  timed.evidence.m = c.m;
  timed.evidence.k = c.k;
  timed.evidence.n = c.n;
  return timed;
}

// Every case's student samples in one exclusive hold (each case's reference
// yardstick in the baseline runner first, probes between the samples); the
// student's runner ends; the baselines and cuBLAS. The outputs are read and
// checked after the hold, then each case is scored.
void time_cases(Grading& g, std::vector<TimedCase>& cases) {
  // The baseline runner (begun with the correctness cases) holds only the
  // grader's reference kernels. It is waited for outside any hold, and its
  // first buffers are made under a shared one (they use a GPU another
  // grading may be timing), unless the grading holds the GPU to itself since
  // its counted case: then that hold goes on to the end of the timing.
  RunnerSession& baseline = *g.baseline;
  const auto limit = [&g](const TimedCase& t) { return g.backend->case_time_limit(*t.c); };
  const MeasureLog log = [&g](const TakeNote& note) { g.log(take_log_line(note)); };
  const TakePolicy policy;
  const std::string& scratch = g.runner_config.scratch_dir;
  {
    // Under the grading's hold since its counted case, or a shared one here.
    const Case& first = *cases.front().c;
    (void)baseline.ready(g.backend->case_time_limit(first));
    const auto hold = g.take_shared_hold();
    (void)baseline.time_seeded(first.m, first.k, first.n, 1, proto::Launch::None, g.backend->case_time_limit(first));
  }
  if (!g.opts.gpu_lock.empty() && !g.alone) g.log(waiting_for_exclusive_log_line());
  {
    const std::unique_ptr<DeviceHold> hold = g.alone ? std::move(g.alone) : g.backend->exclusive_hold();
    for (TimedCase& t : cases) time_student(*g.session, baseline, t, limit(t), scratch, policy, log);
    // The student's runner ends (and is reaped, with everything it started:
    // every process of this grading but the baseline runner's) before any
    // baseline is timed: nothing of the submission shares the GPU with them.
    g.log(ending_runner_log_line());
    g.session->stop();
    for (TimedCase& t : cases)
      if (!t.failed()) time_baselines(baseline, t, limit(t), policy, log);
    baseline.stop();
    // cuBLAS, for the report's roofline and the "faster than cuBLAS" check.
    g.log(cublas_log_line());
    for (TimedCase& t : cases)
      if (!t.failed())
        t.evidence.cublas_ms = g.backend->roofline_ms(*t.c, t.inputs, std::max(5, t.c->performance.samples / 2));
  }
  // Reading and checking the outputs needs every core but no GPU: after the hold.
  g.log(checking_outputs_log_line());
  for (TimedCase& t : cases) {
    TestResult& p = g.r.tests[t.pi];
    if (!t.failed()) check_timed_outputs(scratch, t);  // the reference's output wrong: not measured
    if (t.failed()) {
      discard_output_files(scratch, t.outputs);
      mark_not_run(p, t.not_measured);
      p.seconds += t.seconds;
      continue;
    }
    p.seconds += t.seconds;
    const Timing tm = record_timing(p, t);
    if (!tm.timed_output_wrong && !tm.implausible &&
        (!g.r.leaderboard_gflops || tm.student_gflops > *g.r.leaderboard_gflops))
      g.r.leaderboard_gflops = tm.student_gflops;
  }
}

}  // namespace

bool performance_check_stage(Grading& g) {
  // Each performance case is checked (untimed); all of them are timed by the
  // next stage in one exclusive hold. Where the counted case took that hold
  // already (Grading::alone), the checks run inside it.
  std::map<std::string, PreparedCase>& made = g.timed_cases_made();
  for (const Case& c : g.suite.cases) {
    if (!g.wanted(c.visibility) || !c.has_performance) continue;
    auto it = made.find(c.name);
    PreparedCase prepared = it != made.end() ? std::move(it->second) : PreparedCase{};
    if (auto timed = check_performance_case(g, c, g.index_of(c.name), std::move(prepared)))
      g.to_time.push_back(std::move(*timed));
  }
  return true;
}

bool timing_stage(Grading& g) {
  if (!g.to_time.empty()) time_cases(g, g.to_time);
  g.alone.reset();  // nothing timed: the hold since the counted case ends here
  g.r.gpu_exclusive_time = g.backend->exclusive_seconds();
  if (g.shared_holds > 0) g.log(shared_holds_line(g.shared_holds, g.shared_wait_s));
  g.session->stop();
  g.baseline.reset();
  return true;
}

}  // namespace sg
