// compile_submission: nvcc -c of the submission alone, keeping the PTX of the
// same compile so the structure check reads exactly what was built.
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include "static_checks/static_checks.h"
#include "process/tool_process.h"

namespace sg {
namespace {

using namespace sg::build;  // the build stage's own helpers

namespace fs = std::filesystem;

constexpr std::size_t kLogCap = 64 * 1024;

// Quotes an argument for the log line only (the command itself never goes through a shell).
std::string shell_quote(const std::string& a) {
  const bool plain = !a.empty() && std::all_of(a.begin(), a.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::string("-_./=,+:[]").find(c) != std::string::npos;
  });
  if (plain) return a;
  std::string q = "'";
  for (char c : a) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// None when the file is usable, else what is wrong with it.
CompileProblem problem_with_source(const std::string& path) {
  using K = CompileProblem::Kind;
  CompileProblem p;
  p.path = path;
  std::error_code ec;
  const auto st = fs::status(path, ec);
  if (ec || !fs::exists(st)) {
    p.kind = K::SourceMissing;
  } else if (fs::is_directory(st)) {
    p.kind = K::SourceIsFolder;
  } else if (std::ifstream in(path, std::ios::binary); !in) {
    p.kind = K::SourceUnreadable;
  } else {
    p.kind = K::SourceEmpty;
    for (char c; in.get(c);)
      if (!std::isspace(static_cast<unsigned char>(c))) {
        p.kind = K::None;
        break;
      }
  }
  return p;
}

// The grader's flags: one target when the GPU is known, else SASS for the
// common architectures plus compute_90 PTX for anything newer.
std::vector<std::string> target_flags(const std::string& arch) {
  if (!arch.empty()) return {"-arch=" + arch, "-Xptxas=-v"};
  std::vector<std::string> flags;
  for (const char* sm : {"75", "80", "86", "89"}) {
    flags.push_back("-gencode");
    flags.push_back(std::string("arch=compute_") + sm + ",code=sm_" + sm);
  }
  flags.push_back("-gencode");
  flags.push_back("arch=compute_90,code=[sm_90,compute_90]");
  return flags;
}

// The number in "compute_NN" inside a kept file name (0 when absent).
int compute_number(const std::string& name) {
  const auto at = name.find("compute_");
  if (at == std::string::npos) return 0;
  int v = 0;
  for (std::size_t i = at + 8; i < name.size() && std::isdigit(static_cast<unsigned char>(name[i])); ++i)
    v = v * 10 + (name[i] - '0');
  return v;
}

// nvcc names kept files after the source; a portable build keeps one PTX per
// virtual architecture. Any of them describes the same kernel; take the newest.
std::string find_kept_ptx(const fs::path& keep_dir) {
  std::error_code ec;
  std::string best;
  int best_n = -1;
  for (const auto& e : fs::directory_iterator(keep_dir, ec)) {
    if (!e.is_regular_file(ec) || e.path().extension() != ".ptx") continue;
    const std::string name = e.path().filename().string();
    const int n = compute_number(name);
    if (n > best_n || (n == best_n && name < fs::path(best).filename().string())) {
      best_n = n;
      best = e.path().string();
    }
  }
  return best;
}

// Leaves an empty keep folder: a stale PTX from an earlier build must never be read.
bool reset_dir(const fs::path& dir, std::string& error) {
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (ec) {
    error = "cannot clear `" + dir.string() + "`: " + ec.message();
    return false;
  }
  fs::create_directories(dir, ec);
  if (ec) {
    error = "cannot create `" + dir.string() + "`: " + ec.message();
    return false;
  }
  return true;
}

}  // namespace

CompileResult compile_submission(const Toolchain& tc, const std::string& kernel_cu,
                                 const std::string& workdir, double timeout_s) {
  CompileResult res;
  std::error_code ec;
  const fs::path work = fs::absolute(workdir, ec).lexically_normal();
  const std::string object = (work / "student.o").string();  // set in res only on success

  res.problem = problem_with_source(kernel_cu);
  if (res.problem.kind != CompileProblem::Kind::None) return res;
  fs::create_directories(work, ec);
  if (ec) {
    res.log = "cannot create work folder `" + workdir + "`: " + ec.message() + "\n";
    return res;
  }
  fs::remove(object, ec);
  fs::remove(work / "student.ptx", ec);
  const fs::path keep = work / "keep";
  std::string error;
  if (!reset_dir(keep, error)) {
    res.log = error + "\n";
    return res;
  }

  // Absolute: never read as an option, and the same inside the sandbox.
  const std::string source = fs::absolute(kernel_cu, ec).lexically_normal().string();
  std::vector<std::string> argv = {tc.nvcc.empty() ? "nvcc" : tc.nvcc,
                                   "-c", "-std=c++17", "-O3", "-lineinfo",
                                   // PIC links into both PIE and non-PIE runners; a section per
                                   // function lets the symbol check see who calls what.
                                   "-Xcompiler", "-fPIC", "-Xcompiler", "-ffunction-sections"};
  for (auto& f : target_flags(tc.arch)) argv.push_back(std::move(f));
  for (const char* f : {"-keep", "-keep-dir"}) argv.emplace_back(f);
  argv.push_back(keep.string());
  argv.emplace_back("-o");
  argv.push_back(object);
  argv.emplace_back("-x");
  argv.emplace_back("cu");
  argv.push_back(source);

  std::string command = "$";
  for (const auto& a : argv) command += " " + shell_quote(a);
  res.log = command + "\n";

  // nvcc reads the student's text: inside the sandbox it sees only the
  // toolchain, this work folder and the source's own folder (no kit, no /etc,
  // no /dev/zero). Paths are absolute, so its working folder does not matter.
  Sandbox sandbox = sandbox_for(tc.sandbox, SandboxProfile::Compile);
  sandbox.writable = {work.string()};
  const fs::path source_dir = fs::path(source).parent_path();
  const std::string inside = source_dir.lexically_relative(work).string();
  if (inside.empty() || inside.rfind("..", 0) == 0)
    sandbox.read_only.push_back(source_dir.string());
  const ToolResult run = run_build_tool(argv, timeout_s, kLogCap, sandbox);
  res.seconds = run.seconds;
  res.log += run.output;  // already cleaned
  if (!res.log.empty() && res.log.back() != '\n') res.log += "\n";
  if (run.truncated) res.log += "[compiler output truncated at 64 KiB]\n";

  if (!run.started) {
    res.log += run.error + "\n";
    return res;
  }
  using K = CompileProblem::Kind;
  if (run.timed_out) {
    res.problem.kind = K::TimedOut;
    res.problem.timeout_s = timeout_s;
    return res;
  }
  if (!run.exited) {
    res.problem.kind = K::Signalled;
    res.problem.signal = run.signal;
    return res;
  }
  if (run.code != 0) {
    res.problem.kind = K::Failed;
    res.problem.code = run.code;
    return res;
  }
  if (!fs::is_regular_file(object, ec)) {
    res.problem.kind = K::NoObject;
    res.problem.path = object;
    return res;
  }
  const std::string kept = find_kept_ptx(keep);
  if (kept.empty()) {
    res.problem.kind = K::NoPtx;
    res.problem.path = keep.string();
    return res;
  }
  const fs::path ptx = work / "student.ptx";
  fs::copy_file(kept, ptx, fs::copy_options::overwrite_existing, ec);
  if (ec) {
    res.log += "cannot copy `" + kept + "` to `" + ptx.string() + "`: " + ec.message() + "\n";
    return res;
  }
  res.object = object;
  res.ptx = ptx.string();
  res.ok = true;
  return res;
}

}  // namespace sg
