// One performance case from its correctness check to its score: the takes of
// its samples (the student's, then the baselines'), the outputs checked after
// the exclusive hold, and why it could not be measured. The stage that holds
// the GPU (pipeline/performance_stage.cpp) calls these in order.
#pragma once
#include <algorithm>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "measure/baseline_book.h"
#include "measure/take_policy.h"
#include "measure/timed_samples.h"
#include "measure/timing.h"
#include "model/suite.h"
#include "services/inputs.h"
#include "services/runner_session.h"

namespace sg {

struct TimedCase {
  const Case* c = nullptr;
  std::size_t pi = 0;  // its performance test in GradeResult::tests
  CaseInputs inputs;   // for the cuBLAS roofline
  TimingEvidence evidence;
  std::vector<TimedOutput> outputs;  // the kept take's outputs, checked after the hold
  // The kept baselines take's last reference output, in reference_dir (the
  // baseline runner's scratch folder), checked after the hold too.
  TimedOutput reference_output;
  std::string reference_dir;
  // Why it was not measured, as facts (unset while it can be): the stage
  // that times has words/case_report.h's mark_not_run say it.
  std::optional<TimedFailure> not_measured;
  int student_takes = 0, baseline_takes = 0;  // more than 1: the first samples were disturbed
  // Its baselines taken from the GPU's record (measure/baseline_book.h): how
  // old the record was, and how far its reference was from this grading's pace.
  // A record that did not stand says why (baselines timed here instead).
  bool baselines_recorded = false;
  // The record was this grading's own, timed while its submission built
  // (pipeline/early_baselines.h), not a batch's GPU record.
  bool record_timed_early = false;
  RecordRefusal record_refused = RecordRefusal::None;
  double record_age_s = 0, record_gap = 0;
  double student_disturbance = 0, baseline_disturbance = 0;  // of the takes kept (timing.h)
  double seconds = 0;  // spent timing it, for its test's seconds
  bool failed() const { return not_measured.has_value(); }
};

// A take of timed samples as the grade log hears of it, as facts (the stage
// that times has words/timing_log.h say them): one note as the take begins,
// after its pause, and one when it is done, with how disturbed it was.
enum class TakeSide { Student, Baselines };
struct TakeNote {
  std::string case_name;
  TakeSide side = TakeSide::Student;
  int take = 1;
  bool done = false;
  double pause_s = 0;  // begun: the pause waited before it (TakePolicy::pause_before)
  // Done: its requests' spread and the reference's slowdown (measure/timing.h).
  double spread = 0, slowdown = 0;
};
using MeasureLog = std::function<void(const TakeNote&)>;

// The reference's yardstick, then the student's samples in the takes the
// policy asks for; the least disturbed take's outputs are kept (the others'
// files removed from `scratch`).
void time_student(RunnerSession& student, RunnerSession& baseline, TimedCase& timed, double limit_s,
                  const std::string& scratch, const TakePolicy& policy, const MeasureLog& log);

// The baselines' samples (reference, naive, overhead) in the takes the policy asks for.
void time_baselines(RunnerSession& baseline, TimedCase& timed, double limit_s, const TakePolicy& policy,
                    const MeasureLog& log);

// Where the GPU's record of this case's baselines stands for this grading
// (measure/baseline_book.h: young, its reference at the pace of this
// grading's yardstick and probes, the student's take quiet), its baselines
// and cuBLAS's time are filled from it and true is returned.
bool take_recorded_baselines(const BaselineBook& book, const std::string& baseline_runner, TimedCase& timed,
                             double now);
// How many cuBLAS launches the roofline of a case takes (half its samples, at least 5).
inline int roofline_samples(const Case& c) { return std::max(5, c.performance.samples / 2); }

// The same with the record at hand (none: false).
bool take_record(const std::optional<BaselineRecord>& r, TimedCase& timed, double now);

// Reads and checks the kept takes' outputs, the reference's first (every
// core, no GPU: after the hold). A wrong reference output leaves the case not
// measured (TimedCase::not_measured) and the student's outputs unread: a
// case not measured has its files discarded by the caller, as any other.
void check_timed_outputs(const std::string& scratch, TimedCase& timed);

}  // namespace sg
