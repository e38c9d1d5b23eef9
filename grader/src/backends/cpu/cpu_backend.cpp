#include "backends/cpu/cpu_backend.h"

#include <sys/stat.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <sstream>

#include "backends/cpu/compiler_messages.h"
#include "backends/cpu/cpu_build.h"
#include "backends/cpu/cpu_sanitizer.h"
#include "backends/cpu/cpu_structure.h"
#include "backends/cpu/source_structure.h"
#include "model/plan.h"
#include "backends/cpu/host_oracle.h"
#include "compare/tolerance.h"
#include "services/limits.h"
#include "process/tool_run.h"
#include "words/build_report.h"
#include "words/check_report.h"
#include "words/cpu_backend_lines.h"
#include "words/structure_report.h"
#include "words/symbol_report.h"

namespace sg {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kCompileTimeout = 180;

// The first line of a message.
std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  while (!line.empty() && (line.back() == '.' || line.back() == ' ')) line.pop_back();
  return line;
}

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// What nvcc made of the submission, where nvcc exists: its object's symbols
// and its PTX (the structure check's notes). Compiled after the CPU build.
struct NvccView {
  bool ran = false;
  CompileResult compiled;
  SymbolReport symbols;
};

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(const BackendSetup& s) : setup_(s), paths_(*s.paths) {}

  BackendKind kind() const override { return BackendKind::Cpu; }
  std::string device() const override { return cpu_device_name(); }

  BuildOutput build(const std::string& kernel, const WorkDir& work) override;
  BuildOutput cpu_build_failed(const CpuBuildResult& b, const NvccView& nvcc, BuildOutput& out);

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
    rc.scratch_quota = work.place(scratch);
    rc.work_quota = work.place("");
    return rc;
  }

  std::string cannot_run(const Case&) const override { return ""; }

  // The CPU layer counts every global load of the kernels basicSgemm
  // launches (launch_tracking.h), in every checked launch: the figure is the
  // correctness case's of the check's shape, or a run of its own at that
  // shape where the suite has no such case.
  ReuseMeasurement measure_reuse(const Check& c, const SanitizerContext& ctx) override;
  bool reuse_after_cases() const override { return true; }
  double case_time_limit(const Case& c) const override { return sg::case_time_limit(c, BackendKind::Cpu); }
  double case_time_limit_after_hang(const Case& c) const override {
    return sg::case_time_limit_after_hang(c, BackendKind::Cpu);
  }

  void oracle(const Case& c, const CaseInputs& in, std::vector<double>& c64, std::vector<double>& abs_ab) override {
    host_oracle(c.m, c.n, c.k, in.a.data(), in.b.data(), c64, abs_ab);
  }

  // The layer's schedule follows the case's seed: the same inputs always give the same bits.
  bool launches_can_differ() const override { return false; }
  bool oracle_on_host() const override { return true; }

  void sanitizer(const Check& c, const SanitizerContext& ctx, TestResult& t) override {
    if (setup_.log) setup_.log(cpu_sanitizer_log_line());
    cpu_sanitizer_check(c, *ctx.runner_config, ctx.log_dir + "/" + c.name, ctx.seed, t);
  }

  std::string why_not_timed() const override { return kCpuNotTimed; }
  double roofline_ms(const Case&, const CaseInputs&, int) override { return 0; }

  std::unique_ptr<DeviceHold> shared_hold(SharedHold) override { return nullptr; }
  std::unique_ptr<DeviceHold> exclusive_hold() override { return nullptr; }
  double exclusive_seconds() const override { return 0; }

 private:
  BackendSetup setup_;
  const GraderPaths& paths_;
};

