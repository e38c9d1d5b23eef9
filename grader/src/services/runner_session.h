// The judge's side of one submission's runner: starts it (contained, see
// process/process.h), sends cases, reads replies with deadlines, and starts a
// fresh runner after a crash, a timeout or a sticky CUDA error.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "proto/protocol.h"
#include "process/process.h"
#include "process/tool_run.h"
#include "services/disk_quota.h"

namespace sg {

struct RunnerConfig {
  std::vector<std::string> argv;  // the runner (e.g. {"/tmp/x/runner"})
  std::vector<std::string> env;   // complete, scrubbed environment
  std::string scratch_dir;        // the runner's cwd (writable by it, nothing else is)
  std::string log_dir;            // captured output files go here: <log_name>-N.txt
  std::string log_name = "runner";
  bool drop_privileges = true;
  bool pid_namespace = true;  // see SpawnOptions; off for CUDA runners (the driver fails inside one)
  // Whether a failed runner's ending, and stop(), sweep every other process
  // the judge started (but the spared runners): a student's runner may have
  // left some. Off for the grader's own baseline runner, which starts none
  // and may run while the submission builds (its compiler is no runner's).
  bool sweeps = true;
  // GPU runners: a runner that replaces one that failed (crashed, timed out,
  // hit a sticky CUDA error) runs its checked launches on a partition of this
  // many SMs (proto Partition, its first request; backends/gpu/sm_partition.h
  // says why). 0: never.
  unsigned partition_sms_after_failure = 0;
  // CPU runners: the file where the CPU layer counts completed blocks
  // (CUDACPU_PROGRESS_FILE, set in env too). A case past its time limit
  // whose count moved in the last limit's span gets another span, up to
  // progress_limit_factor times the limit in all: a legal but huge grid is
  // slow on the CPU backend, a hang completes no block. "": no extension.
  // progress_budget_s: the extensions' seconds in all, over the session.
  std::string progress_file;
  double progress_limit_factor = 1;
  double progress_budget_s = 0;
  Limits limits;
  Sandbox sandbox;  // the runner's sandbox (profile Run); bwrap "" where unavailable
  // The grading's quotas (services/disk_quota.h): the scratch folder's,
  // checked after every request, and the work folder's (the runners'
  // captured output), which says whose a failed start is. Unset: unchecked.
  QuotaPlace scratch_quota;
  QuotaPlace work_quota;
};

// Seconds a reply that had begun when the judge looked (services/reply_wait.h)
// may take to arrive in full, past its case's limit (RunnerSession::run and the
// other requests).
inline constexpr double kReplyTransferS = 10;
// Seconds the judge watches for a timed request's reply without sleeping,
// before it waits asleep (a slower launch's request is long enough for a
// wake-up's jitter not to matter).
inline constexpr double kTimedReplySpinS = 0.05;

struct CaseOutcome {
  // How the grading treats it. DiskQuota: the submission filled a folder's
  // quota (`quota` says which); the runner was ended.
  enum class Kind {
    Ok, TimedOut, Crashed, CudaError, LaunchError, OutOfMemory, ProtocolError, StartFailed, DiskQuota
  };
  Kind kind = Kind::Ok;
  // What happened when not Ok, as facts: words/case_report.h says it
  // (runner_failure). Each is one Kind's; the fields it uses in brackets.
  enum class Failure {
    None,
    NotStarted,         // StartFailed: the runner could not start [message: the spawn's error]
    OutputOverQuota,    // DiskQuota: it could not start, the work folder past its quota [quota]
    OverQuota,          // DiskQuota: a request left the scratch folder past its quota [quota]
    TimedOut,           // TimedOut: no reply within its limit [after_s]
    TimedOutExtended,   // TimedOut: past its limit extended while blocks completed [after_s, limit_s, extension_*]
    DiedBeforeReading,  // Crashed: the runner died before reading the case
    DiedWhileRunning,   // Crashed: the runner died while running it
    MalformedReply,     // ProtocolError [message: the reply reader's error]
    ReplyToOther,       // ProtocolError: the reply's nonce was another request's
    Rejected,           // ProtocolError: the runner rejected the request [message]
    OutOfMemory,        // OutOfMemory [message]
    LaunchFailed,       // LaunchError: refused, or failed [message]
    CudaError,          // CudaError [message]
  };
  Failure failure = Failure::None;
  // The one free text, quoted as it is and never parsed: the runner's own
  // message from its reply (the submission's to shape: data, never read for
  // meaning), or the grader's own error where a start or a read failed.
  std::string message;
  // How the runner itself ended once the failure had ended it: not known
  // (or not said: a timeout, a quota), killed after it did not end by
  // itself, or ended as `runner_exit` describes.
  enum class RunnerEnd { Unknown, Killed, Ended };
  RunnerEnd runner_end = RunnerEnd::Unknown;
  ExitInfo runner_exit;
  std::optional<QuotaOverrun> quota;  // DiskQuota: the folder and its quota
  double after_s = 0;                 // TimedOut: the limit it ran past, in seconds
  // TimedOutExtended: the extension's rule (RunnerConfig::progress_limit_factor
  // at least 1, and progress_budget_s).
  double extension_factor = 1, extension_budget_s = 0;
  proto::Reply reply;       // valid when Ok
  // The launch and fault the runner's reply named (proto::LaunchFacts), kept
  // when the case failed too: words/case_report.cpp says them.
  proto::LaunchFacts facts;
  // The judge's steady clock from writing the request to reading the whole
  // reply (not the runner's start-up): a timed sample's time.
  double judge_ms = 0;
  // Past its time limit, the case went on because blocks kept completing
  // (RunnerConfig::progress_file): the limit it had, and the time it took.
  bool extended = false;
  double limit_s = 0;
  // RunnerSession::rerun: how many earlier launches were made again first, and
  // whether the next one failed (in_replay: the case itself was not made).
  std::size_t replayed = 0;
  bool in_replay = false;
  // The judge's clock over the whole request (`request_s`), of it a
  // replacement runner's partition asked for first (`partition_s`) and a
  // failed runner's ending (`ending_s`): where a crashing submission's time goes.
  double request_s = 0, partition_s = 0, ending_s = 0;
};

// How the CPU layer runs a checked launch (proto RunCase's seed and
// ascending): the seed of the resident blocks' turns, and each block's
// threads in ascending order between barriers (the race check's second run).
// The GPU runner ignores both.
struct CaseSchedule {
  std::uint64_t seed = 0;
  bool ascending = false;
};

class RunnerSession {
 public:
  explicit RunnerSession(RunnerConfig cfg);
  ~RunnerSession();
  RunnerSession(const RunnerSession&) = delete;
  RunnerSession& operator=(const RunnerSession&) = delete;

