// The CPU backend's build (see cpu_build.h). The compiler is a trusted tool
// run with a deadline through process/process.h; its messages name the
// student's lines because the rewritten source starts with #line.
//
// The steps: rewrite kernel.cu (rewrite.h); preprocess it twice, without
// and with __CUDA_ARCH__ (nvcc's host and device passes), and refuse a file
// whose text differs between them (one pass here cannot be both); scan the
// preprocessed text for what would escape the access hooks
// (preprocessed_scan.h); compile that same text with the hooks
// (-fsanitize=kernel-address, every access a call: launch_tracking.h);
// check the object's symbols with the policy nvcc objects get
// (static_checks/symbol_policy.h); make its helpers local; link it with the
// runner and the layer, memcpy, memmove and memset wrapped. The build log's
// own lines are worded in words/build_report.h: sentences live in words/.
#include "backends/cpu/cpu_build.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

#include "backends/cpu/compiler_messages.h"
#include "backends/cpu/preprocessed_scan.h"
#include "services/elapsed.h"
#include "backends/cpu/rewrite.h"
#include "process/process.h"
#include "static_checks/static_checks.h"
#include "process/program_path.h"
#include "process/tool_process.h"
#include "words/build_report.h"
#include "words/source_problems.h"
#include "words/symbol_report.h"

namespace fs = std::filesystem;

namespace sg {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kLogCap = 64 << 10;
constexpr std::size_t kPreprocessedCap = 64 << 20;  // far beyond any honest kernel.cu with its headers

// How every compiler run sees the source: the layer's headers, the student's folder.
std::vector<std::string> source_flags(const std::string& include_dir, const std::string& kernel_dir) {
  return {"-std=c++17", "-I" + include_dir, "-iquote", kernel_dir};
}

// The access hooks: every load and store of the student's code tests its
// shadow byte inline, at the layer's own shadow (launch_tracking.h), and
// calls a hook for global memory; no poisoning of the stack or globals.
const std::vector<std::string> kHookFlags = {
    "-fsanitize=kernel-address", "-fasan-shadow-offset=0x7fff8000", "--param",
    "asan-instrumentation-with-call-threshold=1000000", "--param", "asan-stack=0", "--param", "asan-globals=0"};


struct Step {
  bool ok = false;
  std::string output;
};

// Runs one tool in `cwd`, output captured to `log_file`, within `timeout_s`,
// in `sandbox` with the compile limits.
Step run_step(const std::vector<std::string>& argv, const std::string& cwd, const std::string& log_file,
              double timeout_s, const Sandbox& sandbox) {
  Step s;
  SpawnOptions opts;
  opts.argv = argv;
  const char* path = std::getenv("PATH");
  // A fixed locale keeps messages in plain ASCII; TMPDIR keeps temporaries in the work folder.
  opts.env = {std::string("PATH=") + (path && *path ? path : "/usr/local/bin:/usr/bin:/bin"), "LC_ALL=C", "LANG=C",
              "TMPDIR=" + cwd};
  opts.workdir = cwd;
  opts.output_file = log_file;
  opts.drop_privileges = false;  // a trusted compiler writing into the judge's work folder
  opts.protocol_pipes = false;
  opts.limits = build::compile_limits(timeout_s);
  opts.sandbox = sandbox;
  std::string error;
  std::optional<Child> child = Child::spawn(opts, error);
  if (!child) {
    s.output = tool_not_started(argv[0], error);
    return s;
  }
  const ExitInfo exit = child->wait(timeout_s > 0 ? timeout_s : 0.001);
  s.output = read_capped_text(log_file, kLogCap);
  s.ok = exit.exited && exit.code == 0;
  if (!s.ok)
    s.output += (s.output.empty() || s.output.back() == '\n' ? "" : "\n") + tool_ended_line(argv[0], exit.describe());
  return s;
}

bool read_file(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return !in.bad();
}

// At most `cap` bytes of the file; false when it is missing or larger.
bool read_capped(const std::string& path, std::size_t cap, std::string& out) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec || size > cap) return false;
  return read_file(path, out);
}

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return static_cast<bool>(out.flush());
}

}  // namespace

