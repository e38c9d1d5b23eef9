#include "pipeline/grade.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

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

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double round2(double x) { return std::round(x * 100.0) / 100.0; }

struct PreparedCase {
  CaseInputs in;
  std::vector<double> c64, abs_ab;
};

// One checked launch, compared with the oracle (when the runner answered).
struct CheckedRun {
  CaseOutcome out;
  std::optional<Comparison> cmp;
  bool differs = false;  // a second launch on the same inputs gave other bits
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
    std::vector<PendingOutput> pending;  // timed outputs still to be checked
    bool failed = false;  // a timed request failed; the performance test says why
  };
  CheckedRun checked_run(const Case& c, const PreparedCase& prepared);
  // Runs and records the correctness test r_.tests[ci]; true when correct.
  bool check_case(const Case& c, std::size_t ci, const PreparedCase& prepared);
  void correctness_case(const Case& c, std::size_t ci);
  // The untimed half of a performance case: its correctness test.
  std::optional<TimedCase> check_performance_case(const Case& c, std::size_t ci, PreparedCase prepared);
  // The timed half: each case's student samples in an exclusive hold, their
  // outputs checked after it; the student's runner then ends, and the
  // baselines and the overhead are timed in the grader's baseline runner, in
  // a second exclusive hold.
  void time_cases(std::vector<TimedCase>& cases);
  void time_student(TimedCase& timed);
  void check_student(TimedCase& timed);
  void time_baselines(std::vector<TimedCase>& cases);
  void score_timing(TimedCase& timed);
  // A case's inputs and FP64 oracle result. The second thread passes
  // own_hold: it takes a hold of its own whatever the main thread holds.
  PreparedCase prepare(const Case& c, bool own_hold = false);
  // A shared hold on the device for one untimed step (nothing while this
  // grading already holds it to itself). Only the main thread may ask (a
  // nested request would wait behind a timing that waits for us).
  std::unique_ptr<DeviceHold> untimed_hold();
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
  std::unique_ptr<RunnerSession> session_;
  std::vector<SizeOutcome> outcomes_;
  bool timing_phase_ = false;                 // the timed cases hold the device to themselves
  std::unique_ptr<DeviceHold> timing_hold_;   // held from the first timed case to the last
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
  ctx.sanitizer = {build_.runner, &runner_config_, work_.sub("logs"), r_.seed, {}};
  for (const Case& c : suite_.cases)
    if (wanted(c.visibility)) ctx.sanitizer.cases.push_back(c);
  for (const auto& t : r_.tests) {
    if (t.kind != TestKind::Correctness) continue;
    ctx.any_case_correct |= t.status == Status::Passed;
    for (const Diagnosis& d : t.diagnoses)
      if (d.id == kOutOfBoundsHint.id) {
        ctx.cases_out_of_bounds.push_back(t.name);
        break;
      }
  }
  for (const Check& c : suite_.checks)
    if (wanted(c.visibility)) run_check(c, stage, ctx, r_.tests[index_of(c.name)]);
}

