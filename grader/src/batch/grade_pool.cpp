#include "batch/grade_pool.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "batch/worker_protocol.h"
#include "proto/protocol.h"
#include "words/batch_report.h"

namespace sg::batch {
namespace {

// The seconds an idle worker told to end may take before it is killed.
constexpr double kEndingWorkerS = 10;

}  // namespace

std::string FinishedJob::describe() const { return grade_process_end(exit(), seconds, spawn_failed, error); }

GradePool::GradePool(int gradings_per_worker) : gradings_per_worker_(std::max(1, gradings_per_worker)) {
  // Orphans of a worker we kill come to us, so they can be found and ended.
  become_subreaper();
  // A worker that died between two gradings must cost a write error, not the batch.
  ::signal(SIGPIPE, SIG_IGN);
}

GradePool::~GradePool() {
  // Idle workers end by themselves, all at once; busy ones (the batch was
  // cut short) and any that will not end are killed.
  for (auto it = workers_.begin(); it != workers_.end();) {
    if (it->second.grading) {
      it->second.child.kill_all(false);
      it = workers_.erase(it);
    } else {
      it = retire(it);
    }
  }
  for (Child& c : retiring_) c.wait(kEndingWorkerS, false);
  retiring_.clear();
  kill_all_descendants();
}

std::size_t GradePool::running() const {
  return static_cast<std::size_t>(
      std::count_if(workers_.begin(), workers_.end(), [](const auto& kv) { return kv.second.grading.has_value(); }));
}

GradePool::Workers::iterator GradePool::retire(Workers::iterator it) {
  it->second.child.close_requests();
  retiring_.push_back(std::move(it->second.child));
  return workers_.erase(it);
}

GradePool::Worker* GradePool::worker_for(const GradeJob& job, std::string& error) {
  auto it = workers_.find(job.slot);
  if (it != workers_.end()) {
    if (it->second.grading) throw std::logic_error("GradePool::start: slot " + std::to_string(job.slot) + " is busy");
    if (!it->second.child.ended() && it->second.argv == job.worker && it->second.env == job.env) return &it->second;
    retire(it);
  }
  SpawnOptions opts;
  opts.argv = job.worker;
  opts.env = job.env;
  opts.output_file = "/dev/null";  // each grading's output goes to its own log (the worker points it there)
  opts.drop_privileges = false;    // the worker drops privileges for what it runs
  opts.protocol_pipes = true;      // jobs on its descriptor 3, replies on 4
  opts.pid_namespace = false;      // it makes its own for its runners
  opts.limits = Limits::inherited();  // its own watchdog and each grading's limit bound it
  std::optional<Child> child = Child::spawn(opts, error);
  if (!child) return nullptr;
  Worker w{std::move(*child), job.worker, job.env, std::nullopt, 0, ""};
  return &workers_.emplace(job.slot, std::move(w)).first->second;
}

void GradePool::start(const GradeJob& job) {
  const std::string line = encode_job({job.args, job.log_file});
  std::string error;
  // A worker that ended since its last grading (killed from outside, say)
  // refuses the write: a fresh one is started for the job, once.
  for (int attempt = 0; attempt < 2; ++attempt) {
    Worker* w = worker_for(job, error);
    if (!w) break;
    if (proto::write_all(w->child.request_fd(), line.data(), line.size())) {
      w->grading = Grading{job.index, Clock::now(), job.time_limit_s};
      return;
    }
    error = "cannot send the grading to its worker: " + std::string(std::strerror(errno));
    retire(workers_.find(job.slot));
  }
  FinishedJob fail;
  fail.index = job.index;
  fail.spawn_failed = true;
  fail.error = error;
  failed_starts_.push_back(fail);
}

std::optional<std::string> GradePool::reply_line(Worker& w) {
  while (w.child.wait_readable(w.child.reply_fd(), 0)) {
    char chunk[512];
    const ssize_t n = ::read(w.child.reply_fd(), chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    w.replies.append(chunk, static_cast<std::size_t>(n));
  }
  const std::size_t nl = w.replies.find('\n');
  if (nl == std::string::npos) return std::nullopt;
  std::string line = w.replies.substr(0, nl);
  w.replies.erase(0, nl + 1);
  return line;
}

FinishedJob GradePool::ended(const Grading& g, const ExitInfo& exit, bool timed_out) const {
  FinishedJob f;
  f.index = g.index;
  f.seconds = std::chrono::duration<double>(Clock::now() - g.started).count();
  f.timed_out = timed_out || exit.timed_out;
  f.exited = exit.exited;
  f.code = exit.exited ? exit.code : 0;
  f.signal = exit.exited ? 0 : exit.signal;
  return f;
}

void GradePool::collect(std::vector<FinishedJob>& done) {
  for (auto it = workers_.begin(); it != workers_.end();) {
    Worker& w = it->second;
    if (!w.grading) {  // idle: one that died meanwhile is only reaped
      if (w.child.ended()) {
        w.child.wait(0, false);
        it = workers_.erase(it);
      } else {
        ++it;
      }
      continue;
    }
    const Grading g = *w.grading;
    std::optional<std::string> line = reply_line(w);
    if (!line && w.child.ended()) line = reply_line(w);  // an answer written just before it ended
    if (line) {
      if (const std::optional<WorkerReply> reply = decode_reply(*line)) {
        done.push_back(ended(g, ExitInfo{true, reply->code, 0, false}, false));
        w.grading.reset();
        ++w.graded;
        it = reply->ends || w.graded >= gradings_per_worker_ ? retire(it) : std::next(it);
        continue;
      }
      // An answer that is none: the worker is not to be trusted with another grading.
      done.push_back(ended(g, w.child.kill_all(false), false));
      it = workers_.erase(it);
      continue;
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - g.started).count();
    if (g.limit_s > 0 && seconds > g.limit_s) {
      // Past its limit: the worker's group is killed; what it started is swept.
      done.push_back(ended(g, w.child.kill_all(false), true));
      it = workers_.erase(it);
    } else if (w.child.ended()) {
      // Ended without an answer (a crash, its watchdog): reaped, its group killed.
      done.push_back(ended(g, w.child.wait(0, false), false));
      it = workers_.erase(it);
    } else {
      ++it;
    }
  }
  for (auto it = retiring_.begin(); it != retiring_.end();) {
    if (it->ended()) {
      it->wait(0, false);
      it = retiring_.erase(it);
    } else {
      ++it;
    }
  }
}

void GradePool::sweep_orphans() {
  std::vector<pid_t> spared;
  for (const auto& kv : workers_) spared.push_back(kv.second.child.pid());
  for (const Child& c : retiring_) spared.push_back(c.pid());
  kill_all_descendants(spared);
}

std::vector<FinishedJob> GradePool::wait(double max_wait_s) {
  std::vector<FinishedJob> done;
  done.swap(failed_starts_);
  const auto deadline = Clock::now() + std::chrono::duration<double>(max_wait_s);
  int delay_us = 1000;
  for (;;) {
    const std::size_t before = done.size();
    collect(done);
    if (done.size() > before) sweep_orphans();
    if (!done.empty() || running() == 0 || Clock::now() >= deadline) break;
    // Gradings run for seconds to minutes: a coarse poll costs nothing.
    std::this_thread::sleep_for(std::chrono::microseconds(delay_us));
    delay_us = std::min(delay_us * 2, 50000);
  }
  return done;
}

}  // namespace sg::batch