CpuBuildResult build_cpu_runner(const std::string& kernel_cu, const std::string& workdir, const CpuPaths& paths,
                                double timeout_s) {
  const auto t0 = Clock::now();
  CpuBuildResult r;
  auto finish = [&](bool ok, std::string log) {
    r.ok = ok;
    r.log = std::move(log);
    r.seconds = seconds_since(t0);
    return r;
  };
  std::error_code ec;
  fs::path kernel = kernel_cu;
  if (fs::is_directory(kernel, ec)) kernel /= "kernel.cu";
  std::string source;
  if (!read_file(kernel.string(), source)) return finish(false, cannot_read(kernel.string()));

  for (const std::string& need : {paths.include_dir + "/cudacpu.h", paths.library, paths.runner_object})
    if (!fs::exists(need, ec))
      return finish(false, cpu_backend_not_built(need));
  const std::string cxx = find_program(paths.cxx);
  if (cxx.empty()) return finish(false, host_compiler_missing(paths.cxx));

  const RewriteResult rw = rewrite_for_cpu(source, "kernel.cu");
  if (!rw.ok()) return finish(false, cannot_build_for_cpu(source_problem_lines("kernel.cu", rw.problems)));

  fs::create_directories(workdir, ec);
  const fs::path dir = fs::absolute(workdir, ec);
  if (!write_file((dir / "cpu_kernel.cpp").string(), rw.source))
    return finish(false, cannot_write((dir / "cpu_kernel.cpp").string()));
  // The compiler quotes source lines from the file named in #line: let it
  // find the student's own text beside the rewritten one.
  const fs::path beside = dir / "kernel.cu";
  if (!fs::exists(beside, ec) || !fs::equivalent(beside, kernel, ec))
    fs::copy_file(kernel, beside, fs::copy_options::overwrite_existing, ec);

  const std::string include_dir = fs::absolute(paths.include_dir, ec).string();
  // The compiler and the linker see the toolchain, this work folder and the
  // layer's headers and archives, nothing else of the kit.
  Sandbox sandbox = sandbox_for(paths.sandbox, SandboxProfile::Compile);
  sandbox.writable = {dir.string()};
  sandbox.read_only = {include_dir, fs::absolute(paths.library, ec).string(),
                       fs::absolute(paths.runner_object, ec).string()};
  const std::string kernel_dir = fs::absolute(kernel, ec).parent_path().string();
  if (kernel_dir != dir.string()) sandbox.read_only.push_back(kernel_dir);  // its quoted includes
  const std::vector<std::string> src_flags = source_flags(include_dir, kernel_dir);
  std::string log;

  // Preprocessed twice: as nvcc's host pass sees the file, and as its device pass does.
  // __SANITIZE_ADDRESS__ is gcc's and would tell this build from nvcc's.
  std::string pass_text[2];
  for (int pass = 0; pass < 2; ++pass) {
    std::vector<std::string> argv = {cxx, "-E"};
    argv.insert(argv.end(), src_flags.begin(), src_flags.end());
    argv.insert(argv.end(), kHookFlags.begin(), kHookFlags.end());
    argv.push_back("-U__SANITIZE_ADDRESS__");
    if (pass == 1) argv.push_back("-D__CUDA_ARCH__=900");
    const std::string out = pass == 0 ? "cpu_kernel.ii" : "cpu_kernel_device_pass.ii";
    argv.insert(argv.end(), {"-fdiagnostics-color=never", "-fmax-errors=20", "cpu_kernel.cpp", "-o", out});
    const Step pre = run_step(argv, dir.string(), (dir / ("cpu_preprocess" + std::to_string(pass) + ".log")).string(),
                              timeout_s - seconds_since(t0), sandbox);
    if (!pre.ok) return finish(false, log + student_facing_messages(pre.output, source));
    if (!read_capped((dir / out).string(), kPreprocessedCap, pass_text[pass]))
      return finish(false, preprocessed_too_large(kPreprocessedCap >> 20));
  }
  if (pass_text[0] != pass_text[1]) {
    r.depends_on_arch = true;
    return finish(false, depends_on_arch_log());
  }
  pass_text[1].clear();
  const SourceProblems escapes = scan_preprocessed(pass_text[0], "kernel.cu");
  if (!escapes.empty()) return finish(false, cannot_build_for_cpu(source_problem_lines("kernel.cu", escapes)));
  pass_text[0].clear();

  std::vector<std::string> compile = {cxx, "-x", "c++-cpp-output", "-std=c++17", "-O2", "-fno-strict-aliasing"};
  compile.insert(compile.end(), kHookFlags.begin(), kHookFlags.end());
  compile.insert(compile.end(), {"-fdiagnostics-color=never", "-fmax-errors=20", "-c", "cpu_kernel.ii", "-o",
                                 "cpu_kernel.o"});
  const Step compiled = run_step(compile, dir.string(), (dir / "cpu_compile.log").string(),
                                 timeout_s - seconds_since(t0), sandbox);
  log += student_facing_messages(compiled.output, source);
  if (log.find("cudacpu::launch") != std::string::npos)
    log = launch_spelling_note() + log;
  if (!compiled.ok) return finish(false, log);
  // The policy nvcc's object gets, on what is linked here.
  const SymbolReport symbols = check_cpu_symbols((dir / "cpu_kernel.o").string());
  if (!symbols.ok) {
    r.rejected = symbol_problem_lines(symbols);
    return finish(false, log);
  }
  // The student's helpers stay private to kernel.cu, as on the GPU backend.
  if (std::string err = localise_helpers((dir / "cpu_kernel.o").string(), r.helpers); !err.empty())
    return finish(false, log + err + "\n");
  const double left = timeout_s - seconds_since(t0);
  const Step link = run_step({cxx, "cpu_kernel.o", fs::absolute(paths.runner_object, ec).string(),
                              fs::absolute(paths.library, ec).string(), "-pthread",
                              "-Wl,--wrap=memcpy,--wrap=memmove,--wrap=memset", "-o", "cpu_runner"},
                             dir.string(), (dir / "cpu_link.log").string(), left, sandbox);
  log += link.output;
  if (!link.ok) return finish(false, log + runner_link_failed());
  r.runner = (dir / "cpu_runner").string();
  write_file((dir / "cpu_build.log").string(), log);
  return finish(true, log);
}

}  // namespace sg