std::unique_ptr<DeviceHold> Grader::untimed_hold() {
  if (timing_phase_) return nullptr;
  return take_shared_hold();
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

PreparedCase Grader::prepare(const Case& c, bool own_hold) {
  PreparedCase p;
  p.in = make_inputs(c, r_.seed);  // host work: no hold, so a waiting timing is not kept waiting
  const auto hold = own_hold ? take_shared_hold() : untimed_hold();
  const std::lock_guard<std::mutex> one_at_a_time(oracle_mutex_);
  backend_->oracle(c, p.in, p.c64, p.abs_ab);
  return p;
}

CheckedRun Grader::checked_run(const Case& c, const PreparedCase& prepared) {
  CheckedRun run;
  const CaseInputs& in = prepared.in;
  const double timeout = backend_->case_time_limit(c);
  {
    const auto hold = untimed_hold();
    run.out = session_->run(c.m, c.k, c.n, in.a, in.b, timeout);
  }
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
    const auto hold = untimed_hold();
    CaseOutcome again = session_->run(c.m, c.k, c.n, in.a, in.b, timeout);
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
    outcomes_.push_back({c.m, c.k, c.n, false});
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
  outcomes_.push_back({c.m, c.k, c.n, correct});
  return correct;
}

void Grader::correctness_case(const Case& c, std::size_t ci) {
  if (const std::string why = backend_->cannot_run(c); !why.empty()) {
    mark_not_run(r_.tests[ci], why, Status::Skipped);
    return;
  }
  check_case(c, ci, prepare(c));
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
  // Case by case: the runner keeps one shape's outputs at a time. Checking
  // them needs no exclusive GPU, so the next grading's timing may start meanwhile.
  for (TimedCase& t : cases) {
    if (!timing_hold_) timing_hold_ = backend_->exclusive_hold();
    time_student(t);
    timing_hold_.reset();
    check_student(t);
  }
  // The student's runner ends (and is reaped, with everything it started)
  // before the baseline runner starts: nothing of the submission can share
  // the GPU with the baselines, or reach the baseline runner, which runs as
  // the same unprivileged user. The baseline runner's CUDA start-up comes
  // before the second exclusive hold, which covers its timed requests and cuBLAS.
  session_->stop();
  time_baselines(cases);  // the caller lets go of its exclusive hold
}

void Grader::time_student(TimedCase& timed) {
  const Case& c = *timed.c;
  TestResult& p = r_.tests[timed.pi];
  const auto t0 = Clock::now();
  log("timing " + c.name);
  const std::string failed =
      time_student_samples(*session_, c, backend_->case_time_limit(c), timed.evidence, timed.pending);
  if (!failed.empty()) {
    mark_not_run(p, "not measured: the timed launches failed: " + failed);
    timed.failed = true;
  }
  p.seconds = seconds_since(t0);
}

void Grader::check_student(TimedCase& timed) {
  if (timed.failed) return;
  const Case& c = *timed.c;
  const auto t0 = Clock::now();
  // Shared: fetching the outputs uses the GPU, which another grading may be timing.
  const auto hold = take_shared_hold();
  const std::string failed =
      check_student_samples(*session_, c, backend_->case_time_limit(c), timed.pending, timed.evidence);
  if (!failed.empty()) {
    mark_not_run(r_.tests[timed.pi], "not measured: sending the timed outputs failed: " + failed);
    timed.failed = true;
  }
  r_.tests[timed.pi].seconds += seconds_since(t0);
}

void Grader::time_baselines(std::vector<TimedCase>& cases) {
  if (std::all_of(cases.begin(), cases.end(), [](const TimedCase& t) { return t.failed; })) return;
  RunnerConfig cfg = backend_->runner_config(build_.baseline_runner, work_);
  cfg.log_name = "baseline";
  RunnerSession baseline(cfg);
  // Its CUDA start-up (an untimed request that launches nothing) outside the
  // exclusive hold; shared, as it uses a GPU another grading may be timing.
  const auto first = std::find_if(cases.begin(), cases.end(), [](const TimedCase& t) { return !t.failed; });
  {
    const auto hold = take_shared_hold();
    (void)baseline.time_seeded(first->c->m, first->c->k, first->c->n, 1, proto::Launch::None,
                               backend_->case_time_limit(*first->c));
  }
  if (!opts_.gpu_lock.empty()) log("waiting for the GPU to itself (baselines)");
  timing_hold_ = backend_->exclusive_hold();
  for (TimedCase& t : cases) {
    if (t.failed) continue;
    log("timing the baselines of " + t.c->name);
    const std::string failed = time_baseline_samples(baseline, *t.c, backend_->case_time_limit(*t.c), t.evidence);
    if (!failed.empty()) {
      mark_not_run(r_.tests[t.pi], "not measured: the grader's baseline runner failed: " + failed);
      t.failed = true;
    }
  }
  baseline.stop();
  for (TimedCase& t : cases) score_timing(t);
}

void Grader::score_timing(TimedCase& timed) {
  if (timed.failed) return;
  const Case& c = *timed.c;
  TestResult& p = r_.tests[timed.pi];
  const int samples = c.performance.samples;
  TimingEvidence& e = timed.evidence;
  e.cublas_ms = backend_->roofline_ms(c, timed.prepared.in, std::max(5, samples / 2));
  Timing tm = evaluate_timing(e);
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
                "timed by the grader's clock: request overhead %.3f ms subtracted; every timed output checked "
                "(digest and Freivalds' test)\n",
                tm.samples, tm.student_ms, 100 * tm.student_spread, tm.reference_ms, tm.naive_ms, tm.cublas_ms,
                tm.overhead_ms);
  p.detail = buf;
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
          made.emplace(c.name, prepare(c, true));
      return made;
    });
  run_checks(CheckStage::BeforeCases);
  end_phase("sanitizer");
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
  if (!to_time.empty()) {
    if (!opts_.gpu_lock.empty()) log("waiting for the GPU to itself (timed cases)");
    timing_phase_ = true;
    timing_hold_ = backend_->exclusive_hold();
  }
  end_phase("gpu_wait");
  if (!to_time.empty()) time_cases(to_time);
  timing_hold_.reset();  // the timings are done: let the next grading's timing start
  timing_phase_ = false;
  if (shared_holds_ > 0) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "shared GPU: %d untimed holds waited %.2f s in all", shared_holds_, shared_wait_s_);
    log(buf);
  }
  session_->stop();
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
