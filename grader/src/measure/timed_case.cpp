#include "measure/timed_case.h"

#include <chrono>
#include <utility>

#include "services/elapsed.h"

namespace sg {
namespace {

using Clock = std::chrono::steady_clock;

TakeNote take_note(const std::string& name, TakeSide side, int take) {
  TakeNote note;
  note.case_name = name;
  note.side = side;
  note.take = take;
  return note;
}

// A take about to begin, after the policy's pause before it.
void begin_take(const MeasureLog& log, const TakePolicy& policy, const std::string& name, TakeSide side, int take) {
  TakeNote note = take_note(name, side, take);
  note.pause_s = policy.pause_before(take);
  if (log) log(note);
}

// A take done: how disturbed it was (for tuning the policy).
void end_take(const MeasureLog& log, const std::string& name, TakeSide side, int take, double spread,
              double slowdown) {
  TakeNote note = take_note(name, side, take);
  note.done = true;
  note.spread = spread;
  note.slowdown = slowdown;
  if (log) log(note);
}

}  // namespace

void time_student(RunnerSession& student, RunnerSession& baseline, TimedCase& timed, double limit_s,
                  const std::string& scratch, const TakePolicy& policy, const MeasureLog& log) {
  const Case& c = *timed.c;
  const auto t0 = Clock::now();
  TimingEvidence shape = timed.evidence;  // nothing measured yet
  // The yardstick first: the reference's pace just before the samples, which
  // the probes between them are held to.
  if (std::optional<TimedFailure> no_yardstick = time_yardstick(baseline, c, limit_s, shape)) {
    timed.not_measured = std::move(no_yardstick);
    return;
  }
  for (int take = 1; take <= policy.max_takes; ++take) {
    begin_take(log, policy, c.name, TakeSide::Student, take);
    TimingEvidence e = shape;
    std::vector<TimedOutput> outputs;
    if (std::optional<TimedFailure> failed = time_student_samples(student, c, limit_s, e, outputs, &baseline)) {
      timed.not_measured = std::move(failed);
      break;
    }
    const double disturbance = student_take_disturbance(e);
    end_take(log, c.name, TakeSide::Student, take, student_request_spread(e), pace_slowdown(e, e.probe_event_ms));
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
    begin_take(log, policy, timed.c->name, TakeSide::Baselines, take);
    TimingEvidence e = student_side;
    TimedOutput reference;
    if (std::optional<TimedFailure> failed = time_baseline_samples(baseline, *timed.c, limit_s, e, reference)) {
      timed.not_measured = std::move(failed);
      return;
    }
    const double disturbance = baseline_take_disturbance(e);
    end_take(log, timed.c->name, TakeSide::Baselines, take, request_spread(e.reference_ms),
             pace_slowdown(e, e.reference_event_ms));
    if (policy.keeps(take, disturbance, timed.baseline_disturbance)) {
      discard_output_files(baseline.scratch_dir(), {timed.reference_output});
      timed.evidence = std::move(e);
      timed.reference_output = std::move(reference);
      timed.reference_dir = baseline.scratch_dir();
      timed.baseline_disturbance = disturbance;
    } else {
      discard_output_files(baseline.scratch_dir(), {reference});
    }
    timed.baseline_takes = take;
    if (policy.ends_after(disturbance)) break;
  }
}

bool take_recorded_baselines(const BaselineBook& book, const std::string& baseline_runner, TimedCase& timed,
                             double now) {
  if (!book.enabled()) return false;
  return take_record(book.find(record_key(*timed.c, baseline_runner)), timed, now);
}

bool take_record(const std::optional<BaselineRecord>& r, TimedCase& timed, double now) {
  if (!r) return false;
  const double pace = reference_pace_ms(timed.evidence);
  timed.record_age_s = now - r->measured_at;
  timed.record_gap = record_gap(*r, pace);
  timed.record_refused = record_refusal(*r, pace, timed.student_disturbance, now);
  if (timed.record_refused != RecordRefusal::None) return false;
  fill_baselines(*r, timed.evidence);
  timed.baselines_recorded = true;
  return true;
}

void check_timed_outputs(const std::string& scratch, TimedCase& timed) {
  const auto t0 = Clock::now();
  timed.not_measured = check_reference_output(timed.reference_dir, *timed.c, timed.reference_output);
  if (!timed.failed()) {
    read_output_files(scratch, *timed.c, timed.outputs);
    check_student_outputs(*timed.c, timed.outputs, timed.evidence);
    timed.outputs = {};
  }
  timed.seconds += seconds_since(t0);
}

}  // namespace sg
