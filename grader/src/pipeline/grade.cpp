#include "pipeline/grade.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "backends/registry.h"
#include "compare/diagnosis.h"
#include "compare/tolerance.h"
#include "model/plan.h"
#include "pipeline/case_report.h"
#include "pipeline/checks.h"
#include "pipeline/inputs.h"
#include "pipeline/runner_session.h"
#include "pipeline/submission.h"
#include "pipeline/timed_samples.h"
#include "pipeline/timing.h"
#include "pipeline/work_dir.h"
#include "process/process.h"

namespace fs = std::filesystem;

namespace sg {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kLogCap = 64 << 10;
// Why a take of samples is taken again (timing.h, kDisturbedSpread).
const char* const kDisturbedWhy =
    "most of its requests were delayed, or the reference ran slower between its samples than it can";

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Pauses before a take after the first (timing.h, retake_pause_s), then says why it is taken.
std::string pause_then_say_again(int take) {
  const double pause = retake_pause_s(take);
  if (pause <= 0) return std::string(" again: ") + kDisturbedWhy;
  std::this_thread::sleep_for(std::chrono::duration<double>(pause));
  char buf[64];
  std::snprintf(buf, sizeof buf, " again after a pause of %.2f s: ", pause);
  return buf + std::string(kDisturbedWhy);
}

double round2(double x) { return std::round(x * 100.0) / 100.0; }

struct PreparedCase {
  CaseInputs in;
  std::vector<double> c64, abs_ab;
  // Where the oracle is still being computed beside the case's run (Backend::oracle_on_host).
  std::shared_future<void> oracle;
};

// One checked launch, compared with the oracle (when the runner answered).
struct CheckedRun {
  CaseOutcome out;
  std::optional<Comparison> cmp;
  bool differs = false;  // a second launch on the same inputs gave other bits
  double limit_s = 0;  // the case's time limit (shorter than the backend's after a hang)
};

class Grader {
 public:
  Grader(const Suite& suite, const GradeOptions& opts, const GraderPaths& paths)
      : suite_(suite), opts_(opts), paths_(paths), work_(opts.work_root, opts.keep_work) {}

  GradeResult run();

 private:
  void log(const std::string& line) const {
    if (opts_.log) opts_.log(line);
  }
  bool wanted(Visibility v) const { return !opts_.public_only || v == Visibility::Public; }
  void fail_all(GradeState state, const std::string& why);
  void run_checks(CheckStage stage);
  // A performance case that was checked and now waits for its timing.
  struct TimedCase {
    const Case* c;
    std::size_t pi;  // its performance test
    PreparedCase prepared;  // its inputs, for the cuBLAS roofline
    TimingEvidence evidence;
    std::vector<TimedOutput> outputs;  // the timed samples' outputs, checked after the hold
    bool failed = false;  // a timed request failed; the performance test says why
    int student_takes = 0, baseline_takes = 0;  // more than 1: the first samples were disturbed
    double student_disturbance = 0, baseline_disturbance = 0;  // of the takes kept (timing.h)
  };
  CheckedRun checked_run(const Case& c, const PreparedCase& prepared);
  // Runs and records the correctness test r_.tests[ci]; true when correct.
  bool check_case(const Case& c, std::size_t ci, const PreparedCase& prepared);
  void correctness_case(const Case& c, std::size_t ci);
  // The untimed half of a performance case: its correctness test.
  std::optional<TimedCase> check_performance_case(const Case& c, std::size_t ci, PreparedCase prepared);
  // The timed half, in one exclusive hold: every case's student samples
  // (their outputs written to files); the student's runner ends; the
  // baselines and the overhead in the grader's baseline runner, started
  // before the hold; cuBLAS. The outputs are read and checked after the hold.
  void time_cases(std::vector<TimedCase>& cases);
  void time_student(RunnerSession& baseline, TimedCase& timed);
  void time_baselines(RunnerSession& baseline, TimedCase& timed);
  void score_timing(TimedCase& timed);
  // One take's figures in the grade log (how disturbed it was, for tuning).
  void log_take(const std::string& what, int take, double spread, double slowdown) const;
  // A case's inputs and FP64 oracle result (also on a second thread).
  PreparedCase prepare(const Case& c);
  // The same with the oracle still being computed on a second thread
  // (PreparedCase::oracle): checked_run waits for it after the run.
  std::unique_ptr<PreparedCase> prepare_beside_run(const Case& c);
  // A shared hold on the device for one untimed step. Never asked for while
  // this grading holds the device to itself: it would wait for itself.
  std::unique_ptr<DeviceHold> take_shared_hold();
  void diagnose_across_cases();
  std::size_t index_of(const std::string& test_name) const;

