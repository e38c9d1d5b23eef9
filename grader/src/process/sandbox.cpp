#include "process/sandbox.h"

#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <utility>

#include "process/process.h"
#include "process/program_path.h"

namespace sg {
namespace {

constexpr double kProbeTimeoutS = 20;

bool is_symlink(const std::string& path, std::string& target) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return false;
  char buf[4096];
  const ssize_t n = ::readlink(path.c_str(), buf, sizeof buf - 1);
  if (n <= 0) return false;
  target.assign(buf, static_cast<std::size_t>(n));
  return true;
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

bool under(const std::string& path, const std::string& folder) {
  return path == folder || (path.size() > folder.size() && path.compare(0, folder.size(), folder) == 0 &&
                            path[folder.size()] == '/');
}

// The GPU's device nodes (nvidiactl, nvidia-uvm, nvidia0, ...): all the runner
// needs of /dev besides null, zero and urandom.
std::vector<std::string> gpu_device_nodes() {
  std::vector<std::string> out;
  glob_t g{};
  if (::glob("/dev/nvidia*", 0, nullptr, &g) == 0)
    for (std::size_t i = 0; i < g.gl_pathc; ++i) {
      struct stat st {};
      if (::stat(g.gl_pathv[i], &st) == 0 && S_ISCHR(st.st_mode)) out.emplace_back(g.gl_pathv[i]);
    }
  ::globfree(&g);
  return out;
}

}  // namespace

Sandbox sandbox_for(const SandboxSupport& support, SandboxProfile profile) {
  Sandbox s;
  s.profile = profile;
  s.bwrap = support.bwrap;
  s.run_as = support.identity.run_as;
  return s;
}

SandboxSupport probe_sandbox(JobIdentity identity) {
  SandboxSupport s;
  s.identity = std::move(identity);
  if (const char* off = std::getenv("SG_NO_SANDBOX"); off && *off && std::string(off) != "0") {
    s.why_not = "turned off by SG_NO_SANDBOX";
    return s;
  }
  const std::string bwrap = find_program("bwrap");
  if (bwrap.empty()) {
    s.why_not = "bubblewrap (bwrap) is not installed";
    return s;
  }
  // As the user untrusted code runs as, with the namespaces it gets.
  SpawnOptions o;
  o.argv = {bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--ro-bind", "/", "/", "--proc", "/proc",
            "true"};
  o.env = {"PATH=/usr/bin:/bin"};
  o.workdir = "/";
  o.protocol_pipes = false;
  o.pid_namespace = false;
  o.sandbox.run_as = s.identity.run_as;  // probe as the user the sandboxes will run as
  std::string error;
  std::optional<Child> child = Child::spawn(o, error);
  if (!child) {
    s.why_not = "bubblewrap could not be started: " + error;
    return s;
  }
  const ExitInfo exit = child->wait(kProbeTimeoutS, false);
  if (exit.exited && exit.code == 0) {
    s.bwrap = bwrap;
    return s;
  }
  std::string said = child->captured_output(300).text;
  while (!said.empty() && (said.back() == '\n' || said.back() == ' ')) said.pop_back();
  s.why_not = "bubblewrap cannot create its namespaces here: " + (said.empty() ? exit.describe() : said);
  return s;
}

Sandbox runner_sandbox(const SandboxSupport& support, const std::string& runner, const std::string& scratch) {
  Sandbox s = sandbox_for(support, SandboxProfile::Run);
  const std::size_t slash = runner.rfind('/');
  if (slash != std::string::npos && slash > 0) s.read_only.push_back(runner.substr(0, slash));
  s.writable.push_back(scratch);
  return s;
}

std::vector<std::string> sandbox_argv(const Sandbox& s, const std::vector<std::string>& argv,
                                      const std::string& workdir, int seccomp_fd) {
  std::vector<std::string> a = {s.bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL"};
  auto add = [&a](std::initializer_list<std::string> words) { a.insert(a.end(), words); };
  // The toolchain and the system libraries, read-only; the merged-/usr links as links.
  add({"--ro-bind", "/usr", "/usr"});
  for (const char* top : {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}) {
    std::string target;
    if (is_symlink(top, target))
      add({"--symlink", target, top});
    else if (exists(top))
      add({"--ro-bind", top, top});
  }
  // What the dynamic linker and the compiler drivers read of /etc; nothing else of it.
  for (const char* etc : {"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives"})
    add({"--ro-bind-try", etc, etc});
  add({"--proc", "/proc"});
  // /dev: no /dev/zero for compilers (`#include </dev/zero>` finds nothing);
  // the runner gets the GPU's nodes and nothing else of the host's /dev.
  add({"--dev-bind", "/dev/null", "/dev/null"});
  add({"--dev-bind-try", "/dev/urandom", "/dev/urandom"});
  if (s.profile == SandboxProfile::Run || s.profile == SandboxProfile::Sanitize) {
    add({"--dev-bind-try", "/dev/zero", "/dev/zero"});
    const std::vector<std::string> nodes = gpu_device_nodes();
    for (const std::string& node : nodes) add({"--dev-bind", node, node});
    // CUDA's driver finds the GPU through sysfs: without it cuInit fails with
    // CUDA_ERROR_OPERATING_SYSTEM (seen on the H100 machine). Read-only.
    if (!nodes.empty()) add({"--ro-bind-try", "/sys", "/sys"});
    add({"--size", std::to_string(s.tmpfs_bytes), "--tmpfs", "/dev/shm"});
  }
  add({"--size", std::to_string(s.tmpfs_bytes), "--tmpfs", "/tmp"});
  // The program itself when it lives outside what is visible (a CUDA
  // toolkit in /opt): its toolkit folder, read-only.
  std::vector<std::string> read_only = s.read_only;
  const std::string& program = argv.empty() ? std::string() : argv[0];
  bool visible = under(program, "/usr");
  for (const auto& p : s.read_only) visible = visible || under(program, p);
  for (const auto& p : s.writable) visible = visible || under(program, p);
  if (!visible && program.find('/') != std::string::npos) {
    std::string dir = program.substr(0, program.rfind('/'));
    if (dir.size() > 4 && dir.compare(dir.size() - 4, 4, "/bin") == 0) dir.resize(dir.size() - 4);
    if (!dir.empty()) read_only.push_back(dir);
  }
  // Mounted after /tmp, so a work folder under /tmp shows through it.
  for (const auto& p : read_only) add({"--ro-bind", p, p});
  for (const auto& p : s.writable) add({"--bind", p, p});
  if (!workdir.empty()) add({"--chdir", workdir});
  add({"--seccomp", std::to_string(seccomp_fd), "--"});
  a.insert(a.end(), argv.begin(), argv.end());
  return a;
}

}  // namespace sg
