// The grading pipeline for one submission:
//   locate -> plan -> build -> checks -> cases (untrusted runner) -> judge -> GradeResult.
// Everything that differs between GPU and CPU is the backend's (backends/backend.h).
// Report writing is the caller's (report/writers.h), so batch mode can reuse this.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "model/result.h"
#include "model/suite.h"
#include "process/mount_namespace.h"
#include "services/grader_paths.h"

namespace sg {

struct BackendKeep;  // backends/backend.h

struct GradeOptions {
  std::string submission;
  std::string student;                 // id shown in reports (default: the submission's name)
  std::optional<std::uint64_t> seed;   // secret when absent
  bool public_only = false;            // --visibility public
  std::optional<BackendKind> backend;  // --backend gpu | cpu; unset: auto
  std::string work_root;               // where the private work folder goes (default TMPDIR or /tmp)
  bool keep_work = false;             // keep the work folder (debugging)
  std::string gpu_lock;                // flock(2) this file while running cases (batch pipelines)
  // The GPU's architecture ("sm_90") when the caller knows it: the build
  // then starts while this process's CUDA start-up runs beside it.
  std::string device_arch;
  std::function<void(const std::string&)> log;  // progress lines (may be empty)
  // Whether this process may mount the grading's disk quotas (process/mount_namespace.h).
  PrivateMounts mounts;
  // A `grade worker`'s trusted state, kept from its last grading (backends/backend.h); nullptr: none.
  BackendKeep* keep = nullptr;
};

// Throws UsageError (services/submission.h) when the submission does not exist or
// the backend cannot be used, std::runtime_error for internal errors. The
// machine's own resource failure (MachineFailure, services/limits.h; or the
// judge out of memory) grades once more; a second is recorded as an internal
// error that names it.
GradeResult grade(const Suite& suite, const GradeOptions& opts, const GraderPaths& paths);

}  // namespace sg