  // Starts the runner if none runs, without waiting for it.
  void begin();
  // Starts the runner if none runs and waits (up to timeout_s) until it
  // answers a Ping: its start-up then lies outside whatever the caller holds
  // for its first real request. A runner that does not answer in time (or
  // dies) is ended without counting as a failure: the next request starts
  // another. True when it answered.
  bool ready(double timeout_s);
  // Every request below: a scratch folder found past its quota afterwards
  // ends the runner and fails the request (Kind::DiskQuota), and the folder
  // is emptied for the next runner. Throws MachineFailure (services/limits.h)
  // when the runner cannot start for the grader's own lack of memory,
  // descriptors or disk, or fails while a folder of its grading with no
  // quota of its own sits on a full disk: those are never the submission's.
  // One checked launch (proto RunCase).
  CaseOutcome run(int m, int k, int n, const std::vector<float>& a, const std::vector<float>& b, double timeout_s,
                  const CaseSchedule& schedule = {});
  // Keep each runner's checked launches (their inputs too) for rerun(); off by default (memory).
  void keep_calls(bool keep) { keep_calls_ = keep; }
  // One checked launch made again after its runner failed, on a fresh runner
  // that first makes the checked launches the failed one had made before it
  // (their inputs and limits, in order): the case is then the same call of
  // the program as before, which a submission may act on (a count of calls,
  // a cache of shapes). A replayed launch that ends its runner is the outcome
  // (CaseOutcome::in_replay). Needs keep_calls(true) before the first run.
  CaseOutcome rerun(int m, int k, int n, const std::vector<float>& a, const std::vector<float>& b, double timeout_s,
                    const CaseSchedule& schedule = {});
  // One timed sample on the inputs of `seed` (proto TimeSeeded): judge_ms is
  // its time, reply.header.digest_a/b the runner's commitment to C.
  CaseOutcome time_seeded(int m, int k, int n, std::uint64_t seed, proto::Launch launch, double timeout_s,
                          int slot = 0);
  // The C of the timed sample of `seed` in `slot` to its file in
  // scratch_dir() (proto SeededOutput), untimed; the reply carries no data.
  CaseOutcome seeded_output(int m, int k, int n, double timeout_s, int slot, std::uint64_t seed);
  const std::string& scratch_dir() const { return cfg_.scratch_dir; }
  // Whether a runner of this session has failed (crashed, timed out, ...).
  bool has_failed() const { return failed_; }
  // How many runners have served so far: changes whenever a fresh one takes over.
  int generation() const { return started_; }
  // Ends the current runner (if any) and every process it started, sparing
  // the runners of the session beside it (spare()).
  void stop();
  // Another session running beside this one (the grader's baseline runner):
  // this session's sweeps (after a failed case, on stop) leave its runners
  // alone, whichever they are by then (it may have started another). It
  // must outlive this session's sweeps.
  void spare(const RunnerSession& beside) { beside_.push_back(&beside); }
  // None spared any more: the sessions beside it are about to end, and a
  // later sweep or live_runners() must not look at them.
  void spare_none() { beside_.clear(); }
  // The current runner's pid, 0 when none runs.
  pid_t pid() const { return child_ ? child_->pid() : 0; }
  // Every runner this session and the one beside it have alive (0s where
  // none): what a tool run between the cases must leave to them.
  std::vector<pid_t> live_runners() const;
  // Output captured from every runner started so far, capped and sanitised.
  std::string captured_output(std::size_t cap) const;

