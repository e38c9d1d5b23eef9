#include "pipeline/stages.h"

namespace sg {

bool sanitizer_stage(Grading& g) {
  g.session = std::make_unique<RunnerSession>(g.runner_config);
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