  const Suite& suite_;
  const GradeOptions& opts_;
  const GraderPaths& paths_;
  WorkDir work_;
  GradeResult r_;
  std::unique_ptr<Backend> backend_;
  BuildOutput build_;
  RunnerConfig runner_config_;  // how this grading's runners are started
  // Before session_, so that it outlives session_'s sweeps (RunnerSession::spare).
  std::unique_ptr<RunnerSession> baseline_;  // the grader's baseline runner, where cases are timed
  std::unique_ptr<RunnerSession> session_;
  std::vector<SizeOutcome> outcomes_;
  std::vector<CountedCase> counted_;  // each case's checked launch as the CPU layer counted it
  bool a_case_hung_ = false;  // later cases get case_time_limit_after_hang
  std::mutex oracle_mutex_;  // the timed cases' oracles are made on a second thread
  std::mutex hold_stats_mutex_;
  double shared_wait_s_ = 0;  // time spent waiting for untimed holds
  int shared_holds_ = 0;
};

std::size_t Grader::index_of(const std::string& test_name) const {
  std::size_t i = 0;
  while (r_.tests[i].name != test_name) ++i;
  return i;
}

void Grader::fail_all(GradeState state, const std::string& why) {
  r_.state = state;
  for (auto& t : r_.tests)
    if (!set_aside(t)) mark_not_run(t, "not run: " + why);  // the not-measured stay out of the maximum
}

void Grader::run_checks(CheckStage stage) {
  CheckContext ctx;
  ctx.backend = backend_.get();
  ctx.build = &build_;
  ctx.sanitizer = {build_.runner, &runner_config_, work_.sub("logs"), r_.seed, {}, {}};
  for (const Case& c : suite_.cases)
    if (wanted(c.visibility)) ctx.sanitizer.cases.push_back(c);
  ctx.sanitizer.counted = counted_;
  for (const auto& t : r_.tests) {
    if (t.kind != TestKind::Correctness) continue;
    ctx.any_case_correct |= t.status == Status::Passed;
    if (t.status == Status::Failed && !t.comparison) ctx.cases_runner_failed.push_back(t.name);
    const auto has = [&t](const Diagnosis& hint) {
      return std::any_of(t.diagnoses.begin(), t.diagnoses.end(), [&](const Diagnosis& d) { return d.id == hint.id; });
    };
    if (has(kOutOfBoundsHint)) ctx.cases_out_of_bounds.push_back(t.name);
    if (has(kBlockRaceHint)) ctx.cases_with_block_races.push_back(t.name);
  }
  for (const Check& c : suite_.checks)
    if (wanted(c.visibility)) run_check(c, stage, ctx, r_.tests[index_of(c.name)]);
}

std::unique_ptr<DeviceHold> Grader::take_shared_hold() {
  const auto t0 = Clock::now();
  auto hold = backend_->shared_hold();
  if (!hold) return nullptr;
  const std::lock_guard<std::mutex> stats(hold_stats_mutex_);
  shared_wait_s_ += seconds_since(t0);
  ++shared_holds_;
  return hold;
}

PreparedCase Grader::prepare(const Case& c) {
  PreparedCase p;
  p.in = make_inputs(c, r_.seed);  // host work: no hold, so a waiting timing is not kept waiting
  const auto hold = take_shared_hold();
  const std::lock_guard<std::mutex> one_at_a_time(oracle_mutex_);
  backend_->oracle(c, p.in, p.c64, p.abs_ab);
  return p;
}

std::unique_ptr<PreparedCase> Grader::prepare_beside_run(const Case& c) {
  auto p = std::make_unique<PreparedCase>();
  p->in = make_inputs(c, r_.seed);
  PreparedCase* made = p.get();  // stays where it is until the case has waited for the oracle
  p->oracle = std::async(std::launch::async, [this, &c, made] {
                const std::lock_guard<std::mutex> one_at_a_time(oracle_mutex_);
                backend_->oracle(c, made->in, made->c64, made->abs_ab);
              }).share();
  return p;
}

CheckedRun Grader::checked_run(const Case& c, const PreparedCase& prepared) {
  CheckedRun run;
  const CaseInputs& in = prepared.in;
  run.limit_s = a_case_hung_ ? backend_->case_time_limit_after_hang(c) : backend_->case_time_limit(c);
  {
    const auto hold = take_shared_hold();
    run.out = session_->run(c.m, c.k, c.n, in.a, in.b, run.limit_s, CaseSchedule{r_.seed, false});
  }
  if (run.out.kind == CaseOutcome::Kind::TimedOut && !run.out.extended) a_case_hung_ = true;
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
  if (run.cmp->wrong > 0 && backend_->launches_can_differ() && double(c.m) * c.n * c.k <= 2e9) {
    // Run the same inputs again: an output that moves is a race, not a formula bug.
    const auto hold = take_shared_hold();
    CaseOutcome again = session_->run(c.m, c.k, c.n, in.a, in.b, run.limit_s, CaseSchedule{r_.seed, false});
    if (again.kind == CaseOutcome::Kind::Ok)
      run.differs = std::memcmp(again.reply.c.data(), run.out.reply.c.data(),
                                sizeof(float) * run.out.reply.c.size()) != 0;
  }
  return run;
}

bool Grader::check_case(const Case& c, std::size_t ci, const PreparedCase& prepared) {
  TestResult& t = r_.tests[ci];
  const auto t0 = Clock::now();
  log("case " + c.name + " (" + std::to_string(c.m) + "x" + std::to_string(c.k) + "x" + std::to_string(c.n) + ")");
  CheckedRun run = checked_run(c, prepared);
  t.seconds = seconds_since(t0);
  if (run.out.kind != CaseOutcome::Kind::Ok) {
    record_runner_failure(t, run.out);
    if (run.out.kind == CaseOutcome::Kind::TimedOut && run.limit_s < backend_->case_time_limit(c)) {
      char buf[300];
      std::snprintf(buf, sizeof buf,
                    "its limit was %.1f s instead of %.0f s because an earlier case hung: a kernel that completes "
                    "needs only the time for the case's work\n",
                    run.limit_s, backend_->case_time_limit(c));
      t.detail += buf;
    }
    outcomes_.push_back({c.m, c.k, c.n, false});
    counted_.push_back({c.m, c.k, c.n, false, t.verdict, 0, 0});
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
  record_comparison(t, c, std::move(*run.cmp), run.differs, &data);
  if (const unsigned sms = run.out.reply.header.checked_launch_sms; sms > 0)
    t.detail += "checked on a partition of " + std::to_string(sms) +
                " SMs (as every case after the runner failed once); timed launches use the whole GPU\n";
  if (!run.out.reply.message.empty()) note_out_of_bounds(t, run.out.reply.message);
  if (!run.out.reply.block_race.empty())
    note_block_race(t, run.out.reply.block_race, run.out.reply.header.racing_stores);
  const proto::ReplyHeader& h = run.out.reply.header;
  counted_.push_back({c.m, c.k, c.n, true, "", h.global_loads, h.kernel_launches});
  if (run.out.extended) {
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "took %.1f s, past its limit of %.0f s, which was extended because its blocks kept completing: "
                  "the CPU backend runs blocks a few at a time, so a grid larger than C needs (or more K tiles "
                  "than k has) costs time here that a GPU hides\n",
                  t.seconds, run.out.limit_s);
    t.detail += buf;
  }
  outcomes_.push_back({c.m, c.k, c.n, correct});
  return correct;
}

void Grader::correctness_case(const Case& c, std::size_t ci) {
  if (const std::string why = backend_->cannot_run(c); !why.empty()) {
    mark_not_run(r_.tests[ci], why, Status::Skipped);
    return;
  }
  // Where the oracle is host work, it runs beside the case (the runner uses one core).
  if (backend_->oracle_on_host()) {
    const std::unique_ptr<PreparedCase> prepared = prepare_beside_run(c);
    check_case(c, ci, *prepared);
  } else {
    check_case(c, ci, prepare(c));
  }
}

std::optional<Grader::TimedCase> Grader::check_performance_case(const Case& c, std::size_t ci,
                                                                PreparedCase prepared) {
  const std::size_t pi = ci + 1;
  if (!backend_->why_not_timed().empty()) return std::nullopt;  // set aside by plan_tests
  if (const std::string why = backend_->cannot_run(c); !why.empty()) {
    for (std::size_t i : {ci, pi}) mark_not_run(r_.tests[i], why, Status::Skipped);
    return std::nullopt;
  }
  if (prepared.in.a.empty()) prepared = prepare(c);  // not made ahead
  if (!check_case(c, ci, prepared)) {
    const TestResult& t = r_.tests[ci];
    mark_not_run(r_.tests[pi], t.comparison ? "no performance points: the case's result is wrong"
                                            : "not measured: " + t.verdict);
    return std::nullopt;
  }
  // The oracle's arrays are done with; the inputs stay for the cuBLAS roofline.
  prepared.c64 = {};
  prepared.abs_ab = {};
  TimedCase timed{&c, pi, std::move(prepared), {}, {}, false};
  timed.evidence.m = c.m;
  timed.evidence.k = c.k;
  timed.evidence.n = c.n;
  return timed;
}

void Grader::time_cases(std::vector<TimedCase>& cases) {
  // The baseline runner (begun with the correctness cases) holds only the
  // grader's reference kernels. It is waited for outside any hold, and its
  // first buffers are made under a shared one (they use a GPU another
  // grading may be timing): the exclusive hold covers timed work only.
  RunnerSession& baseline = *baseline_;
  {
    const Case& first = *cases.front().c;
    (void)baseline.ready(backend_->case_time_limit(first));
    const auto hold = take_shared_hold();
    (void)baseline.time_seeded(first.m, first.k, first.n, 1, proto::Launch::None, backend_->case_time_limit(first));
  }
  if (!opts_.gpu_lock.empty()) log("waiting for the GPU to itself (timed cases)");
  {
    const auto hold = backend_->exclusive_hold();
    for (TimedCase& t : cases) time_student(baseline, t);
    // The student's runner ends (and is reaped, with everything it started:
    // every process of this grading but the baseline runner's) before any
    // baseline is timed: nothing of the submission shares the GPU with them.
    log("ending the student's runner");
    session_->stop();
    for (TimedCase& t : cases)
      if (!t.failed) time_baselines(baseline, t);
    baseline.stop();
    // cuBLAS, for the report's roofline and the "faster than cuBLAS" check.
    log("cuBLAS");
    for (TimedCase& t : cases)
      if (!t.failed)
        t.evidence.cublas_ms = backend_->roofline_ms(*t.c, t.prepared.in, std::max(5, t.c->performance.samples / 2));
  }
  // Reading and checking the outputs needs every core but no GPU: after the hold.
  log("checking the timed outputs");
  for (TimedCase& t : cases) {
    if (t.failed) continue;
    const auto t0 = Clock::now();
    read_output_files(runner_config_.scratch_dir, *t.c, t.outputs);
    check_student_outputs(*t.c, t.outputs, t.evidence);
    t.outputs = {};
    r_.tests[t.pi].seconds += seconds_since(t0);
    score_timing(t);
  }
}

void Grader::time_student(RunnerSession& baseline, TimedCase& timed) {
  const Case& c = *timed.c;
  TestResult& p = r_.tests[timed.pi];
  const auto t0 = Clock::now();
  TimingEvidence shape = timed.evidence;  // nothing measured yet
  // The yardstick first: the reference's pace just before the samples, which
  // the probes between them are held to.
  const std::string no_yardstick = time_yardstick(baseline, c, backend_->case_time_limit(c), shape);
  if (!no_yardstick.empty()) {
    mark_not_run(p, "not measured: the grader's baseline runner failed: " + no_yardstick);
    timed.failed = true;
    return;
  }
  for (int take = 1; take <= kTimingTakes; ++take) {
    log(take == 1 ? "timing " + c.name : "timing " + c.name + pause_then_say_again(take));
    TimingEvidence e = shape;
    std::vector<TimedOutput> outputs;
    const std::string failed =
        time_student_samples(*session_, c, backend_->case_time_limit(c), e, outputs, &baseline);
    if (!failed.empty()) {
      mark_not_run(p, "not measured: the timed launches failed: " + failed);
      timed.failed = true;
      break;
    }
    // The least disturbed take is kept; the others' output files are dropped.
    const double disturbance = student_take_disturbance(e);
    log_take(c.name + " (student)", take, student_request_spread(e), pace_slowdown(e, e.probe_event_ms));
    if (take == 1 || disturbance < timed.student_disturbance) {
      discard_output_files(runner_config_.scratch_dir, timed.outputs);
      timed.evidence = std::move(e);
      timed.outputs = std::move(outputs);
      timed.student_disturbance = disturbance;
    } else {
      discard_output_files(runner_config_.scratch_dir, outputs);
    }
    timed.student_takes = take;
    if (disturbance <= kDisturbedSpread) break;
  }
  p.seconds += seconds_since(t0);
}

void Grader::time_baselines(RunnerSession& baseline, TimedCase& timed) {
  const TimingEvidence student_side = timed.evidence;  // the baselines' series still empty
  for (int take = 1; take <= kTimingTakes; ++take) {
    log(take == 1 ? "timing the baselines of " + timed.c->name
                  : "timing the baselines of " + timed.c->name + pause_then_say_again(take));
    TimingEvidence e = student_side;
    const std::string failed =
        time_baseline_samples(baseline, *timed.c, backend_->case_time_limit(*timed.c), e);
    if (!failed.empty()) {
      mark_not_run(r_.tests[timed.pi], "not measured: the grader's baseline runner failed: " + failed);
      timed.failed = true;
      return;
    }
    const double disturbance = baseline_take_disturbance(e);
    log_take(timed.c->name + " (baselines)", take, request_spread(e.reference_ms),
             pace_slowdown(e, e.reference_event_ms));
    if (take == 1 || disturbance < timed.baseline_disturbance) {
      timed.evidence = std::move(e);
      timed.baseline_disturbance = disturbance;
    }
    timed.baseline_takes = take;
    if (disturbance <= kDisturbedSpread) break;
  }
}

void Grader::log_take(const std::string& what, int take, double spread, double slowdown) const {
  char buf[200];
  std::snprintf(buf, sizeof buf, "take %d of %s: requests' quartiles %.1f%% apart, reference launches %.1f%% slower "
                "than its fastest pace", take, what.c_str(), 100 * spread, 100 * slowdown);
  log(buf);
}

void Grader::score_timing(TimedCase& timed) {
  if (timed.failed) return;
  const Case& c = *timed.c;
  TestResult& p = r_.tests[timed.pi];
  Timing tm = evaluate_timing(timed.evidence);
  p.score = round2(performance_points(c.performance, tm));
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "speedup %.3f vs the reference tiled kernel (%.3f ms vs %.3f ms; full points at %.2f, none at %.2f); "
                "%.0f GFLOP/s, %.1f%% of cuBLAS",
                tm.speedup, tm.student_ms, tm.reference_ms, c.performance.full_at, c.performance.zero_at,
                tm.student_gflops, tm.cublas_gflops > 0 ? 100.0 * tm.student_gflops / tm.cublas_gflops : 0.0);
  p.verdict = buf;
  std::snprintf(buf, sizeof buf,
                "median of %d samples; student %.3f ms (spread %.1f%%), reference %.3f ms, naive %.3f ms, cuBLAS %.3f ms\n"
                "timed by CUDA events, never below the grader's clock less the request's overhead and 3%% "
                "(%.3f ms, from the fastest quarter of requests; a request that launches nothing: %.3f ms); every timed output "
                "checked (digest and Freivalds' test)\n",
                tm.samples, tm.student_ms, 100 * tm.student_spread, tm.reference_ms, tm.naive_ms, tm.cublas_ms,
                tm.student_floor_ms, tm.overhead_ms);
  p.detail = buf;
  const TimingEvidence& e = timed.evidence;
  if (!e.yardstick_event_ms.empty()) {
    std::snprintf(buf, sizeof buf,
                  "the reference's pace (events): %.3f ms before the student's samples, %.3f ms between them, "
                  "%.3f ms with the baselines\n",
                  median(e.yardstick_event_ms), median(e.probe_event_ms), median(e.reference_event_ms));
    p.detail += buf;
  }
  if (tm.student_floor_used)
    p.detail += "the runner's own event times were below the grader's clock: the grader's figure was used\n";
  if (timed.student_takes > 1 || timed.baseline_takes > 1)
    p.detail += "samples taken again because most of them were delayed (the grader's clock put their quartiles "
                "more than 3% apart) or the GPU ran them slower as a whole (the reference's launches with them more "
                "than 3% slower than its fastest launch): the student's " +
                std::to_string(timed.student_takes) + " time(s), the baselines' " +
                std::to_string(timed.baseline_takes) + " time(s); the least disturbed kept\n";
  if (std::max(timed.student_disturbance, timed.baseline_disturbance) > kDisturbedSpread) {
    std::snprintf(buf, sizeof buf,
                  "every take was disturbed (the kept ones by %.1f%%, the student's, and %.1f%%, the baselines'): "
                  "this speedup is less certain; grading the submission alone gives a quiet GPU\n",
                  100 * timed.student_disturbance, 100 * timed.baseline_disturbance);
    p.detail += buf;
  }
  if (tm.timed_output_wrong) {
    p.verdict = "no performance points: " + tm.implausible_reason;
    p.status = Status::Failed;
  } else if (tm.implausible) {
    p.verdict = "implausible timing, no performance points: " + tm.implausible_reason;
    p.status = Status::Failed;
  } else {
    p.status = p.score >= p.max_score - 1e-9 ? Status::Passed : (p.score > 0 ? Status::Partial : Status::Failed);
    if (!r_.leaderboard_gflops || tm.student_gflops > *r_.leaderboard_gflops) r_.leaderboard_gflops = tm.student_gflops;
  }
  p.timing = tm;
}