 private:
  bool ensure_started(std::string& error);
  // Sends q and its payload (A then B, or nothing), reads the reply.
  CaseOutcome exchange(const proto::RunCaseRequest& q, const std::vector<const std::vector<float>*>& payload,
                       bool expect_c, double timeout_s);
  // exchange without the checks of the folders afterwards.
  CaseOutcome exchange_once(const proto::RunCaseRequest& q, const std::vector<const std::vector<float>*>& payload,
                            bool expect_c, double timeout_s);
  CaseOutcome fail_and_reset(CaseOutcome::Kind kind, CaseOutcome::Failure failure, const std::string& message = "");
  std::optional<Child> spawn_runner(std::string& log_file, std::string& error);
  void drop_spare();
  std::vector<pid_t> spared_by_sweeps() const;

  RunnerConfig cfg_;
  std::optional<Child> child_;
  // After a runner dies, its replacement's replacement is started at once
  // (a submission that crashed tends to crash again), so that its CUDA
  // start-up overlaps the next case instead of following the next crash.
  std::optional<Child> spare_;
  std::string spare_log_;
  int started_ = 0;
  int spawned_ = 0;  // runners started, spares included (names the log files)
  bool failed_ = false;  // a runner has failed: those started from now on get the partition
  bool partition_pending_ = false;  // the current runner's first request is its Partition
  double partition_s_ = 0;          // that request's time, for the outcome of the request it came before
  std::vector<const RunnerSession*> beside_;  // spare()
  // A checked launch as made (run), for rerun().
  struct MadeCall {
    int m, k, n;
    std::vector<float> a, b;
    double timeout_s;
    CaseSchedule schedule;
  };
  bool keep_calls_ = false;
  std::vector<MadeCall> made_;                // the current runner's, in order
  std::vector<MadeCall> made_before_failure_;  // the last runner that failed: those before its failed request
  std::uint64_t next_nonce_;
  std::vector<std::string> logs_;
  double extension_left_s_;  // of cfg_.progress_budget_s
};

// After a tool (compute-sanitizer, ncu) ran the submission's runner with
// `rc`'s folders: nothing or, when the scratch folder is past its quota,
// which quota (the folder then emptied, as after a request).
// Throws MachineFailure when a tool could not start for the grader's own lack
// of resources, or one failed while a folder with no quota of its own sat on
// a full disk (its output could not be written).
std::optional<QuotaOverrun> check_tool_runs(const RunnerConfig& rc, const std::vector<ToolRun>& runs,
                                            const std::string& tool);

}  // namespace sg
