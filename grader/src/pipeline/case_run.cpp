#include "pipeline/case_run.h"

#include <cstring>
#include <optional>

#include "backends/load_count.h"
#include "compare/tolerance.h"
#include "words/case_report.h"
#include "words/grading_log.h"

namespace sg {

bool counts_this_case(const Grading& g, const Case& c) {
  return g.backend->counts_from_outside() && g.at_structure_shape(c);
}

namespace {

using Clock = std::chrono::steady_clock;

// One checked launch, compared with the oracle (when the runner answered).
struct CheckedRun {
  CaseOutcome out;
  std::optional<Comparison> cmp;
  bool differs = false;  // a second launch on the same inputs gave other bits
  double limit_s = 0;    // the case's time limit (shorter than the backend's after a hang)
  bool ran_alone_again = false;  // it timed out beside other gradings and ran again with the device to itself
  // Counted from outside the runner (the structure check's shape on a GPU):
  // the loads, or why the counter gave none.
  bool counted_outside = false;
  std::optional<double> loads;
  std::string counter_failed;
};

// The checked launch with the device held to itself and its load counter
// open around it, twice (backends/load_count.h): the whole device is counted,
// so the counts stand only where both agree. The first launch's outcome is the
// case's; the second is the runner's next call, made after every other
// correctness case (correctness_stage runs this case last, on every backend),
// so that each case is the same call of the program as on the CPU backend,
// which makes it once: a program may act on how often it was called. The hold
// taken here (Grading::alone) ends before the performance cases' checks, and
// no second runner is started for the count.
void counted_run(Grading& g, const Case& c, const CaseInputs& in, const CaseSchedule& schedule, CheckedRun& run) {
  // Prepared before the hold (alone: enabled too, while the other cases ran).
  const std::unique_ptr<LoadWindows> windows =
      g.windows_ahead.valid() ? g.windows_ahead.get() : g.backend->load_windows();
  g.hold_alone(run.limit_s);
  run.counted_outside = true;
  CountedLaunch counted = count_launch_twice(
      *windows, [&] { return g.session->run(c.m, c.k, c.n, in.a, in.b, run.limit_s, schedule); });
  run.out = std::move(counted.out);
  run.loads = counted.loads;
  run.counter_failed = std::move(counted.counter_failed);
}

CheckedRun checked_run(Grading& g, const Case& c, const PreparedCase& prepared) {
  CheckedRun run;
  const CaseInputs& in = prepared.in;
  run.limit_s = g.a_case_hung ? g.backend->case_time_limit_after_hang(c) : g.backend->case_time_limit(c);
  const CaseSchedule schedule{g.r.seed, false};
  bool shared = false;
  if (counts_this_case(g, c)) {
    counted_run(g, c, in, schedule, run);
  } else if (g.a_case_hung && !g.opts.gpu_lock.empty() && !g.alone) {
    // Once a case has hung with the device to itself, the later ones run
    // alone at once: a timeout beside others would be run again alone anyway,
    // and a hang of its own would slow the neighbours' launches meanwhile.
    g.log(case_runs_alone_log_line(c.name));
    const auto alone = g.backend->exclusive_hold();
    run.out = g.session->run(c.m, c.k, c.n, in.a, in.b, run.limit_s, schedule);
  } else {
    // Once a runner of the submission has failed, its cases hold the GPU
    // long: a runner that fails (a fault, most often) is ended inside the
    // hold, and one that crashed once tends to crash again.
    const auto hold = g.take_shared_hold(g.session->has_failed() ? SharedHold::Long : SharedHold::Short);
    shared = hold != nullptr;
    run.out = g.session->run(c.m, c.k, c.n, in.a, in.b, run.limit_s, schedule);
  }
  if (run.out.kind == CaseOutcome::Kind::TimedOut && shared) {
    // Beside other gradings the time may have gone to their kernels (a
    // neighbour's hang, a huge grid): a timeout counts only once seen alone,
    // with the same limit. A kernel that truly hangs costs one more limit.
    g.log(case_runs_again_log_line(c.name));
    const auto alone = g.backend->exclusive_hold();
    run.out = g.session->rerun(c.m, c.k, c.n, in.a, in.b, run.limit_s, schedule);
    run.ran_alone_again = true;
    if (run.out.replayed > 0 || run.out.in_replay)
      g.log(case_replayed_log_line(c.name, run.out.replayed, run.out.in_replay));
  }
  if (run.out.kind == CaseOutcome::Kind::TimedOut && !run.out.extended) g.a_case_hung = true;
  if (prepared.oracle.valid()) prepared.oracle.get();  // computed beside the run
  if (run.out.kind != CaseOutcome::Kind::Ok) return run;
  CompareInput ci_in;
  ci_in.m = c.m;
  ci_in.n = c.n;
  ci_in.k = c.k;
  ci_in.c = run.out.reply.c.data();
  ci_in.c64 = prepared.c64.data();
  ci_in.abs_ab = prepared.abs_ab.data();
  ci_in.factor = c.tolerance_factor;
  ci_in.exact = c.exact;
  run.cmp = compare(ci_in);
  if (run.cmp->wrong > 0 && g.backend->launches_can_differ() && double(c.m) * c.n * c.k <= 2e9) {
    // Run the same inputs again: an output that moves is a race, not a formula bug.
    const auto hold = g.take_shared_hold();
    CaseOutcome again = g.session->run(c.m, c.k, c.n, in.a, in.b, run.limit_s, schedule);
    if (again.kind == CaseOutcome::Kind::Ok)
      run.differs = std::memcmp(again.reply.c.data(), run.out.reply.c.data(),
                                sizeof(float) * run.out.reply.c.size()) != 0;
  }
  return run;
}

}  // namespace

bool check_case(Grading& g, const Case& c, std::size_t ci, const PreparedCase& prepared) {
  TestResult& t = g.r.tests[ci];
  // What the program printed before its first hidden case may be shown at
  // once; from then on its output could carry the hidden shapes (report/student_view.h).
  if (c.visibility == Visibility::Hidden && !g.r.output_before_hidden)
    g.r.output_before_hidden = g.session->captured_output(kStudentOutputCap);
  const auto t0 = Clock::now();
  g.log(case_log_line(c));
  CheckedRun run = checked_run(g, c, prepared);
  t.seconds = seconds_since(t0);
  const std::string alone_note = run.ran_alone_again ? ran_alone_again_note(run.out.replayed, run.out.in_replay) : "";
  if (run.out.kind != CaseOutcome::Kind::Ok) {
    g.log(request_failed_log_line(c.name, run.out.request_s, run.out.partition_s, run.out.ending_s));
    record_runner_failure(t, run.out);
    t.detail += alone_note;
    if (run.out.kind == CaseOutcome::Kind::TimedOut && run.limit_s < g.backend->case_time_limit(c))
      t.detail += shortened_limit_note(run.limit_s, g.backend->case_time_limit(c));
    g.outcomes.push_back({c.m, c.k, c.n, false});
    g.counted.push_back({c.m, c.k, c.n, false, t.verdict, 0, 0, true, ""});
    return false;
  }
  const bool correct = run.cmp->wrong == 0;
  const CaseData data{c.m,
                      c.k,
                      c.n,
                      prepared.in.a.data(),
                      prepared.in.b.data(),
                      run.out.reply.c.data(),
                      prepared.c64.data(),
                      prepared.abs_ab.data(),
                      c.tolerance_factor};
  if (record_comparison(t, c, std::move(*run.cmp), run.differs, &data)) g.cases_reproduced.push_back(c.name);
  t.detail += alone_note;
  if (const unsigned sms = run.out.reply.header.checked_launch_sms; sms > 0) t.detail += partition_note(sms);
  if (!run.out.reply.message.empty()) {
    note_out_of_bounds(t, run.out.reply.message);
    g.cases_out_of_bounds.push_back(c.name);
  }
  if (!run.out.reply.block_race.empty()) {
    note_block_race(t, run.out.reply.block_race, run.out.reply.header.racing_stores);
    g.cases_with_block_races.push_back(c.name);
  }
  const proto::ReplyHeader& h = run.out.reply.header;
  if (run.counted_outside)
    g.counted.push_back({c.m, c.k, c.n, true, "", run.loads.value_or(0), 0, run.loads.has_value(), run.counter_failed});
  else
    g.counted.push_back({c.m, c.k, c.n, true, "", h.global_loads, h.kernel_launches, true, ""});
  if (run.out.extended) t.detail += extended_limit_note(t.seconds, run.out.limit_s);
  g.outcomes.push_back({c.m, c.k, c.n, correct});
  return correct;
}

}  // namespace sg
