#include "batch/grade_pool.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <thread>

#include "words/batch_report.h"

namespace sg::batch {

std::string FinishedJob::describe() const { return grade_process_end(exit(), seconds, spawn_failed, error); }

GradePool::GradePool() {
  // Orphans of a grade process we kill come to us, so they can be found and ended.
  become_subreaper();
}

GradePool::~GradePool() { kill_all(); }

void GradePool::start(const GradeJob& job) {
  SpawnOptions opts;
  opts.argv = job.argv;
  opts.env = job.env;
  opts.output_file = job.log_file;
  opts.output_mode = 0644;       // a TA reads grade.log
  opts.drop_privileges = false;  // the grade process drops privileges for what it runs
  opts.protocol_pipes = false;
  opts.pid_namespace = false;    // it makes its own for its runners
  opts.limits = Limits::inherited();  // its own watchdog and the limit below bound it
  std::string error;
  std::optional<Child> child = Child::spawn(opts, error);
  if (!child) {
    FinishedJob fail;
    fail.index = job.index;
    fail.spawn_failed = true;
    fail.error = error;
    failed_starts_.push_back(fail);
    return;
  }
  const pid_t pid = child->pid();
  running_.emplace(pid, Running{std::move(*child), job.index, Clock::now(), job.time_limit_s});
}

void GradePool::collect(std::vector<FinishedJob>& done) {
  const auto now = Clock::now();
  for (auto it = running_.begin(); it != running_.end();) {
    Running& r = it->second;
    const double seconds = std::chrono::duration<double>(now - r.started).count();
    const bool over = r.limit_s > 0 && seconds > r.limit_s;
    if (!over && !r.child.ended()) {
      ++it;
      continue;
    }
    // Ended: reaps it and kills what is left in its group. Over its limit:
    // kills the group first. Either way no sweep here (the others run on).
    ExitInfo exit = over ? r.child.kill_all(false) : r.child.wait(0, false);
    if (over) exit.timed_out = true;
    FinishedJob f;
    f.index = r.index;
    f.seconds = seconds;
    f.timed_out = exit.timed_out;
    f.exited = exit.exited;
    f.code = exit.exited ? exit.code : 0;
    f.signal = exit.exited ? 0 : exit.signal;
    done.push_back(f);
    it = running_.erase(it);
  }
}

void GradePool::sweep_orphans() {
  std::vector<pid_t> spared;
  for (const auto& kv : running_) spared.push_back(kv.first);
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
    if (!done.empty() || running_.empty() || Clock::now() >= deadline) break;
    // Grade processes run for seconds to minutes: a coarse poll costs nothing.
    std::this_thread::sleep_for(std::chrono::microseconds(delay_us));
    delay_us = std::min(delay_us * 2, 50000);
  }
  return done;
}

void GradePool::kill_all() {
  for (auto& kv : running_) kv.second.child.kill_all(false);
  running_.clear();
  kill_all_descendants();
}

}  // namespace sg::batch
