// The CPU backend's build (see cpu_build.h). The compiler is a trusted tool
// run with a deadline through process/process.h; its messages name the
// student's lines because the rewritten source starts with #line.
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
#include "backends/cpu/rewrite.h"
#include "process/process.h"
#include "static_checks/static_checks.h"
#include "process/program_path.h"
#include "process/tool_process.h"

namespace fs = std::filesystem;

namespace sg {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kLogCap = 64 << 10;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

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
    s.output = "could not start " + argv[0] + ": " + error;
    return s;
  }
  const ExitInfo exit = child->wait(timeout_s > 0 ? timeout_s : 0.001);
  s.output = read_capped_text(log_file, kLogCap);
  s.ok = exit.exited && exit.code == 0;
  if (!s.ok) s.output += (s.output.empty() || s.output.back() == '\n' ? "" : "\n") + argv[0] + " " + exit.describe() + "\n";
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
  if (!read_file(kernel.string(), source)) return finish(false, "cannot read " + kernel.string());

  for (const std::string& need : {paths.include_dir + "/cudacpu.h", paths.library, paths.runner_object})
    if (!fs::exists(need, ec))
      return finish(false, "the CPU backend is not built: " + need + " is missing (run make)");
  const std::string cxx = find_program(paths.cxx);
  if (cxx.empty()) return finish(false, "the host compiler `" + paths.cxx + "` was not found in PATH");

  const RewriteResult rw = rewrite_for_cpu(source, "kernel.cu");
  if (!rw.ok()) {
    std::string log = "kernel.cu cannot be built for the CPU backend:\n";
    for (const std::string& p : rw.problems) log += p + "\n";
    return finish(false, log);
  }

  fs::create_directories(workdir, ec);
  const fs::path dir = fs::absolute(workdir, ec);
  if (!write_file((dir / "cpu_kernel.cpp").string(), rw.source))
    return finish(false, "cannot write " + (dir / "cpu_kernel.cpp").string());
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
  std::string log;
  const Step compile = run_step({cxx, "-std=c++17", "-O2", "-fno-strict-aliasing", "-fdiagnostics-color=never",
                                 "-fmax-errors=20", "-I" + include_dir, "-iquote", kernel_dir, "-c", "cpu_kernel.cpp",
                                 "-o", "cpu_kernel.o"},
                                dir.string(), (dir / "cpu_compile.log").string(), timeout_s, sandbox);
  log += student_facing_messages(compile.output, source);
  if (log.find("cudacpu::launch") != std::string::npos)
    log = "(On the CPU backend a kernel launch reads as ::cudacpu::launch(kernel, grid, block, ...).)\n" + log;
  if (!compile.ok) return finish(false, log);
  // The student's helpers stay private to kernel.cu, as on the GPU backend.
  if (std::string err = localise_helpers((dir / "cpu_kernel.o").string(), r.helpers); !err.empty())
    return finish(false, log + err + "\n");
  const double left = timeout_s - seconds_since(t0);
  const Step link = run_step({cxx, "cpu_kernel.o", fs::absolute(paths.runner_object, ec).string(),
                              fs::absolute(paths.library, ec).string(), "-pthread", "-o", "cpu_runner"},
                             dir.string(), (dir / "cpu_link.log").string(), left, sandbox);
  log += link.output;
  if (!link.ok) return finish(false, log + "linking the CPU runner failed\n");
  r.runner = (dir / "cpu_runner").string();
  write_file((dir / "cpu_build.log").string(), log);
  return finish(true, log);
}

}  // namespace sg