// g++ refused what nvcc may accept: the CPU layer covers a subset of CUDA.
// Where nvcc compiled it, a limit of the CPU backend is never reported as
// the student's compile error. This file decides; its sentences are made in
// words/ (build_report, check_report, cpu_backend_lines), so one place words them.
BuildOutput CpuBackend::cpu_build_failed(const CpuBuildResult& b, const NvccView& nvcc, BuildOutput& out) {
  out.why = cpu_build_failed_why(!nvcc.ran && mentions_cpu_layer(b.log));
  if (!nvcc.ran) return out;
  if (!nvcc.compiled.ok) return out;  // nvcc refuses it too: the student's compile error
  out.state = GradeState::InternalError;
  out.why = cpu_limit_nvcc_compiles_why(first_error_line(b.log));
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
  const CpuBuildResult b = build_cpu_runner(kernel, work.sub("build"), cp, kCompileTimeout);
  // nvcc (where it exists) after it, never beside it: a build step's end
  // sweeps the processes of the grading's compile user.
  NvccView nvcc;
  if (!paths_.nvcc.empty() && b.rejected.empty() && !b.depends_on_arch) {
    nvcc.ran = true;
    Toolchain tc;
    tc.nvcc = paths_.nvcc;
    tc.sandbox = paths_.sandbox;  // nvcc reads the student's text: in the sandbox, as every compiler
    nvcc.compiled = compile_submission(tc, kernel, work.sub("nvcc"), kCompileTimeout);
    if (nvcc.compiled.ok && b.ok) nvcc.symbols = check_symbols(tc, nvcc.compiled.object);
  }
  out.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  out.log = b.log;
  const auto reject = [&out](const std::vector<std::string>& problems) {
    out.state = GradeState::Rejected;
    out.why = rejected_why(problems);
    return out;
  };
  // The symbol policy of an nvcc object, read on the object linked here.
  if (!b.rejected.empty()) return reject(b.rejected);
  if (b.depends_on_arch) {
    out.state = GradeState::InternalError;
    out.why = depends_on_arch_why(first_line(b.log));
    return out;
  }
  if (!b.ok) return cpu_build_failed(b, nvcc, out);
  if (nvcc.ran && !nvcc.compiled.ok) {
    out.log += "\n" + compile_log(nvcc.compiled);
    out.why = nvcc_refused_why();
    return out;
  }
  if (nvcc.ran && !nvcc.symbols.ok) return reject(symbol_problem_lines(nvcc.symbols));
  ::chmod(b.runner.c_str(), 0755);
  out.helpers = b.helpers;
  out.symbols_checked = true;
  // What the source or the PTX declares: notes beside the measured figure, never the score.
  out.structure =
      nvcc.ran ? with_ptx_detail(check_structure(nvcc.compiled.ptx)) : check_structure_source(read_text(kernel));
  out.ok = true;
  out.state = GradeState::Graded;
  out.runner = b.runner;
  return out;
}

ReuseMeasurement CpuBackend::measure_reuse(const Check& c, const SanitizerContext& ctx) {
  ReuseMeasurement r;
  r.source = ReuseSource::CpuCount;
  r.naive_loads = naive_global_loads(c.m, c.n, c.k);
  const auto t0 = Clock::now();
  CountedCase counted;
  bool found = false;
  for (const CountedCase& cc : ctx.counted)
    if (cc.m == c.m && cc.k == c.k && cc.n == c.n) {
      counted = cc;
      found = true;
      break;
    }
  if (!found) {
    // No correctness case of the check's shape: one checked launch of its own,
    // through the same runner and request as a case.
    if (setup_.log) setup_.log(structure_count_log_line(c.m, c.k, c.n));
    counted = count_loads_at(c, *ctx.runner_config, ctx.log_dir + "/" + c.name, ctx.seed);
  }
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  r.kernels = static_cast<int>(counted.launches);
  if (!counted.completed) {
    r.outcome = ReuseMeasurement::Outcome::NotMeasured;
    r.why = reuse_not_completed(counted.verdict);
    return r;
  }
  if (!std::isfinite(counted.warp_loads) || counted.warp_loads <= 0) {
    r.outcome = ReuseMeasurement::Outcome::NotMeasured;
    r.why = reuse_nothing_counted(counted.launches == 0);
    return r;
  }
  r.outcome = ReuseMeasurement::Outcome::Measured;
  r.loads = counted.warp_loads;
  return r;
}

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(const BackendSetup& setup) { return std::make_unique<CpuBackend>(setup); }

}  // namespace sg
