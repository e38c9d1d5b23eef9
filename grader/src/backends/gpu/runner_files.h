// The GPU backend's two runner programs in a grading's work folder: the
// student's, linked from the submission's object and the runner's pieces,
// and a private copy of the grader's baseline runner; and the environment
// every run of a runner gets.
#pragma once
#include <string>
#include <vector>

#include "process/tool_run.h"
#include "services/grader_paths.h"
#include "services/work_dir.h"

namespace sg {

// Links `object` with the runner's pieces (runner_objects) into
// work.sub("build/runner"), its output in logs/link.txt. No reference code
// goes in: the baselines are timed by the baseline runner (Makefile), which
// never loads student code.
ToolRun link_student_runner(const GraderPaths& paths, const std::string& object, const WorkDir& work);

// Copies the grader's baseline runner to work.sub("baseline/baseline_runner"),
// where the unprivileged user the runners run as can reach it, and out of
// build/, where the submission compiles (its sandbox binds only baseline/):
// its path, or "" with why appended to `log`.
std::string copy_baseline_runner(const GraderPaths& paths, const WorkDir& work, std::string& log);

// The environment of every run of a runner (checked, timed, under a tool):
// the same in each, so that none can be told from another by it. Modules are
// loaded with the context, so a tool's run has the submission's module loaded
// (and instrumented) before its turn; one work queue a context
// (cuda_connections.h).
std::vector<std::string> runner_environment(const std::string& scratch);

}  // namespace sg
