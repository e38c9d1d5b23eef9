#include "pipeline/early_baselines.h"

#include <algorithm>
#include <exception>

#include "measure/timed_case.h"
#include "measure/timing.h"
#include "pipeline/grading.h"
#include "services/inputs.h"
#include "words/timing_log.h"

namespace sg {

std::unique_ptr<EarlyBaselines> EarlyBaselines::start(Grading& g) {
  if (!g.opts.gpu_lock.empty() || !g.backend->why_not_timed().empty() || g.timed_cases().empty()) return nullptr;
  std::string ignored;  // build() places it too, and says why it cannot
  const std::string program = g.backend->place_baseline_runner(g.work, ignored);
  if (program.empty()) return nullptr;
  g.backend->start_beside_build();
  auto runner = std::make_unique<RunnerSession>(g.baseline_runner_config(program));
  runner->begin();  // spawned on this thread, which outlives it
  return std::unique_ptr<EarlyBaselines>(new EarlyBaselines(g, std::move(runner)));
}

EarlyBaselines::EarlyBaselines(Grading& g, std::unique_ptr<RunnerSession> runner) : runner_(std::move(runner)) {
  thread_ = std::async(std::launch::async, [this, &g] {
    Outcome out = run(g);  // throws nothing
    done_.set_value();
    return out;
  });
}

EarlyBaselines::~EarlyBaselines() {
  stop_ = true;
  wait();
}

void EarlyBaselines::wait() {
  if (thread_.valid()) outcome_ = thread_.get();  // run() throws nothing
}

void EarlyBaselines::finish(Grading& g) {
  stop_ = true;
  wait();
  g.early_records = std::move(outcome_.records);
  if (outcome_.runner_healthy) g.baseline = std::move(runner_);
  runner_.reset();  // a runner that failed: the correctness stage starts another
}

EarlyBaselines::Outcome EarlyBaselines::run(Grading& g) {
  Outcome out;
  try {
    const std::vector<const Case*> cases = g.timed_cases();
    const std::string identity = g.baseline_runner_identity();
    // A first take's beginning says it is early; the rest as after the samples.
    const MeasureLog log = [&g](const TakeNote& note) {
      g.log(note.done || note.take > 1 ? take_log_line(note) : early_baselines_log_line(note.case_name));
    };
    // Two takes at most, without the pauses of later ones: the build is short.
    TakePolicy policy;
    policy.max_takes = 2;
    // cuBLAS's inputs, made while the runner and the judge's context start.
    std::vector<CaseInputs> inputs;
    for (const Case* c : cases) inputs.push_back(make_inputs(*c, g.r.seed));
    // No request after a failed one: a new runner would be spawned on this
    // thread, and die with it.
    const Case& first = *cases.front();
    if (!runner_->ready(g.backend->case_time_limit(first)) ||
        runner_->time_seeded(first.m, first.k, first.n, 1, proto::Launch::None, g.backend->case_time_limit(first))
                .kind != CaseOutcome::Kind::Ok)
      return out;
    for (std::size_t i = 0; i < cases.size() && !stop_; ++i) {
      const Case& c = *cases[i];
      TimedCase t;
      t.c = &c;
      t.evidence.m = c.m;
      t.evidence.k = c.k;
      t.evidence.n = c.n;
      time_baselines(*runner_, t, g.backend->case_time_limit(c), policy, log);
      if (t.failed()) return out;
      // Its last reference output checked as after the hold: a runner that
      // computed something else keeps no record, and is not used again.
      if (check_reference_output(runner_->scratch_dir(), c, t.reference_output)) {
        g.log(early_baselines_not_kept_log_line(c.name, early_wrong_output()));
        return out;
      }
      if (t.baseline_disturbance > kDisturbedSpread) {
        g.log(early_baselines_not_kept_log_line(c.name, early_disturbed(t.baseline_disturbance)));
        continue;
      }
      if (stop_) break;
      t.evidence.cublas_ms = g.backend->roofline_ms_beside_build(c, inputs[i], roofline_samples(c));
      if (t.evidence.cublas_ms <= 0) continue;
      out.records.push_back(record_of(record_key(c, identity), t.evidence, wall_seconds()));
    }
  } catch (const std::exception& e) {
    g.log(early_baselines_not_kept_log_line("the performance cases", e.what()));
  }
  out.runner_healthy = runner_->pid() != 0 && !runner_->has_failed();
  return out;
}

}  // namespace sg
