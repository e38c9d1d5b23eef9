// The grading pipeline for one submission:
//   locate -> build -> static checks -> run cases (untrusted runner) -> judge -> GradeResult.
// Report writing is the caller's (report/writers.h), so batch mode can reuse this.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "model/result.h"
#include "model/suite.h"

namespace sg {

// Where the grader's own pieces are (all discovered from the grade binary's folder).
struct GraderPaths {
  std::string home;               // the build folder holding `grade`
  std::string source_root;        // the kit's root (testcases/, reference/)
  std::string nvcc;               // empty when absent
  std::string compute_sanitizer;  // empty when absent
  std::string runner_objects;     // folder with runner_main.o, ref_tiled.o, ref_naive.o, protocol.o
  std::string cpu_include;        // the CUDA-on-CPU layer's headers
  std::string cpu_library;        // libcudacpu.a
  std::string cpu_runner_object;  // cpu_runner.o
  static GraderPaths discover();
};

struct GradeOptions {
  std::string submission;
  std::string student;                 // id shown in reports (default: the submission's name)
  std::optional<std::uint64_t> seed;   // secret when absent
  bool public_only = false;            // --visibility public
  std::string backend = "auto";        // auto | gpu | cpu
  std::string work_root;               // where the private work folder goes (default TMPDIR or /tmp)
  bool keep_work = false;             // keep the work folder (debugging)
  std::string gpu_lock;                // flock(2) this file while running cases (batch pipelines)
  // The GPU's architecture ("sm_90") when the caller knows it: the build
  // then starts while this process's CUDA start-up runs beside it.
  std::string device_arch;
  std::function<void(const std::string&)> log;  // progress lines (may be empty)
};

// Wall time one run of a case may take: the suite's timeout_s is a GPU time;
// the CPU backend adds time in proportion to the case's work.
double case_time_limit(const Case& c, const std::string& backend);

// Throws UsageError (pipeline/submission.h) when the submission does not exist or
// the backend cannot be used, std::runtime_error for internal errors.
GradeResult grade(const Suite& suite, const GradeOptions& opts, const GraderPaths& paths);

}  // namespace sg
