#include "words/build_report.h"

#include <fmt/format.h>

#include "words/case_report.h"

namespace sg {
namespace {

// One line a problem, under a heading that ends its own line.
std::string lines_under(std::string heading, const std::vector<std::string>& lines) {
  for (const std::string& l : lines) heading += l + "\n";
  return heading;
}

}  // namespace

std::string rejected_why(const std::vector<std::string>& problems) {
  std::string why;
  for (const auto& p : problems) why += (why.empty() ? "" : "; ") + p;
  return "rejected: " + why;
}

std::string cpu_build_failed_why(bool names_cpu_layer) {
  std::string why = "the submission did not build for the CPU backend";
  if (names_cpu_layer)
    why += " (the compiler's message names the CPU layer, so this may be a limit of the CPU backend "
           "rather than an error in your code)";
  return why;
}

std::string cpu_limit_nvcc_compiles_why(const std::string& first_error) {
  return "not supported on the CPU backend: " +
         (first_error.empty() ? std::string("g++ refused kernel.cu") : first_error) +
         ". nvcc compiles this kernel.cu, so this is a limit of the CPU backend, not an error in your code; "
         "it needs grading on a GPU";
}

std::string depends_on_arch_why(const std::string& first_line) {
  return "not supported on the CPU backend: " + first_line +
         ". This is a limit of the CPU backend, not an error in your code; it needs grading on a GPU";
}

std::string nvcc_refused_why() { return "the submission did not compile with nvcc"; }

std::string build_over_quota_why(const QuotaOverrun& over) {
  return "the build wrote more than " + quota_text(over) + ": make the kernel's source and its tables smaller";
}

std::string did_not_compile_why() { return "the submission did not compile"; }

std::string runner_not_linked_why() { return "the runner could not be linked with the submission"; }

std::string defines_grader_symbol_why() {
  return "rejected: the submission defines a symbol the grader or the CUDA runtime defines (see the link log)";
}

std::string baseline_runner_missing_why() { return "internal error: the grader's baseline runner is missing"; }

std::string tool_not_started(const std::string& tool, const std::string& error) {
  return "could not start " + tool + ": " + error;
}

std::string tool_ended_line(const std::string& tool, const std::string& how) { return tool + " " + how + "\n"; }

std::string cannot_read(const std::string& path) { return "cannot read " + path; }

std::string cannot_write(const std::string& path) { return "cannot write " + path; }

std::string cpu_backend_not_built(const std::string& missing) {
  return "the CPU backend is not built: " + missing + " is missing (run make)";
}

std::string host_compiler_missing(const std::string& cxx) {
  return "the host compiler `" + cxx + "` was not found in PATH";
}

std::string cannot_build_for_cpu(const std::vector<std::string>& problems) {
  return lines_under("kernel.cu cannot be built for the CPU backend:\n", problems);
}

std::string preprocessed_too_large(std::size_t cap_mib) {
  return "kernel.cu is larger than " + std::to_string(cap_mib) +
         " MiB once preprocessed; it cannot be built for the CPU backend\n";
}

std::string depends_on_arch_log() {
  return "kernel.cu's code depends on __CUDA_ARCH__: nvcc compiles it once for the host and "
         "once for the GPU, and the two see different code; the CPU backend compiles host and "
         "device code in one pass and cannot give each its own view\n";
}

std::string launch_spelling_note() {
  return "(On the CPU backend a kernel launch reads as ::cudacpu::launch(kernel, grid, block, ...).)\n";
}

std::string runner_link_failed() { return "linking the CPU runner failed\n"; }

std::string static_check_rejection_log(const std::vector<std::string>& problems) {
  std::string log = "\nrejected by the static checks:\n";
  for (const std::string& p : problems) log += "  " + p + "\n";
  return log;
}

std::string gpu_runner_link_failed_log(const std::string& how, const std::string& output) {
  return "\nlinking the runner failed (" + how + "):\n" + output;
}

std::string baseline_runner_missing_log(const std::string& path, const std::string& error) {
  return "\nthe grader's baseline runner is missing (" + path + ": " + error + "); run `make` first\n";
}

std::string compile_log(const CompileResult& compiled) {
  using K = CompileProblem::Kind;
  const CompileProblem& p = compiled.problem;
  std::string line;
  switch (p.kind) {
    case K::None: return compiled.log;
    case K::SourceMissing: line = "cannot read submission `" + p.path + "`: no such file"; break;
    case K::SourceIsFolder: line = "submission `" + p.path + "` is a folder, not a kernel.cu file"; break;
    case K::SourceUnreadable: line = "cannot read submission `" + p.path + "`: permission denied or unreadable"; break;
    case K::SourceEmpty: line = "submission `" + p.path + "` is empty"; break;
    case K::TimedOut: line = fmt::format("compilation timed out after {:g} s", p.timeout_s); break;
    case K::Signalled: line = fmt::format("the compiler was killed by signal {}", p.signal); break;
    case K::Failed: line = fmt::format("compilation failed (nvcc exit code {})", p.code); break;
    case K::NoObject: line = "nvcc reported success but wrote no object `" + p.path + "`"; break;
    case K::NoPtx: line = "nvcc kept no PTX in `" + p.path + "`; the structure check needs it"; break;
  }
  return compiled.log + line + "\n";
}

}  // namespace sg