void Grader::diagnose_across_cases() {
  std::vector<Diagnosis> across = diagnose_across(outcomes_);
  if (across.empty()) return;
  for (auto& t : r_.tests) {
    if (t.kind != TestKind::Correctness || t.status != Status::Failed || !t.comparison) continue;
    // A case whose output a hypothesis reproduced already says what is wrong.
    if (std::any_of(t.diagnoses.begin(), t.diagnoses.end(), is_confirmed_hypothesis)) continue;
    for (const auto& d : across) t.diagnoses.push_back(d);
  }
}

GradeResult Grader::run() {
  const auto t0 = Clock::now();
  auto phase_start = t0;
  auto end_phase = [&](const char* name) {
    r_.phase_seconds.emplace_back(name, seconds_since(phase_start));
    phase_start = Clock::now();
  };
  LocatedSubmission sub = locate_submission(opts_.submission);  // throws UsageError
  r_.submission = opts_.submission;
  r_.student = opts_.student.empty() ? fs::path(opts_.submission).filename().string() : opts_.student;
  if (r_.student.empty()) r_.student = fs::path(opts_.submission).parent_path().filename().string();
  r_.suite_name = suite_.name;
  r_.suite_path = suite_.path;
  r_.seed_given = opts_.seed.has_value();
  r_.seed = opts_.seed ? *opts_.seed : secret_seed();

  BackendSetup setup;
  setup.paths = &paths_;
  setup.gpu_lock = opts_.gpu_lock;
  setup.device_arch = opts_.device_arch;
  setup.log = opts_.log;
  backend_ = make_backend(opts_.backend, setup);  // throws UsageError
  r_.backend = backend_->kind();
  r_.device = backend_->device();
  r_.sandbox = paths_.sandbox.describe();
  if (!work_.note().empty()) log(work_.note());
  r_.tests = plan_tests(suite_, opts_.public_only ? Shown::PublicOnly : Shown::All, backend_->why_not_timed());
  end_phase("setup");

  if (!sub.problem.empty()) {
    fail_all(GradeState::InvalidSubmission, sub.problem);
    r_.build_log = sub.problem;
    r_.execution_time = seconds_since(t0);
    return r_;
  }
  // Grade a private copy: the submission cannot change under us.
  const std::string kernel = work_.sub("build/kernel.cu");
  fs::copy_file(sub.kernel, kernel, fs::copy_options::overwrite_existing);

  log(std::string("building (") + to_string(r_.backend.value()) + ")");
  build_ = backend_->build(kernel, work_);
  r_.device = backend_->device();
  r_.build_log = build_.log;
  r_.compile_time = build_.seconds;
  if (!build_.ok) {
    fail_all(build_.state, build_.why);
    r_.execution_time = seconds_since(t0);
    return r_;
  }
  if (!build_.helpers.empty()) {
    std::string names;
    for (std::size_t i = 0; i < build_.helpers.size() && i < 5; ++i) names += (i ? ", `" : "`") + build_.helpers[i] + "`";
    if (build_.helpers.size() > 5) names += " and " + std::to_string(build_.helpers.size() - 5) + " more";
    r_.notes.push_back("style: " + names + (build_.helpers.size() == 1 ? " is" : " are") +
                       " visible outside kernel.cu; the grader made " + (build_.helpers.size() == 1 ? "it" : "them") +
                       " private (no points lost). Declaring helpers `static` does that in your own code.");
  }
  runner_config_ = backend_->runner_config(build_.runner, work_);
  // Timed outputs leave the runner as files (proto SeededOutput): its
  // file-size limit holds the largest.
  for (const Case& c : suite_.cases)
    if (c.has_performance)
      runner_config_.limits.file_bytes =
          std::max(runner_config_.limits.file_bytes, static_cast<long long>(sizeof(float)) * c.m * c.n);
  run_checks(CheckStage::AfterBuild);
  end_phase("build");

  session_ = std::make_unique<RunnerSession>(runner_config_);

  // The sanitizer first (its tools start their own processes), then the
  // correctness cases and the timed cases in one runner: each CUDA process
  // started costs start-up time that several graders of one GPU queue for.
  // On a shared GPU each untimed step holds the GPU shared; the timed cases
  // hold it exclusive from the first to the last.
  // The timed cases' inputs and oracle results are made on a second thread
  // meanwhile: the judge mostly waits while the sanitizer runs.
  std::future<std::map<std::string, PreparedCase>> timed_inputs;
  if (backend_->why_not_timed().empty())
    timed_inputs = std::async(std::launch::async, [this] {
      std::map<std::string, PreparedCase> made;
      for (const Case& c : suite_.cases)
        if (c.has_performance && wanted(c.visibility) && backend_->cannot_run(c).empty())
          made.emplace(c.name, prepare(c));
      return made;
    });
  run_checks(CheckStage::BeforeCases);
  end_phase("sanitizer");
  // The runners' start-up (a CUDA context each) outside any hold: the
  // student's is waited for before the first case takes its shared hold, the
  // baseline runner's overlaps the correctness cases.
  const bool times_cases = std::any_of(suite_.cases.begin(), suite_.cases.end(),
                                       [this](const Case& c) { return c.has_performance && wanted(c.visibility); });
  if (backend_->why_not_timed().empty() && times_cases) {
    RunnerConfig cfg = backend_->runner_config(build_.baseline_runner, work_, "baseline-scratch");
    cfg.log_name = "baseline";
    cfg.limits.file_bytes = runner_config_.limits.file_bytes;
    baseline_ = std::make_unique<RunnerSession>(cfg);
    baseline_->begin();
    session_->spare(*baseline_);  // a failed case's sweep must not take it
  }
  for (const Case& c : suite_.cases)
    if (wanted(c.visibility)) {
      (void)session_->ready(backend_->case_time_limit(c));
      break;
    }
  // Each case holds the GPU shared on its own. (One hold over all of them
  // was tried: fewer waits for it, but longer ones for everybody's timings,
  // and fewer gradings per minute in all.)
  for (const Case& c : suite_.cases)
    if (wanted(c.visibility) && !c.has_performance) correctness_case(c, index_of(c.name));
  run_checks(CheckStage::AfterCases);  // the sanitizer's points need a correct case
  end_phase("correctness");
  // Performance cases: each is checked (untimed); then all of them are timed
  // in one exclusive hold, which covers the timed requests only.
  std::vector<TimedCase> to_time;
  std::map<std::string, PreparedCase> made = timed_inputs.valid() ? timed_inputs.get() : decltype(made){};
  for (const Case& c : suite_.cases) {
    if (!wanted(c.visibility) || !c.has_performance) continue;
    auto it = made.find(c.name);
    PreparedCase prepared = it != made.end() ? std::move(it->second) : PreparedCase{};
    if (auto timed = check_performance_case(c, index_of(c.name), std::move(prepared)))
      to_time.push_back(std::move(*timed));
  }
  end_phase("prepare");
  if (!to_time.empty()) time_cases(to_time);
  r_.gpu_exclusive_time = backend_->exclusive_seconds();
  if (shared_holds_ > 0) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "shared GPU: %d untimed holds waited %.2f s in all", shared_holds_, shared_wait_s_);
    log(buf);
  }
  session_->stop();
  baseline_.reset();
  end_phase("performance");
  r_.student_output = session_->captured_output(kLogCap);
  session_.reset();
  kill_all_descendants();
  diagnose_across_cases();
  r_.execution_time = seconds_since(t0);
  return r_;
}

}  // namespace

GradeResult grade(const Suite& suite, const GradeOptions& opts, const GraderPaths& paths) {
  Grader g(suite, opts, paths);
  return g.run();
}

}  // namespace sg
