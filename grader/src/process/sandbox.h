// The operating-system sandbox around everything that compiles, runs or
// reads student code: bubblewrap (new PID, IPC, UTS, network, mount, user and
// cgroup namespaces; a read-only view of only the toolchain and the job's own
// folder; a private size-limited /tmp) with a seccomp filter built by
// libseccomp (process/seccomp_policy.md lists every denied call and why).
// Child::spawn applies it when SpawnOptions::sandbox names a profile.
#pragma once
#include <string>
#include <vector>

#include "process/job_identity.h"

namespace sg {

enum class SandboxProfile {
  None,      // not sandboxed (the grader's own trusted steps)
  Compile,   // compilers: may start processes; no devices, no network
  Run,       // the runner: no new processes, GPU device nodes only
  Sanitize,  // compute-sanitizer and the runner under it: may start processes and make FIFOs
};

// Whether bubblewrap can make its namespaces here, found out once per grading.
struct SandboxSupport {
  std::string bwrap;    // the program; "" when the sandbox is unavailable
  std::string why_not;  // why it is unavailable
  JobIdentity identity; // who untrusted code runs as, with or without bubblewrap
  bool available() const { return !bwrap.empty(); }  // words/grading_log's sandbox_line says which
};

// Tries `bwrap --unshare-all ... true` as the user untrusted code runs as.
// SG_NO_SANDBOX=1 in the environment turns the sandbox off (said in reports).
// `identity` is taken once per grading (process/job_identity.h).
SandboxSupport probe_sandbox(JobIdentity identity = {});

struct Sandbox {
  SandboxProfile profile = SandboxProfile::None;
  std::string bwrap;                   // from SandboxSupport; "" : rlimits only
  std::vector<std::string> read_only;  // visible read-only at the same path (toolchain, runtime headers)
  std::vector<std::string> writable;   // visible read-write at the same path (the job's work folder)
  long long tmpfs_bytes = 256LL << 20; // the private /tmp
  RunAs run_as;                        // unset: the default runner user
};

// A sandbox of `profile` as this grading has it: its bubblewrap (or none) and its uid.
Sandbox sandbox_for(const SandboxSupport& support, SandboxProfile profile);

// A runner's sandbox: its build folder (the runner binary) read-only, its
// scratch folder writable, the GPU's device nodes where there are any.
Sandbox runner_sandbox(const SandboxSupport& support, const std::string& runner, const std::string& scratch);

// The bwrap command line that runs `argv` in `s` with cwd `workdir`, reading
// the seccomp program from descriptor `seccomp_fd`.
std::vector<std::string> sandbox_argv(const Sandbox& s, const std::vector<std::string>& argv,
                                      const std::string& workdir, int seccomp_fd);

// The profile's seccomp program (classic BPF, as bwrap --seccomp reads it) in
// an in-memory file positioned at its start; -1 with `error` on failure.
int seccomp_program_fd(SandboxProfile profile, std::string& error);

}  // namespace sg
