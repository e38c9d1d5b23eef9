#include "services/runner_session.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <utility>

#include "services/elapsed.h"
#include "services/limits.h"
#include "services/reply_wait.h"

namespace sg {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

RunnerSession::RunnerSession(RunnerConfig cfg)
    : cfg_(std::move(cfg)), next_nonce_(std::random_device{}()), extension_left_s_(cfg_.progress_budget_s) {}

RunnerSession::~RunnerSession() { stop(); }

// What a sweep of this session leaves alone: the spare runner and the
// runners of the session beside it, as they are now.
std::vector<pid_t> RunnerSession::spared_by_sweeps() const {
  std::vector<pid_t> spared = {spare_ ? spare_->pid() : 0};
  for (const RunnerSession* beside : beside_)
    spared.insert(spared.end(), {beside->pid(), beside->spare_ ? beside->spare_->pid() : 0});
  return spared;
}

std::vector<pid_t> RunnerSession::live_runners() const {
  std::vector<pid_t> live = spared_by_sweeps();
  live.push_back(pid());
  return live;
}

void RunnerSession::stop() {
  drop_spare();
  made_.clear();
  if (child_) {
    const proto::RunCaseRequest quit = proto::quit_request();
    proto::write_all(child_->request_fd(), &quit, sizeof(quit), 0.2);
    child_->wait(2.0, false);  // kills the whole group if it lingers
    child_.reset();
    if (cfg_.sweeps) kill_all_descendants(spared_by_sweeps());  // and whatever escaped it
  }
}

void RunnerSession::drop_spare() {
  if (!spare_) return;
  spare_->kill_all(false);  // its group only: a sweep now would take the current runner too
  spare_.reset();
}

std::optional<Child> RunnerSession::spawn_runner(std::string& log_file, std::string& error) {
  SpawnOptions opts;
  opts.argv = cfg_.argv;  // every runner alike: a replacement's partition is asked for through the protocol
  opts.env = cfg_.env;
  opts.workdir = cfg_.scratch_dir;
  opts.output_file = cfg_.log_dir + "/" + cfg_.log_name + "-" + std::to_string(spawned_ + 1) + ".txt";
  opts.drop_privileges = cfg_.drop_privileges;
  opts.protocol_pipes = true;
  opts.limits = cfg_.limits;
  opts.pid_namespace = cfg_.pid_namespace;
  opts.sandbox = cfg_.sandbox;
  std::optional<Child> child = Child::spawn(opts, error);
  if (child) {
    ++spawned_;
    log_file = opts.output_file;
  }
  return child;
}

bool RunnerSession::ensure_started(std::string& error) {
  if (child_) return true;
  std::string log_file;
  if (spare_ && !spare_->ended()) {
    child_ = std::move(spare_);
    spare_.reset();
    log_file = spare_log_;
  } else {
    drop_spare();  // it died waiting (its own code, before any request): start afresh
    child_ = spawn_runner(log_file, error);
    if (!child_) return false;
  }
  ++started_;
  partition_pending_ = failed_ && cfg_.partition_sms_after_failure > 0;
  logs_.push_back(log_file);
  if (started_ > 1) {
    std::string ignored;  // no spare is no failure: the next restart starts its runner then
    spare_ = spawn_runner(spare_log_, ignored);
  }
  return true;
}

namespace {
constexpr double kCrashGraceS = 0.5;
}  // namespace

CaseOutcome RunnerSession::fail_and_reset(CaseOutcome::Kind kind, CaseOutcome::Failure failure,
                                          const std::string& message) {
  CaseOutcome out;
  out.kind = kind;
  out.failure = failure;
  out.message = message;
  failed_ = true;
  // The calls this runner made before the failed one: what rerun() gives a fresh one first.
  made_before_failure_ = std::move(made_);
  made_.clear();
  const auto ending = Clock::now();
  if (child_) {
    // A runner that crashed is given a moment to end by itself (inside the
    // sandbox its death reaches the judge through bubblewrap), so that the
    // report names its signal; then everything it left dies with it. The
    // spare lives on.
    ExitInfo info = kind == CaseOutcome::Kind::Crashed || kind == CaseOutcome::Kind::ProtocolError
                        ? child_->wait(kCrashGraceS, false)
                        : child_->kill_all(false);
    if (cfg_.sweeps) kill_all_descendants(spared_by_sweeps());
    // A runner that died on its own says how; one we killed just "timed out".
    if (kind != CaseOutcome::Kind::TimedOut && (info.exited || info.signal)) {
      if (info.timed_out)
        out.runner_end = CaseOutcome::RunnerEnd::Killed;
      else if (kind == CaseOutcome::Kind::Crashed || kind == CaseOutcome::Kind::ProtocolError)
        out.runner_end = CaseOutcome::RunnerEnd::Ended;
      out.runner_exit = info;
    }
    child_.reset();
  }
  out.ending_s = seconds_since(ending);
  return out;
}

void RunnerSession::begin() {
  std::string ignored;  // a runner that cannot start fails the first request, which says why
  (void)ensure_started(ignored);
}

bool RunnerSession::ready(double timeout_s) {
  const bool failed_before = failed_;
  const CaseOutcome out = exchange(proto::ping_request(), {}, false, timeout_s);
  failed_ = failed_before;  // no case ran: the next runner starts as this one would have
  return out.kind == CaseOutcome::Kind::Ok;
}

CaseOutcome RunnerSession::run(int m, int k, int n, const std::vector<float>& a, const std::vector<float>& b,
                               double timeout_s, const CaseSchedule& schedule) {
  proto::RunCaseRequest q;
  q.type = proto::RequestType::RunCase;
  q.m = m;
  q.k = k;
  q.n = n;
  q.seed = schedule.seed;
  q.ascending = schedule.ascending ? 1 : 0;
  CaseOutcome out = exchange(q, {&a, &b}, true, timeout_s);
  // Kept once made by a runner that lives on (one that failed on it is gone, its calls with it).
  if (keep_calls_ && child_) made_.push_back(MadeCall{m, k, n, a, b, timeout_s, schedule});
  return out;
}

CaseOutcome RunnerSession::rerun(int m, int k, int n, const std::vector<float>& a, const std::vector<float>& b,
                                 double timeout_s, const CaseSchedule& schedule) {
  std::vector<MadeCall> before = std::move(made_before_failure_);
  made_before_failure_.clear();
  std::size_t replayed = 0;
  for (const MadeCall& call : before) {
    CaseOutcome out = run(call.m, call.k, call.n, call.a, call.b, call.timeout_s, call.schedule);
    // A replayed call that ended its runner: the program failed alone before reaching the case.
    if (!child_) {
      out.in_replay = true;
      out.replayed = replayed;
      return out;
    }
    ++replayed;
  }
  CaseOutcome out = run(m, k, n, a, b, timeout_s, schedule);
  out.replayed = replayed;
  return out;
}

CaseOutcome RunnerSession::time_seeded(int m, int k, int n, std::uint64_t seed, proto::Launch launch,
                                       double timeout_s, int slot) {
  proto::RunCaseRequest q;
  q.type = proto::RequestType::TimeSeeded;
  q.m = m;
  q.k = k;
  q.n = n;
  q.launch = launch;
  q.seed = seed;
  q.slot = slot;
  return exchange(q, {}, false, timeout_s);
}

CaseOutcome RunnerSession::seeded_output(int m, int k, int n, double timeout_s, int slot, std::uint64_t seed) {
  proto::RunCaseRequest q;
  q.type = proto::RequestType::SeededOutput;
  q.slot = slot;
  q.seed = seed;
  q.m = m;
  q.k = k;
  q.n = n;
  return exchange(q, {}, false, timeout_s);
}

CaseOutcome RunnerSession::exchange(const proto::RunCaseRequest& request,
                                    const std::vector<const std::vector<float>*>& payload, bool expect_c,
                                    double timeout_s) {
  const auto t0 = Clock::now();
  CaseOutcome out = exchange_once(request, payload, expect_c, timeout_s);
  const double partition_s = std::exchange(partition_s_, 0.0);
  const auto timed = [&](CaseOutcome o) {
    o.request_s = seconds_since(t0);
    o.partition_s = partition_s;
    return o;
  };
  const QuotaPlace& scratch = cfg_.scratch_quota;
  if (std::optional<QuotaOverrun> quota = over_quota(scratch)) {
    // Its own quota: the request fails, whatever the runner answered (its
    // writes failed from then on); once it has ended its files go, so that
    // the next runner starts within the quota. The quota is all it says.
    if (child_) out = fail_and_reset(CaseOutcome::Kind::DiskQuota, CaseOutcome::Failure::OverQuota);
    out.kind = CaseOutcome::Kind::DiskQuota;
    out.failure = CaseOutcome::Failure::OverQuota;
    out.message.clear();
    out.runner_end = CaseOutcome::RunnerEnd::Unknown;
    out.quota = std::move(quota);
    empty_folder(scratch.dir);
    return timed(std::move(out));
  }
  // A runner that failed beside a full disk it has no quota of its own on
  // may have failed for the disk: the machine's failure, not the student's.
  if (out.kind != CaseOutcome::Kind::Ok) {
    throw_if_disk_full(scratch, "the runner failed");
    throw_if_disk_full(cfg_.work_quota, "the runner failed");
  }
  return timed(std::move(out));
}

std::optional<QuotaOverrun> check_tool_runs(const RunnerConfig& rc, const std::vector<ToolRun>& runs,
                                            const std::string& tool) {
  bool all_ok = true;
  for (const ToolRun& run : runs) {
    if (!run.started) throw_if_machine_failure(tool, run.start_error);
    all_ok = all_ok && run.ok();
  }
  if (std::optional<QuotaOverrun> quota = over_quota(rc.scratch_quota)) {
    empty_folder(rc.scratch_quota.dir);  // every process of the tool has ended
    return quota;
  }
  if (!all_ok) {
    throw_if_disk_full(rc.scratch_quota, tool + " failed");
    throw_if_disk_full(rc.work_quota, tool + " failed");  // its output, where the judge reads it
  }
  return std::nullopt;
}

CaseOutcome RunnerSession::exchange_once(const proto::RunCaseRequest& request,
                                         const std::vector<const std::vector<float>*>& payload, bool expect_c,
                                         double timeout_s) {
  const auto t0 = Clock::now();
  std::string error;
  if (!ensure_started(error)) {
    CaseOutcome out;
    out.kind = CaseOutcome::Kind::StartFailed;
    out.failure = CaseOutcome::Failure::NotStarted;
    out.message = error;
    // Out of memory, descriptors or disk on the grader's side: the
    // machine's failure, unless the submission's output filled its work folder.
    if (std::optional<QuotaOverrun> quota = over_quota(cfg_.work_quota)) {
      out.kind = CaseOutcome::Kind::DiskQuota;
      out.failure = CaseOutcome::Failure::OutputOverQuota;
      out.message.clear();
      out.quota = std::move(quota);
      return out;
    }
    throw_if_machine_failure("the runner", error);
    return out;
  }
  if (partition_pending_) {
    // A replacement's first request: its checked launches on a partition of the SMs.
    partition_pending_ = false;
    proto::RunCaseRequest p;
    p.type = proto::RequestType::Partition;
    p.m = static_cast<std::int32_t>(cfg_.partition_sms_after_failure);
    p.k = p.n = 1;
    const CaseOutcome made = exchange(p, {}, false, timeout_s);
    if (made.kind != CaseOutcome::Kind::Ok) return made;
    partition_s_ = made.request_s;
  }
  proto::RunCaseRequest q = request;
  q.nonce = next_nonce_++;
  // A timeout says the limit it ran past.
  const auto timed_out = [this, timeout_s] {
    CaseOutcome out = fail_and_reset(CaseOutcome::Kind::TimedOut, CaseOutcome::Failure::TimedOut);
    out.after_s = timeout_s;
    return out;
  };
  double limit = timeout_s;  // moved on while a CPU runner's blocks keep completing
  auto left = [&] { return limit - seconds_since(t0); };
  // A failed write is a timeout when the time ran out, else the runner went away.
  auto write_failed = [&] {
    return left() <= 0 ? timed_out()
                       : fail_and_reset(CaseOutcome::Kind::Crashed, CaseOutcome::Failure::DiedBeforeReading);
  };
  const int wfd = child_->request_fd();
  const auto sent = Clock::now();
  if (!proto::write_all(wfd, &q, sizeof(q), left())) return write_failed();
  for (const std::vector<float>* part : payload)
    if (!proto::write_all(wfd, part->data(), sizeof(float) * part->size(), left())) return write_failed();

  CaseOutcome out;
  proto::Reply& r = out.reply;
  // Waits for the reply to begin (no progress file: no extension).
  const double spin_s = q.type == proto::RequestType::TimeSeeded ? kTimedReplySpinS : 0;
  const ReplyWait wait = wait_for_reply(child_->reply_fd(), t0, timeout_s, cfg_.progress_file,
                                        cfg_.progress_limit_factor, extension_left_s_, spin_s);
  limit = wait.limit_s;
  out.extended = wait.extended;
  if (!cfg_.progress_file.empty()) out.limit_s = timeout_s;
  // A reply that has begun gets kReplyTransferS to arrive in full: the limit
  // bounds the work, and on a busy machine copying C through the pipe can
  // cross it (an honest naive kernel on the CPU backend lost a case so, in make test).
  const double read_s = reply_read_seconds(wait, left(), kReplyTransferS);
  if (!proto::read_reply(child_->reply_fd(), r, q.m, q.n, read_s, error, expect_c)) {
    // The reader's own error (proto/protocol.h) tells a timeout from an end.
    if (error.find("timed out") != std::string::npos && out.extended) {
      CaseOutcome slow = fail_and_reset(CaseOutcome::Kind::TimedOut, CaseOutcome::Failure::TimedOutExtended);
      slow.extended = true;
      slow.limit_s = timeout_s;
      slow.after_s = limit;
      slow.extension_factor = std::max(1.0, cfg_.progress_limit_factor);
      slow.extension_budget_s = cfg_.progress_budget_s;
      return slow;
    }
    if (error.find("timed out") != std::string::npos) return timed_out();
    if (error.find("end of") != std::string::npos || error.find("EOF") != std::string::npos ||
        error.find("closed") != std::string::npos || error.find("short") != std::string::npos)
      return fail_and_reset(CaseOutcome::Kind::Crashed, CaseOutcome::Failure::DiedWhileRunning);
    return fail_and_reset(CaseOutcome::Kind::ProtocolError, CaseOutcome::Failure::MalformedReply, error);
  }
  out.judge_ms = 1000.0 * seconds_since(sent);
  if (r.header.nonce != q.nonce)
    return fail_and_reset(CaseOutcome::Kind::ProtocolError, CaseOutcome::Failure::ReplyToOther);
  out.facts = r.header.launch;
  // A runner that fails is ended; the facts of its reply stay with the case.
  const auto failed = [this, &out](CaseOutcome::Kind kind, CaseOutcome::Failure failure, const std::string& message) {
    CaseOutcome ended = fail_and_reset(kind, failure, message);
    ended.facts = out.facts;
    return ended;
  };
  switch (r.header.status) {
    case proto::ReplyStatus::Ok:
      out.kind = CaseOutcome::Kind::Ok;
      return out;
    case proto::ReplyStatus::OutOfMemory:
      out.kind = CaseOutcome::Kind::OutOfMemory;
      out.failure = CaseOutcome::Failure::OutOfMemory;
      out.message = r.message;
      return out;  // not sticky: the runner carries on
    case proto::ReplyStatus::LaunchRefused:
      out.kind = CaseOutcome::Kind::LaunchError;
      out.failure = CaseOutcome::Failure::LaunchFailed;
      out.message = r.message;
      return out;  // the device still works: the runner carries on
    case proto::ReplyStatus::LaunchError:
      return failed(CaseOutcome::Kind::LaunchError, CaseOutcome::Failure::LaunchFailed, r.message);
    case proto::ReplyStatus::CudaError:
      return failed(CaseOutcome::Kind::CudaError, CaseOutcome::Failure::CudaError, r.message);
    default:
      return fail_and_reset(CaseOutcome::Kind::ProtocolError, CaseOutcome::Failure::Rejected, r.message);
  }
}

std::string RunnerSession::captured_output(std::size_t cap) const {
  std::string all;
  for (std::size_t i = 0; i < logs_.size() && all.size() < cap; ++i) {
    std::string part = read_capped_text(logs_[i], cap - all.size());
    if (part.empty()) continue;
    if (logs_.size() > 1) all += "--- runner " + std::to_string(i + 1) + " ---\n";
    all += part;
    if (!all.empty() && all.back() != '\n') all += '\n';
  }
  return all;
}

}  // namespace sg
