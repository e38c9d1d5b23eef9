#include <algorithm>
#include <filesystem>

#include "pipeline/stages.h"
#include "services/limits.h"
#include "words/build_report.h"
#include "words/grading_log.h"
#include "words/submission_report.h"

namespace fs = std::filesystem;

namespace sg {

bool build_stage(Grading& g) {
  GradeResult& r = g.r;
  if (g.sub.problem) {
    const std::string problem = submission_problem_text(g.sub.problem);
    g.fail_all(GradeState::InvalidSubmission, problem);
    r.build_log = problem;
    return false;
  }
  // Grade a private copy: the submission cannot change under us.
  const std::string kernel = g.work.sub("build/kernel.cu");
  fs::copy_file(g.sub.kernel, kernel, fs::copy_options::overwrite_existing);

  g.log(std::string("building (") + to_string(r.backend.value()) + ")");
  g.early_baselines = EarlyBaselines::start(g);
  // Alone, the cases' inputs and oracle results are made meanwhile too; their
  // device work waits for the baselines' takes, which want the GPU quiet.
  if (g.early_baselines) g.start_making_ahead(g.early_baselines->done());
  g.build = g.backend->build(kernel, g.work);
  // A build that failed for no error in the source: the machine ran out
  // (disk, descriptors), never the student's compile error; built again
  // once, a second time it is an internal error. (A full disk may leave no
  // room for the compiler's own message.) Unless the work folder's own quota
  // is full: then the submission made its compilers write that much (a huge
  // initialised table, say), a compile error of its own.
  std::optional<QuotaOverrun> quota;
  auto machine_ran_out = [&g, &quota] {
    if (g.build.ok) return std::string();
    quota = over_quota(g.work.place(""));
    if (quota) return std::string();
    const std::string said = grader_resource_failure(g.build.log);
    return said.empty() ? g.work.out_of_space() : said;
  };
  if (const std::string out_of = machine_ran_out(); !out_of.empty()) {
    g.log(build_ran_out_log_line(out_of));
    g.build = g.backend->build(kernel, g.work);
    if (const std::string again = machine_ran_out(); !again.empty()) {
      g.build.state = GradeState::InternalError;
      g.build.why = build_ran_out_twice(again);
    }
  }
  if (quota) {
    g.build.state = GradeState::CompileError;
    g.build.why = build_over_quota_why(*quota);
  }
  // The GPU is the sanitizer's from here on: the baselines timed meanwhile
  // stop after the request in flight.
  if (g.early_baselines) g.early_baselines->finish(g);
  g.early_baselines.reset();
  r.device = g.backend->device();
  r.build_log = g.build.log;
  r.compile_time = g.build.seconds;
  if (!g.build.ok) {
    g.stop_making_ahead = true;
    g.fail_all(g.build.state, g.build.why);
    return false;
  }
  if (!g.build.helpers.empty()) r.notes.push_back(helpers_note(g.build.helpers));
  g.runner_config = g.backend->runner_config(g.build.runner, g.work);
  // Timed outputs leave the runner as files (proto SeededOutput).
  g.runner_config.limits.file_bytes = std::max(g.runner_config.limits.file_bytes, g.largest_timed_output_bytes());
  g.tool_config = g.backend->runner_config(g.build.runner, g.work, "tool-scratch");
  g.run_checks(CheckStage::AfterBuild);
  return true;
}

}  // namespace sg
