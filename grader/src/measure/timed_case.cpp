#include "measure/timed_case.h"

#include <chrono>
#include <cstdio>
#include <utility>

#include "services/elapsed.h"

namespace sg {
namespace {

using Clock = std::chrono::steady_clock;


// One take's figures in the grade log (how disturbed it was, for tuning).
void log_take(const MeasureLog& log, const std::string& what, int take, double spread, double slowdown) {
  if (!log) return;
  char buf[200];
  std::snprintf(buf, sizeof buf, "take %d of %s: requests' quartiles %.1f%% apart, reference launches %.1f%% slower "
                "than its fastest pace", take, what.c_str(), 100 * spread, 100 * slowdown);
  log(buf);
}

void say(const MeasureLog& log, const std::string& line) {
  if (log) log(line);
}

}  // namespace

void time_student(RunnerSession& student, RunnerSession& baseline, TimedCase& timed, double limit_s,
                  const std::string& scratch, const TakePolicy& policy, const MeasureLog& log) {
  const Case& c = *timed.c;
  const auto t0 = Clock::now();
  TimingEvidence shape = timed.evidence;  // nothing measured yet
  // The yardstick first: the reference's pace just before the samples, which
  // the probes between them are held to.
  const std::string no_yardstick = time_yardstick(baseline, c, limit_s, shape);
  if (!no_yardstick.empty()) {
    timed.not_measured = "not measured: the grader's baseline runner failed: " + no_yardstick;
    return;
  }
  for (int take = 1; take <= policy.max_takes; ++take) {
    say(log, "timing " + c.name + policy.pause_before(take));
    TimingEvidence e = shape;
    std::vector<TimedOutput> outputs;
    const std::string failed = time_student_samples(student, c, limit_s, e, outputs, &baseline);
    if (!failed.empty()) {
      timed.not_measured = "not measured: the timed launches failed: " + failed;
      break;
    }
    const double disturbance = student_take_disturbance(e);
    log_take(log, c.name + " (student)", take, student_request_spread(e), pace_slowdown(e, e.probe_event_ms));
    if (policy.keeps(take, disturbance, timed.student_disturbance)) {
      discard_output_files(scratch, timed.outputs);
      timed.evidence = std::move(e);
      timed.outputs = std::move(outputs);
      timed.student_disturbance = disturbance;
    } else {
      discard_output_files(scratch, outputs);
    }
    timed.student_takes = take;
    if (policy.ends_after(disturbance)) break;
  }
  timed.seconds += seconds_since(t0);
}

void time_baselines(RunnerSession& baseline, TimedCase& timed, double limit_s, const TakePolicy& policy,
                    const MeasureLog& log) {
  const TimingEvidence student_side = timed.evidence;  // the baselines' series still empty
  for (int take = 1; take <= policy.max_takes; ++take) {
    say(log, "timing the baselines of " + timed.c->name + policy.pause_before(take));
    TimingEvidence e = student_side;
    const std::string failed = time_baseline_samples(baseline, *timed.c, limit_s, e);
    if (!failed.empty()) {
      timed.not_measured = "not measured: the grader's baseline runner failed: " + failed;
      return;
    }
    const double disturbance = baseline_take_disturbance(e);
    log_take(log, timed.c->name + " (baselines)", take, request_spread(e.reference_ms),
             pace_slowdown(e, e.reference_event_ms));
    if (policy.keeps(take, disturbance, timed.baseline_disturbance)) {
      timed.evidence = std::move(e);
      timed.baseline_disturbance = disturbance;
    }
    timed.baseline_takes = take;
    if (policy.ends_after(disturbance)) break;
  }
}

void check_timed_outputs(const std::string& scratch, TimedCase& timed) {
  const auto t0 = Clock::now();
  read_output_files(scratch, *timed.c, timed.outputs);
  check_student_outputs(*timed.c, timed.outputs, timed.evidence);
  timed.outputs = {};
  timed.seconds += seconds_since(t0);
}

}  // namespace sg
