// Where the grader's own pieces are, all found from the grade binary's folder.
#pragma once
#include <string>

#include "process/sandbox.h"

namespace sg {

struct GraderPaths {
  std::string home;               // the build folder holding `grade`
  std::string source_root;        // the kit's root (testcases/, reference/)
  std::string nvcc;               // empty when absent
  std::string compute_sanitizer;  // empty when absent
  std::string ncu;                // Nsight Compute's CLI (the structure check's load counts); empty when absent
  std::string runner_objects;     // folder with runner_main.o, runner_selftest.o, protocol.o (linked with a submission) and baseline_runner
  std::string cpu_include;        // the CUDA-on-CPU layer's headers
  std::string cpu_library;        // libcudacpu.a
  std::string cpu_runner_object;  // cpu_runner.o
  SandboxSupport sandbox;         // whether compilers and runners run inside bubblewrap here
  static GraderPaths discover();
};

}  // namespace sg
