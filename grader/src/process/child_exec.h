// What the freshly forked child does before it becomes the untrusted program.
// Internal to the sandbox: Child::spawn prepares an ExecPlan (everything that
// allocates or may take a lock happens in the judge before fork), and the child
// only makes async-signal-safe system calls while following it.
#pragma once
#include <sys/resource.h>
#include <sys/types.h>

namespace sg::detail {

// The step of the child's set-up that failed; sent to the judge with errno.
enum class ExecStep : int {
  ProcessGroup = 1,
  Descriptors,
  CloseDescriptors,
  ResourceLimits,
  NoNewPrivileges,
  SupplementaryGroups,
  GroupId,
  UserId,
  VerifyDrop,
  ParentDeathSignal,
  ParentGone,
  WorkingDirectory,
  Exec,
  NamespaceFork,  // the namespace init could not fork the runner
};
const char* to_string(ExecStep step);

// Where the seccomp program's descriptor sits in a sandboxed child (bwrap --seccomp).
constexpr int kSeccompFd = 6;

// Written by the child on the report pipe when it cannot start the program.
struct ExecFailure {
  int step = 0;  // an ExecStep
  int error = 0; // errno of the failing call
};

// Everything the child needs, prepared by the judge before fork.
struct ExecPlan {
  char* const* argv = nullptr;  // null-terminated; argv[0] is the program path
  char* const* envp = nullptr;  // null-terminated; the complete environment
  const char* workdir = nullptr;  // nullptr: stay in the judge's folder
  int stdin_fd = -1;    // /dev/null
  int output_fd = -1;   // becomes stdout and stderr
  int request_fd = -1;  // becomes fd 3, -1 when there are no protocol pipes
  int reply_fd = -1;    // becomes fd 4
  int report_fd = -1;   // close-on-exec write end of the report pipe
  int seccomp_fd = -1;  // becomes kSeccompFd for bwrap; -1 when not sandboxed
  rlimit cpu{}, fsize{}, nproc{}, as{}, core{};
  bool set_cpu = false, set_fsize = false, set_nproc = false, set_as = false;  // core: always 0
  bool drop_privileges = false;
  uid_t uid = 0;
  gid_t gid = 0;
  pid_t judge_pid = 0;   // the runner's expected parent (1 under a namespace init)
  bool own_group = true; // setpgid(0, 0); false when the init's group is joined
  // Namespace mode only: where the init sends the runner's wait status, and
  // the judge's ends of the pipes, which the init closes.
  int status_fd = -1;
  int judge_fds[4] = {-1, -1, -1, -1};
};

// Runs in the child after fork: sets it up and execs, or reports why not and
// exits with 127. Never returns.
[[noreturn]] void exec_child(const ExecPlan& plan) noexcept;

// Runs as PID 1 of a fresh PID namespace: forks the runner (which follows
// exec_child), reaps everything in the namespace, and when the runner ends
// writes its wait status (an int) to plan.status_fd and exits, which kills
// whatever is left in the namespace. The runner keeps ordinary signal
// semantics (SIGXCPU, SIGABRT, SIGPIPE), which PID 1 would not have.
[[noreturn]] void run_namespace_init(const ExecPlan& plan) noexcept;

// fork() as a raw system call (no glibc fork handlers, which may take locks
// that another judge thread held); `flags` are extra clone flags.
long raw_fork(unsigned long flags) noexcept;

}  // namespace sg::detail
