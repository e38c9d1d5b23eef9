// Builds the CPU backend's runner from a kernel.cu: rewrite the source
// (rewrite.h), compile it with the host compiler against the CUDA-on-CPU
// layer, link it with the CPU runner's main and the layer's library.
#pragma once
#include <string>
#include <vector>

#include "process/sandbox.h"

namespace sg {

struct CpuPaths {
  std::string include_dir;    // grader/cudacpu/include (holds cudacpu.h)
  std::string library;        // libcudacpu.a: the layer and the protocol
  std::string runner_object;  // cpu_runner.o: the runner's main
  std::string cxx = "g++";    // host compiler; a bare name is looked up in PATH
  SandboxSupport sandbox;     // this grading's bubblewrap (or none) and uid for the compilers
};

struct CpuBuildResult {
  bool ok = false;
  std::string log;     // rewriter problems or compiler/linker output (capped); names kernel.cu lines
  std::string runner;  // path of the runner executable when ok
  std::vector<std::string> helpers;  // the student's global names made local before linking
  // Not built for a reason other than a compile error: the symbol policy's
  // problems (a rejection), or code that depends on __CUDA_ARCH__.
  std::vector<std::string> rejected;
  bool depends_on_arch = false;
  double seconds = 0;  // wall time of the whole build
};

// `kernel_cu` is the submission's kernel.cu (or a folder holding one). All
// outputs go into `workdir` (created if needed): cpu_kernel.cpp (the
// rewritten source), cpu_kernel.ii (it preprocessed), cpu_kernel.o,
// cpu_runner and cpu_build.log. Compile and
// link together get `timeout_s` of wall time.
CpuBuildResult build_cpu_runner(const std::string& kernel_cu, const std::string& workdir, const CpuPaths& paths,
                                double timeout_s);

}  // namespace sg
