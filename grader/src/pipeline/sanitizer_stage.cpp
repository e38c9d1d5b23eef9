#include "pipeline/stages.h"

namespace sg {

bool sanitizer_stage(Grading& g) {
  g.session = std::make_unique<RunnerSession>(g.runner_config);
  // Beside other gradings a case that times out is made again alone on a
  // fresh runner, after the same earlier calls (RunnerSession::rerun).
  g.session->keep_calls(!g.opts.gpu_lock.empty());
  // The timed cases' inputs and oracle results are made on a second thread
  // meanwhile: the judge mostly waits while the sanitizer runs.
  if (g.backend->why_not_timed().empty())
    g.timed_inputs = std::async(std::launch::async, [&g] {
      std::map<std::string, PreparedCase> made;
      for (const Case& c : g.suite.cases)
        if (c.has_performance && g.wanted(c.visibility) && g.backend->cannot_run(c).empty())
          made.emplace(c.name, g.prepare(c));
      return made;
    });
  g.run_checks(CheckStage::BeforeCases);
  return true;
}

}  // namespace sg
