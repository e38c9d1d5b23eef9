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
// Constructs the layer lacks are reported as
//   "kernel.cu:LINE: `__shfl_down_sync` is not supported on the CPU backend".
#pragma once
#include <string>
#include <vector>

namespace sg {

struct RewriteResult {
  std::string source;                 // the translation unit (valid only when problems is empty)
  std::vector<std::string> problems;  // one complete message each, in source order
  int launches = 0;                   // kernel launches rewritten
  bool ok() const { return problems.empty(); }
};

// `display_name` is what messages and the #line directive call the file.
RewriteResult rewrite_for_cpu(const std::string& source, const std::string& display_name = "kernel.cu");

}  // namespace sg
