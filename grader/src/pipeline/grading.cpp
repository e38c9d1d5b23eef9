#include "pipeline/grading.h"

#include <algorithm>
#include <filesystem>

#include "model/plan.h"
#include "words/case_report.h"
#include "words/grading_log.h"

namespace sg {

using Clock = std::chrono::steady_clock;

std::size_t Grading::index_of(const std::string& test_name) const {
  std::size_t i = 0;
  while (r.tests[i].name != test_name) ++i;
  return i;
}

bool Grading::at_structure_shape(const Case& c) const {
  for (const Check& k : suite.checks)
    if (k.kind == CheckKind::SharedAndBarrier && wanted(k.visibility) && k.m == c.m && k.k == c.k && k.n == c.n)
      return true;
  return false;
}

std::vector<const Case*> Grading::timed_cases() const {
  std::vector<const Case*> out;
  if (!backend || !backend->why_not_timed().empty()) return out;
  for (const Case& c : suite.cases)
    if (c.has_performance && wanted(c.visibility)) out.push_back(&c);
  return out;
}

RunnerConfig Grading::baseline_runner_config(const std::string& program) const {
  RunnerConfig cfg = backend->runner_config(program, work, "baseline-scratch");
  cfg.log_name = "baseline";
  cfg.sweeps = false;  // the grader's own program starts nothing
  cfg.limits.file_bytes = std::max(cfg.limits.file_bytes, largest_timed_output_bytes());
  return cfg;
}

long long Grading::largest_timed_output_bytes() const {
  long long bytes = 0;
  for (const Case& c : suite.cases)
    if (c.has_performance) bytes = std::max(bytes, static_cast<long long>(sizeof(float)) * c.m * c.n);
  return bytes;
}

std::string Grading::baseline_runner_identity() const {
  // The program every grading copies into its work folder (so not the
  // copy's path), and when it was built (a grader rebuilt in the middle of a
  // batch starts new records).
  const std::string program = paths.runner_objects + "/baseline_runner";
  std::error_code ec;
  const auto built = std::filesystem::last_write_time(program, ec);
  return program + " built " + (ec ? std::string("?") : std::to_string(built.time_since_epoch().count()));
}

void Grading::fail_all(GradeState state, const std::string& why) {
  r.state = state;
  for (auto& t : r.tests)
    if (!set_aside(t)) mark_stopped(t, not_run(why), why);  // the not-measured stay out of the maximum
}

CheckContext Grading::check_context(CheckStage stage) const {
  CheckContext ctx;
  ctx.backend = backend.get();
  ctx.build = &build;
  ctx.tests = &r.tests;
  ctx.sanitizer = {build.runner, &tool_config, work.sub("logs"), r.seed, {}, {}};
  for (const Case& c : suite.cases)
    if (wanted(c.visibility)) ctx.sanitizer.cases.push_back(c);
  ctx.sanitizer.counted = counted;
  ctx.sanitizer.session = stage == CheckStage::BeforeCases ? nullptr : session.get();
  ctx.sanitizer.baseline = baseline.get();
  // The correctness cases' results, not the performance cases' checks: the
  // CPU backend runs none of those, and a GPU checks them before the checks
  // are graded.
  for (const Case& c : suite.cases) {
    if (!wanted(c.visibility) || c.has_performance) continue;
    const TestResult& t = r.tests[index_of(c.name)];
    ctx.any_case_correct |= t.status == Status::Passed;
    if (t.status == Status::Failed && !t.comparison) ctx.cases_runner_failed.push_back(t.name);
  }
  ctx.cases_out_of_bounds = cases_out_of_bounds;
  ctx.cases_with_block_races = cases_with_block_races;
  return ctx;
}

void Grading::run_checks(CheckStage stage) { run_checks(stage, check_context(stage)); }

void Grading::run_checks(CheckStage stage, const CheckContext& ctx) {
  for (const Check& c : suite.checks)
    if (wanted(c.visibility)) run_check(c, stage, ctx, r.tests[index_of(c.name)]);
}

// Only inside the sandbox: without it the tools' runs, as the grading's own
// user, could reach scratch/ and rewrite the timed outputs being checked.
bool Grading::sanitizer_last() const {
  return opts.gpu_lock.empty() && !runner_config.sandbox.bwrap.empty() && !timed_cases().empty();
}

void Grading::start_sanitizer() {
  if (!sanitizer_last() || sanitizer_beside.valid()) return;
  // The context is gathered here, on the grading's thread; the thread writes
  // only the checks' own results (the sanitizer's, the one BeforeCases check).
  sanitizer_beside = std::async(std::launch::async, [this, ctx = check_context(CheckStage::BeforeCases)] {
                       run_checks(CheckStage::BeforeCases, ctx);
                     }).share();
}

void Grading::finish_sanitizer() {
  start_sanitizer();
  if (sanitizer_beside.valid()) sanitizer_beside.get();
}

std::unique_ptr<DeviceHold> Grading::take_shared_hold(SharedHold length) {
  if (alone) return nullptr;  // only the main thread holds it, once the thread making cases ahead has ended
  const auto t0 = Clock::now();
  auto hold = backend->shared_hold(length);
  if (!hold) return nullptr;
  const std::lock_guard<std::mutex> stats(hold_stats_mutex);
  shared_wait_s += seconds_since(t0);
  ++shared_holds;
  return hold;
}

std::map<std::string, PreparedCase>& Grading::cases_made_ahead() {
  if (making_ahead.valid()) made_ahead = making_ahead.get();
  return made_ahead;
}

PreparedCase Grading::take_prepared(const Case& c) {
  std::map<std::string, PreparedCase>& made = cases_made_ahead();
  const auto it = made.find(c.name);
  if (it == made.end()) return prepare(c);
  PreparedCase p = std::move(it->second);
  made.erase(it);
  return p;
}

void Grading::hold_alone(double baseline_start_s) {
  if (alone) return;
  (void)cases_made_ahead();
  if (baseline) (void)baseline->ready(baseline_start_s);
  alone = backend->exclusive_hold();
}

PreparedCase Grading::prepare(const Case& c) {
  PreparedCase p;
  p.in = make_inputs(c, r.seed);  // host work: no hold, so a waiting timing is not kept waiting
  const auto hold = take_shared_hold();
  const std::lock_guard<std::mutex> one_at_a_time(oracle_mutex);
  backend->oracle(c, p.in, p.c64, p.abs_ab);
  return p;
}

std::map<std::string, PreparedCase> Grading::prepare_all(const std::vector<const Case*>& cases,
                                                         const std::shared_future<void>& gpu_free) {
  std::map<std::string, PreparedCase> made;
  for (const Case* c : cases) made[c->name].in = make_inputs(*c, r.seed);  // host work, before the hold
  if (cases.empty()) return made;
  if (gpu_free.valid()) gpu_free.wait();
  const auto hold = take_shared_hold();
  const std::lock_guard<std::mutex> one_at_a_time(oracle_mutex);
  for (const Case* c : cases) {
    // None where the build failed; none for a case the device cannot hold
    // (made while the submission builds, the cases were chosen before the
    // device was described): it is set aside at its turn.
    if (stop_making_ahead || !backend->cannot_run_now(*c).empty()) {
      made.erase(c->name);
      continue;
    }
    PreparedCase& p = made[c->name];
    backend->oracle(*c, p.in, p.c64, p.abs_ab);
  }
  return made;
}

namespace {

// What the correctness cases made ahead may hold at once (inputs and oracle
// results): the default suite's take about 60 MB.
constexpr double kMadeAheadBytes = 256.0 * (1 << 20);

}  // namespace

std::vector<const Case*> Grading::cases_to_make_ahead() const {
  std::vector<const Case*> cases;
  double bytes = 0;
  for (const Case& c : suite.cases) {
    if (!wanted(c.visibility) || !backend->cannot_run(c).empty()) continue;
    if (c.has_performance) {
      if (backend->why_not_timed().empty()) cases.push_back(&c);
      continue;
    }
    const double held = 4.0 * (double(c.m) * c.k + double(c.k) * c.n) + 16.0 * double(c.m) * c.n;
    if (bytes + held > kMadeAheadBytes) continue;
    bytes += held;
    cases.push_back(&c);
  }
  return cases;
}

void Grading::start_making_ahead(std::shared_future<void> gpu_free) {
  making_ahead = std::async(std::launch::async, [this, cases = cases_to_make_ahead(), gpu_free] {
    return prepare_all(cases, gpu_free);
  });
}

std::unique_ptr<PreparedCase> Grading::prepare_beside_run(const Case& c) {
  auto p = std::make_unique<PreparedCase>();
  p->in = make_inputs(c, r.seed);
  PreparedCase* made = p.get();  // stays where it is until the case has waited for the oracle
  p->oracle = std::async(std::launch::async, [this, &c, made] {
                const std::lock_guard<std::mutex> one_at_a_time(oracle_mutex);
                backend->oracle(c, made->in, made->c64, made->abs_ab);
              }).share();
  return p;
}

}  // namespace sg
