#include <algorithm>
#include <future>
#include <optional>
#include <stdexcept>

#include "measure/baseline_book.h"
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
std::optional<TimedCase> check_performance_case(Grading& g, const Case& c, std::size_t ci) {
  const std::size_t pi = ci + 1;
  if (!g.backend->why_not_timed().empty()) return std::nullopt;  // set aside by plan_tests
  if (const std::string why = g.backend->cannot_run(c); !why.empty()) {
    for (std::size_t i : {ci, pi}) mark_not_run(g.r.tests[i], why, Status::Skipped);
    return std::nullopt;
  }
  PreparedCase prepared = g.take_prepared(c);
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

// This grading's own record of a case's baselines, timed while its
// submission built (pipeline/early_baselines.h), if it made one.
std::optional<BaselineRecord> early_record(const Grading& g, const std::string& key) {
  for (const BaselineRecord& r : g.early_records)
    if (r.key == key) return r;
  return std::nullopt;
}

// Every case's student samples in one exclusive hold (each case's reference
// yardstick in the baseline runner first, probes between the samples); the
// student's runner ends; the baselines and cuBLAS, but where the GPU's record
// of a case's baselines stands (measure/baseline_book.h): they are taken from
// it, and the hold ends with the runners.
// The outputs are read and checked after the hold, then each case is scored.
void time_cases(Grading& g, std::vector<TimedCase>& cases) {
  // The baseline runner (begun with the correctness cases) holds only the
  // grader's reference kernels. It is waited for outside any hold, and its
  // first buffers are made under a shared one (they use a GPU another
  // grading may be timing).
  RunnerSession& baseline = *g.baseline;
  const auto limit = [&g](const TimedCase& t) { return g.backend->case_time_limit(*t.c); };
  const MeasureLog log = [&g](const TakeNote& note) { g.log(take_log_line(note)); };
  const TakePolicy policy;
  const std::string& scratch = g.runner_config.scratch_dir;
  const BaselineBook book(g.opts.gpu_lock);
  const std::string runner_identity = g.baseline_runner_identity();
  {
    // Under the grading's hold since its counted case, or a shared one here.
    const Case& first = *cases.front().c;
    (void)baseline.ready(g.backend->case_time_limit(first));
    const auto hold = g.take_shared_hold();
    (void)baseline.time_seeded(first.m, first.k, first.n, 1, proto::Launch::None, g.backend->case_time_limit(first));
  }
  // A performance case at the structure check's shape (a suite with no
  // correctness case there) took the GPU to itself for its count during its
  // check: that hold goes on here (a second request would wait for itself).
  if (!g.opts.gpu_lock.empty() && !g.alone) g.log(waiting_for_exclusive_log_line());
  {
    const std::unique_ptr<DeviceHold> hold = g.alone ? std::move(g.alone) : g.backend->exclusive_hold();
    for (TimedCase& t : cases) time_student(*g.session, baseline, t, limit(t), scratch, policy, log);
    const double now = wall_seconds();
    for (TimedCase& t : cases) {
      if (t.failed()) continue;
      // A grading alone may have its own record (never one in a batch); a batch's gradings the GPU's.
      const std::optional<BaselineRecord> early = early_record(g, record_key(*t.c, runner_identity));
      t.record_timed_early = early.has_value();
      const bool taken = early ? take_record(early, t, now) : take_recorded_baselines(book, runner_identity, t, now);
      if (taken && t.record_timed_early)
        g.log(early_record_log_line(t.c->name, t.record_age_s, t.record_gap));
      else if (taken)
        g.log(recorded_baselines_log_line(t.c->name, t.record_age_s, t.record_gap));
      else if (t.record_refused != RecordRefusal::None)
        g.log(record_not_taken_log_line(t));
    }
    // The student's runner ends (and is reaped, with everything it started:
    // every process of this grading but the baseline runner's) before any
    // baseline is timed: nothing of the submission shares the GPU with them.
    // It ends inside the hold also when nothing more is timed: no code of a
    // submission runs beside the next grading's samples once this one's end.
    g.log(ending_runner_log_line());
    g.session->stop();
    const auto fresh = [](const TimedCase& t) { return !t.failed() && !t.baselines_recorded; };
    for (TimedCase& t : cases)
      if (fresh(t)) time_baselines(baseline, t, limit(t), policy, log);
    // cuBLAS, for the report's roofline and the "faster than cuBLAS" check.
    // (The baseline runner, idle now, ends after the hold: timing_stage.)
    if (std::any_of(cases.begin(), cases.end(), fresh)) g.log(cublas_log_line());
    for (TimedCase& t : cases)
      if (fresh(t))
        t.evidence.cublas_ms = g.backend->roofline_ms(*t.c, t.inputs, roofline_samples(*t.c));
  }
  // Reading and checking the outputs needs every core but no GPU: after the
  // hold, every case's at once (each spreads its outputs over the cores; one
  // after the other, each case's last outputs left cores idle). A grading
  // alone runs its sanitizer meanwhile: nothing is timed any more.
  g.start_sanitizer();
  g.log(checking_outputs_log_line());
  {
    std::vector<std::future<void>> checks;
    for (TimedCase& t : cases)  // the reference's output wrong: not measured
      if (!t.failed()) checks.push_back(std::async(std::launch::async, [&scratch, &t] { check_timed_outputs(scratch, t); }));
    for (std::future<void>& f : checks) f.get();
  }
  g.log(outputs_checked_log_line());
  for (TimedCase& t : cases) {
    TestResult& p = g.r.tests[t.pi];
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
  // Fresh baselines from a quiet take at this grading's pace, whose
  // reference output passed, become the GPU's record for its next gradings.
  for (const TimedCase& t : cases)
    if (book.enabled() && !t.failed() && !t.baselines_recorded && worth_keeping(t.evidence, t.baseline_disturbance)) {
      try {
        book.keep(record_of(record_key(*t.c, runner_identity), t.evidence, wall_seconds()));
      } catch (const std::runtime_error& e) {
        g.log(baselines_not_recorded_log_line(e.what()));  // only the next gradings' speed is lost
      }
    }
}

}  // namespace

bool performance_check_stage(Grading& g) {
  // Each performance case is checked (untimed, each under a shared hold);
  // all of them are timed by the next stage in one exclusive hold. The
  // counted case's hold (Grading::alone) ends first: the checks move a
  // case's arrays through the pipes and compare them on the host, work that
  // needs no GPU to itself, and the exclusive holds are the serial part of a
  // batch (grader/bench/RESULTS.md). One more wait for the GPU to itself is
  // the cost.
  g.alone.reset();
  for (const Case& c : g.suite.cases) {
    if (!g.wanted(c.visibility) || !c.has_performance) continue;
    if (auto timed = check_performance_case(g, c, g.index_of(c.name)))
      g.to_time.push_back(std::move(*timed));
  }
  return true;
}

bool timing_stage(Grading& g) {
  if (!g.to_time.empty()) time_cases(g, g.to_time);
  g.alone.reset();  // nothing timed: a hold taken for a performance case's count ends here
  g.r.gpu_exclusive_time = g.backend->exclusive_seconds();
  g.session->stop();
  g.finish_sanitizer();  // before the baseline runner ends: its tools' sweep spares it
  if (g.baseline) {
    // The baseline runner holds only the grader's own kernels, and no sample
    // of this grading is left: it ends outside the exclusive hold, but under
    // a shared one, since a process's ending would disturb another grading's
    // samples.
    const auto hold = g.take_shared_hold();
    g.session->spare_none();  // the checks after this one may run ncu, whose sweep asks the session what to spare
    g.baseline.reset();
  }
  if (g.shared_holds > 0) g.log(shared_holds_line(g.shared_holds, g.shared_wait_s));
  return true;
}

}  // namespace sg
