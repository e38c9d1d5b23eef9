#include <filesystem>

#include "backends/registry.h"
#include "model/plan.h"
#include "pipeline/stages.h"
#include "services/limits.h"
#include "words/grading_log.h"

namespace fs = std::filesystem;

namespace sg {

bool setup_stage(Grading& g) {
  g.sub = locate_submission(g.opts.submission);  // throws UsageError
  GradeResult& r = g.r;
  r.submission = g.opts.submission;
  r.student = g.opts.student.empty() ? fs::path(g.opts.submission).filename().string() : g.opts.student;
  if (r.student.empty()) r.student = fs::path(g.opts.submission).parent_path().filename().string();
  r.suite_name = g.suite.name;
  r.suite_path = g.suite.path;
  r.seed_given = g.opts.seed.has_value();
  r.seed = g.opts.seed ? *g.opts.seed : secret_seed();

  BackendSetup setup;
  setup.paths = &g.paths;
  setup.keep = g.opts.keep;
  setup.gpu_lock = g.opts.gpu_lock;
  setup.device_arch = g.opts.device_arch;
  setup.log = g.opts.log;
  g.backend = make_backend(g.opts.backend, setup);  // throws UsageError
  r.backend = g.backend->kind();
  r.device = g.backend->device();
  if (!g.work.unreachable_root().empty()) g.log(work_folder_moved_line(g.work.unreachable_root()));
  plan_into(r, g.suite, g.opts.public_only ? Shown::PublicOnly : Shown::All, g.backend->why_not_timed());
  // Before anything is written: what this grading may write, sized for
  // the cases the backend times (services/limits.h).
  g.work.give_quotas(grading_quotas(g.suite, g.backend->why_not_timed().empty()));
  r.sandbox = sandbox_line(g.paths.sandbox, g.work);
  return true;
}

}  // namespace sg
