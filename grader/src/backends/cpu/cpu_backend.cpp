#include "backends/cpu/cpu_backend.h"

#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <sstream>

#include "backends/cpu/compiler_messages.h"
#include "backends/cpu/cpu_build.h"
#include "backends/cpu/cpu_sanitizer.h"
#include "backends/cpu/source_structure.h"
#include "model/plan.h"
#include "backends/cpu/host_oracle.h"
#include "compare/tolerance.h"
#include "pipeline/limits.h"
#include "process/tool_run.h"

namespace sg {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kCompileTimeout = 180;

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(const BackendSetup& s) : setup_(s), paths_(*s.paths) {}

  BackendKind kind() const override { return BackendKind::Cpu; }
  std::string device() const override { return "host CPU (correctness only)"; }

  BuildOutput build(const std::string& kernel, const WorkDir& work) override;
  BuildOutput cpu_build_failed(const std::string& kernel, const WorkDir& work, const CpuBuildResult& b,
                               Clock::time_point t0, BuildOutput& out);

  RunnerConfig runner_config(const std::string& runner, const WorkDir& work,
                             const std::string& scratch) const override {
    RunnerConfig rc;
    rc.argv = {runner};
    rc.scratch_dir = work.sub(scratch);
    rc.env = scrubbed_environment(rc.scratch_dir);
    rc.log_dir = work.sub("logs");
    rc.drop_privileges = true;
    rc.pid_namespace = true;
    // The layer runs blocks a few at a time on the CPU: a legal grid far
    // larger than C needs may take several times a case's limit, and gets it
    // while its blocks keep completing (a hang completes none).
    rc.progress_file = rc.scratch_dir + "/cudacpu-progress";
    rc.env.push_back("CUDACPU_PROGRESS_FILE=" + rc.progress_file);
    rc.progress_limit_factor = kSlowGridLimitFactor;
    rc.progress_budget_s = kSlowGridBudgetS;
    rc.sandbox = runner_sandbox(paths_.sandbox, runner, rc.scratch_dir);
    return rc;
  }

  std::string cannot_run(const Case&) const override { return ""; }

  // The CPU layer's device memory is plain host memory reached through raw
  // pointers, so nothing counts a kernel's loads (only out-of-bounds ones fault).
  ReuseMeasurement measure_reuse(const Check&, const SanitizerContext&) override {
    ReuseMeasurement r;
    r.why = "the CPU backend does not count the kernel's global loads";
    r.fallback = "the source";
    return r;
  }
  double case_time_limit(const Case& c) const override { return sg::case_time_limit(c, BackendKind::Cpu); }
  double case_time_limit_after_hang(const Case& c) const override {
    return sg::case_time_limit_after_hang(c, BackendKind::Cpu);
  }

  void oracle(const Case& c, const CaseInputs& in, std::vector<double>& c64, std::vector<double>& abs_ab) override {
    host_oracle(c.m, c.n, c.k, in.a.data(), in.b.data(), c64, abs_ab);
  }

  // The layer's schedule is fixed: the same inputs always give the same bits.
  bool launches_can_differ() const override { return false; }

  void sanitizer(const Check& c, const SanitizerContext& ctx, TestResult& t) override {
    if (setup_.log) setup_.log("sanitizer (CPU backend: red zones and both thread orders)");
    cpu_sanitizer_check(c, *ctx.runner_config, ctx.log_dir + "/" + c.name, ctx.seed, t);
  }

  std::string why_not_timed() const override { return kCpuNotTimed; }
  double roofline_ms(const Case&, const CaseInputs&, int) override { return 0; }

  std::unique_ptr<DeviceHold> shared_hold() override { return nullptr; }
  std::unique_ptr<DeviceHold> exclusive_hold() override { return nullptr; }
  double exclusive_seconds() const override { return 0; }

 private:
  BackendSetup setup_;
  const GraderPaths& paths_;
};

// g++ refused what nvcc may accept: the CPU layer covers a subset of CUDA. Ask
// nvcc where it exists, so that a limit of the CPU backend is never reported
// as the student's compile error.
BuildOutput CpuBackend::cpu_build_failed(const std::string& kernel, const WorkDir& work, const CpuBuildResult& b,
                                         Clock::time_point t0, BuildOutput& out) {
  const std::string first = first_error_line(b.log);
  out.why = "the submission did not build for the CPU backend";
  if (paths_.nvcc.empty()) {
    if (mentions_cpu_layer(b.log))
      out.why += " (the compiler's message names the CPU layer, so this may be a limit of the CPU backend "
                 "rather than an error in your code)";
    return out;
  }
  Toolchain tc;
  tc.nvcc = paths_.nvcc;
  tc.sandbox = paths_.sandbox;  // nvcc reads the student's text: in the sandbox, as every compiler
  const CompileResult cr = compile_submission(tc, kernel, work.sub("nvcc"), kCompileTimeout);
  out.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  if (!cr.ok) return out;  // nvcc refuses it too: the student's compile error
  out.state = GradeState::InternalError;
  out.why = "not supported on the CPU backend: " + (first.empty() ? std::string("g++ refused kernel.cu") : first) +
            ". nvcc compiles this kernel.cu, so this is a limit of the CPU backend, not an error in your code; "
            "it needs grading on a GPU";
  return out;
}

BuildOutput CpuBackend::build(const std::string& kernel, const WorkDir& work) {
  BuildOutput out;
  CpuPaths cp;
  cp.include_dir = paths_.cpu_include;
  cp.library = paths_.cpu_library;
  cp.runner_object = paths_.cpu_runner_object;
  cp.sandbox = paths_.sandbox;
  const auto t0 = Clock::now();
  CpuBuildResult b = build_cpu_runner(kernel, work.sub("build"), cp, kCompileTimeout);
  out.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  out.log = b.log;
  if (!b.ok) return cpu_build_failed(kernel, work, b, t0, out);
  ::chmod(b.runner.c_str(), 0755);
  out.helpers = b.helpers;
  std::string ptx;
  // Symbols and structure are still checked from an nvcc object where nvcc exists.
  if (!paths_.nvcc.empty()) {
    Toolchain tc;
    tc.nvcc = paths_.nvcc;
    tc.sandbox = paths_.sandbox;
    CompileResult cr = compile_submission(tc, kernel, work.sub("build"), kCompileTimeout);
    out.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!cr.ok) {
      out.log += "\n" + cr.log;
      out.why = "the submission did not compile with nvcc";
      return out;
    }
    SymbolReport sym = check_symbols(tc, cr.object);
    if (!sym.ok) {
      std::string why;
      for (const auto& p : sym.problems) why += (why.empty() ? "" : "; ") + p;
      out.state = GradeState::Rejected;
      out.why = "rejected: " + why;
      return out;
    }
    ptx = cr.ptx;
    out.symbols_checked = true;
  }
  // From the PTX where nvcc exists, else from the source (e.g. on Gradescope).
  out.structure = ptx.empty() ? check_structure_source(read_text(kernel)) : check_structure(ptx);
  out.ok = true;
  out.state = GradeState::Graded;
  out.runner = b.runner;
  return out;
}

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(const BackendSetup& setup) { return std::make_unique<CpuBackend>(setup); }

}  // namespace sg
