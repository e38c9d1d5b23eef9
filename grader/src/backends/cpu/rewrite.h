// The CPU backend's source rewriter: turns a student's kernel.cu into a C++
// translation unit for the host compiler and the CUDA-on-CPU layer
// (grader/cudacpu). Line numbers are kept identical, so compiler
// messages point at the student's own lines.
//
//   kern<<<g, b>>>(args)          -> ::cudacpu::launch(kern, g, b)(args)
//   kern<<<g, b, shmem, s>>>(args) -> ::cudacpu::launch(kern, g, b, shmem, s)(args)
//   __shared__ float t[16][16];   -> static thread_local float t[16][16];
//   extern __shared__ float s[];  -> float* s = reinterpret_cast<float*>(<block's dynamic shared memory>);
//
// Constructs the layer lacks are reported as facts (model/source_problem.h),
// which words/cpu_backend_lines says as
//   "kernel.cu:LINE: `__shfl_down_sync` is not supported on the CPU backend".
#pragma once
#include <string>

#include "model/source_problem.h"

namespace sg {

struct RewriteResult {
  std::string source;      // the translation unit (valid only when problems is empty)
  SourceProblems problems;  // in source order
  int launches = 0;         // kernel launches rewritten
  bool ok() const { return problems.empty(); }
};

// `display_name` is what the #line directive calls the file.
RewriteResult rewrite_for_cpu(const std::string& source, const std::string& display_name = "kernel.cu");

}  // namespace sg
