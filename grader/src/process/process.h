// Starting and containing an untrusted process (the runner). The judge never
// blocks on anything the child controls without a deadline, and every process
// the child starts dies with it.
#pragma once
#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "process/sandbox.h"

namespace sg {

// Per-child resource limits; 0 leaves that limit as the judge has it.
struct Limits {
  double cpu_seconds = 600;        // RLIMIT_CPU (host CPU time)
  long long file_bytes = 64 << 20; // RLIMIT_FSIZE: caps captured output and anything else written
  long nprocs = 512;               // RLIMIT_NPROC (counts threads; CUDA needs a few dozen)
  long long address_space_bytes = 0;  // RLIMIT_AS (for compilers; CUDA reserves huge ranges)

  // Nothing limited: trusted programs that must outlive long gradings
  // (batch workers) and whose own limits are the judge's.
  static Limits inherited() { return Limits{0, 0, 0, 0}; }
};

// The one way the grader starts a process: compilers, nm, runners, the
// sanitizer and batch workers all come through Child::spawn.
struct SpawnOptions {
  std::vector<std::string> argv;   // argv[0] is the program path (see program_path.h)
  std::vector<std::string> env;    // the complete environment ("K=V"); nothing inherited
  std::string workdir;             // cwd of the child ("": the judge's own)
  // stdout+stderr go here (a file, never a pipe a stray child could hold),
  // created with O_NOFOLLOW and output_mode. "": an anonymous in-memory file
  // that Child::captured_output reads (bounded by limits.file_bytes).
  std::string output_file;
  unsigned output_mode = 0600;
  bool drop_privileges = true;     // when running as root: become `nobody` (or SG_RUNNER_USER)
  bool protocol_pipes = true;      // create fds 3 (requests) and 4 (replies)
  // When running as root: run the child inside a new PID namespace (under a
  // small init that the judge's handle owns), so that everything it starts
  // dies with it, whatever it does (setsid, double fork). Falls back silently
  // to the plain process group + /proc sweep where namespaces are refused
  // (EPERM in a container). Tests set false to exercise that fallback.
  bool pid_namespace = true;
  Limits limits;
  // Where bubblewrap is available (sandbox.bwrap set) and a profile is named:
  // argv runs inside the sandbox (process/sandbox.h), which then provides the
  // PID namespace. Without bwrap: as before, limits and privilege drop only.
  Sandbox sandbox;
};

// How a child ended.
struct ExitInfo {
  bool exited = false;   // normal exit
  int code = 0;          // exit code when exited
  int signal = 0;        // terminating signal otherwise
  bool timed_out = false;
  std::string describe() const;  // "exited with code 3", "killed by signal 11 (SIGSEGV, segmentation fault)", "timed out"
};

class Child {
 public:
  static std::optional<Child> spawn(const SpawnOptions& opts, std::string& error);
  Child(Child&&) noexcept;
  Child& operator=(Child&&) noexcept;
  Child(const Child&) = delete;
  ~Child();  // kills the whole group if still running

  // The process the judge waits for and kills: the runner itself, or the
  // namespace init whose death takes the whole namespace with it.
  pid_t pid() const { return pid_; }
  int request_fd() const { return to_child_; }   // judge writes here
  int reply_fd() const { return from_child_; }   // judge reads here
  // Closes the judge's end of the request pipe: the child reads end of file
  // (a batch's worker then ends by itself).
  void close_requests();
  // Wait until `fd` is readable or the deadline passes; false on timeout.
  bool wait_readable(int fd, double timeout_s) const;
  // Kill the child's process group and every descendant that escaped it, then reap.
  // sweep = false leaves the escaped descendants (and any sibling children)
  // alone: for children run side by side, swept together once all have ended.
  ExitInfo kill_all(bool sweep = true);
  // Wait for exit up to timeout_s; kills everything on timeout.
  ExitInfo wait(double timeout_s, bool sweep = true);
  // Has it ended (or been reaped)? Never blocks, reaps nothing.
  bool ended() const;
  // What it printed, when spawned without an output_file: at most `cap`
  // bytes, cleaned (io/clean_text.h); total_bytes says how much there was.
  struct Output {
    std::string text;
    unsigned long long total_bytes = 0;
    bool truncated = false;
  };
  Output captured_output(std::size_t cap) const;

 private:
  Child() = default;
  pid_t pid_ = -1;
  int to_child_ = -1, from_child_ = -1;
  int status_fd_ = -1;  // namespace mode: the init reports the runner's wait status here
  int capture_fd_ = -1; // the in-memory output file, when there is no output_file
  // Run by bubblewrap, which exits with 128 + N when its program is killed by signal N.
  bool sandboxed_ = false;
  bool reaped_ = false;
  ExitInfo exit_;
};

// "" or the words of the machine's own resource failure in a Child::spawn
// error (strerror of the grader's own calls): out of memory, descriptors or
// disk, or, for the grader's fork and clone, processes. A step of the child
// as its grading's uid (a setresuid refused because that uid has too many
// processes) does not count: that is the submission's doing.
std::string machine_resource_error(const std::string& spawn_error);

// Make this process a child subreaper so orphans of the runner are reparented
// here and can be found and killed. Call once at start-up of the judge.
void become_subreaper();
// Kill and reap every descendant of this process (used after each runner and at exit).
// Child::wait and Child::kill_all end with this sweep unless told otherwise, so
// children run side by side are swept together after the last one ends.
// `spared` pids (0 entries ignored) and their descendants are left alone: a
// runner started in advance survives the sweep after the one it replaces, and
// a batch's workers survive the sweep of what another left.
// (Ended children are reaped whatever their parent.)
void kill_all_descendants(const std::vector<pid_t>& spared = {});

// Short sleeps that grow to 10 ms, for polling a child: quick for fast
// exits, cheap for long ones. Start delay_us small (100-200).
void backoff_sleep(int& delay_us);

// Read at most `cap` bytes of a file, cleaned (io/clean_text.h) so the text is
// safe to put into JSON/XML; appends a truncation note when longer. Never
// follows a link or reads a FIFO.
std::string read_capped_text(const std::string& path, std::size_t cap);

}  // namespace sg
