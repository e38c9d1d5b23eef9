#include "pipeline/stages.h"

namespace sg {
namespace {

// What the correctness cases made ahead may hold at once (inputs and oracle
// results): the default suite's take about 60 MB.
constexpr double kMadeAheadBytes = 256.0 * (1 << 20);

}  // namespace

bool sanitizer_stage(Grading& g) {
  g.session = std::make_unique<RunnerSession>(g.runner_config);
  // A baseline runner started while the submission built: no sweep takes it.
  if (g.baseline) g.session->spare(*g.baseline);
  // Beside other gradings a case that times out is made again alone on a
  // fresh runner, after the same earlier calls (RunnerSession::rerun).
  g.session->keep_calls(!g.opts.gpu_lock.empty());
  // Where the oracle is device work, every case's inputs and oracle result
  // are made on a second thread meanwhile, in one shared hold: the judge
  // mostly waits while the sanitizer runs, and each case then takes one hold
  // (its run) instead of two.
  // The performance cases always; the others while what they hold at once
  // stays under kMadeAheadBytes (a suite of large correctness cases makes
  // the rest at their turn, each in a hold of its own).
  if (!g.backend->oracle_on_host()) {
    std::vector<const Case*> cases;
    double bytes = 0;
    for (const Case& c : g.suite.cases) {
      if (!g.wanted(c.visibility) || !g.backend->cannot_run(c).empty()) continue;
      if (c.has_performance) {
        if (g.backend->why_not_timed().empty()) cases.push_back(&c);
        continue;
      }
      const double held = 4.0 * (double(c.m) * c.k + double(c.k) * c.n) + 16.0 * double(c.m) * c.n;
      if (bytes + held > kMadeAheadBytes) continue;
      bytes += held;
      cases.push_back(&c);
    }
    g.making_ahead = std::async(std::launch::async, [&g, cases] { return g.prepare_all(cases); });
  }
  g.run_checks(CheckStage::BeforeCases);
  return true;
}

}  // namespace sg
