// Sentences of a build (backends/cpu/cpu_backend.cpp, cpu_build.cpp and
// backends/gpu/gpu_backend.cpp decide, these say): why a build stopped, as a
// report's verdict says it, and the lines each backend's build adds to the
// build log students read.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "services/disk_quota.h"
#include "static_checks/static_checks.h"

namespace sg {

// Why a build stopped. "rejected: " and the problems the symbol policy found.
std::string rejected_why(const std::vector<std::string>& problems);
// g++ refused kernel.cu and no nvcc could say whether it is the student's
// error; `names_cpu_layer`: g++'s message names the CPU layer.
std::string cpu_build_failed_why(bool names_cpu_layer);
// g++ refused what nvcc compiles: a limit of the CPU backend; `first_error`
// is g++'s first error line ("" where none was found).
std::string cpu_limit_nvcc_compiles_why(const std::string& first_error);
// The code differs with __CUDA_ARCH__; `first_line` is the log's first line.
std::string depends_on_arch_why(const std::string& first_line);
std::string nvcc_refused_why();
// The build filled the work folder's quota (`over`): the submission made its
// compilers write that much.
std::string build_over_quota_why(const QuotaOverrun& over);
// The GPU backend's: nvcc refused kernel.cu; the runner could not be linked
// with it; the link found a symbol the grader or the CUDA runtime defines too;
// the grader's own baseline runner is missing (not the student's doing).
std::string did_not_compile_why();
std::string runner_not_linked_why();
std::string defines_grader_symbol_why();
std::string baseline_runner_missing_why();

// Lines of the CPU build's log, each ending in "\n" where the log goes on
// after it. A tool that could not start, or ended badly (`how`: the exit as
// process/ describes it, "exited with code 1").
std::string tool_not_started(const std::string& tool, const std::string& error);
std::string tool_ended_line(const std::string& tool, const std::string& how);
std::string cannot_read(const std::string& path);
std::string cannot_write(const std::string& path);
// A file of the CPU layer's build is missing; the host compiler is not in PATH.
std::string cpu_backend_not_built(const std::string& missing);
std::string host_compiler_missing(const std::string& cxx);
// kernel.cu uses what the CPU backend cannot build: one line a problem.
std::string cannot_build_for_cpu(const std::vector<std::string>& problems);
// Preprocessed, kernel.cu is over `cap_mib` MiB.
std::string preprocessed_too_large(std::size_t cap_mib);
// kernel.cu's code differs between nvcc's host and device passes.
std::string depends_on_arch_log();
// The line before compiler messages that name the layer's launch call.
std::string launch_spelling_note();
std::string runner_link_failed();
// The GPU build's log: the symbol policy's problems, one a line; the runner's
// link failed (`how`: the link's end as process/ describes it, or why it did
// not start) with the linker's `output`; the baseline runner at `path` could
// not be copied (`error`).
std::string static_check_rejection_log(const std::vector<std::string>& problems);
std::string gpu_runner_link_failed_log(const std::string& how, const std::string& output);
std::string baseline_runner_missing_log(const std::string& path, const std::string& error);
// The nvcc build's log (static_checks/nvcc_compile.cpp): its command and
// output, then the line that says why it stopped (CompileResult::problem).
std::string compile_log(const CompileResult& compiled);

}  // namespace sg
