#include "pipeline/stages.h"

namespace sg {
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
  // (its run) instead of two. (A grading alone began while its submission
  // built: build_stage.cpp.)
  if (!g.backend->oracle_on_host() && !g.making_ahead.valid()) g.start_making_ahead();
  // A grading alone with cases to time runs it last (Grading::sanitizer_last).
  if (!g.sanitizer_last()) g.run_checks(CheckStage::BeforeCases);
  return true;
}

}  // namespace sg
