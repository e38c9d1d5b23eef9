#include "backends/gpu/pm_reuse.h"

#include <chrono>
#include <thread>

#include "backends/gpu/pm_loads.h"
#include "backends/load_count.h"
#include "words/case_report.h"
#include "words/check_report.h"
#include "words/gpu_backend_lines.h"

namespace sg {
namespace {

constexpr std::chrono::milliseconds kQuietWindow{5};

// One window of PM sampling: the counter, started, is stopped at close.
class PmWindow : public LoadWindow {
 public:
  explicit PmWindow(PmLoadCounter& counter) : counter_(counter) {}
  ~PmWindow() override {
    std::string ignored;  // a window left open is stopped: the next one starts the counter again
    if (!closed_) (void)counter_.stop(ignored);
  }
  std::optional<double> close(std::string& why) override {
    closed_ = true;
    return counter_.stop(why);
  }

 private:
  PmLoadCounter& counter_;  // PmWindows' own, which outlives its windows
  bool closed_ = false;
};

// The counter is prepared when this object is made (host-side work, before
// the exclusive hold), enabled once for a launch's windows (inside the hold)
// and disabled with this object.
class PmWindows : public LoadWindows {
 public:
  explicit PmWindows(std::function<void(const std::string&)> log)
      : log_(std::move(log)), counter_(PmLoadCounter::prepare(why_not_)) {}
  void enable_now() override {
    std::string ignored;  // the first window tries again, and says why
    (void)enabled(ignored);
  }
  std::unique_ptr<LoadWindow> open(std::string& why) override {
    if (!enabled(why)) return nullptr;
    // What the counters gathered since they were enabled (a grading alone
    // enables them while its other cases run) or since the last window comes
    // with a start's first sample: a window of its own takes it, unread.
    if (!counter_->start(why) || !counter_->stop(why)) return nullptr;
    if (!counter_->start(why)) return nullptr;
    // The device must be quiet before the launch: loads in an empty window come
    // from work outside the grading's hold, and would be counted as its own.
    std::this_thread::sleep_for(kQuietWindow);
    const std::optional<double> before = counter_->stop(why);
    if (!before) return nullptr;
    if (*before > 0) {
      why = device_not_quiet(*before, kQuietWindow.count());
      return nullptr;
    }
    if (!counter_->start(why)) return nullptr;
    return std::make_unique<PmWindow>(*counter_);
  }

 private:
  // The counter prepared and enabled, or false and why.
  bool enabled(std::string& why) {
    if (!counter_) {
      why = why_not_;
      return false;
    }
    if (counter_->enabled()) return true;
    if (!counter_->enable(why)) return false;
    if (log_) log_(counter_opened_log_line(counter_->prepare_seconds(), counter_->enable_seconds()));
    return true;
  }

  std::function<void(const std::string&)> log_;
  std::string why_not_;  // why it could not be prepared
  std::unique_ptr<PmLoadCounter> counter_;
};

}  // namespace

std::unique_ptr<LoadWindows> pm_windows(const std::function<void(const std::string&)>& log) {
  return std::make_unique<PmWindows>(log);
}

// The loads of the correctness case of the check's shape, counted around its
// checked launch (pipeline/case_run.cpp), as the CPU backend counts that
// case; without such a case, one checked launch of its own through the
// student's runner, made as a case is. The window holds only the runner's own
// work: its copies and the shared-memory zeroing issue no global loads. Each
// launch is counted twice and the device must be quiet before each window
// (PmWindows::open): work of other processes never passes for the student's.
std::optional<ReuseMeasurement> reuse_from_counters(const Check& c, const SanitizerContext& ctx, const PmReuseRun& run,
                                                    std::string& why) {
  ReuseMeasurement r;
  r.source = ReuseSource::PmSampling;
  r.naive_loads = naive_global_loads(c.m, c.n, c.k);
  const auto t0 = std::chrono::steady_clock::now();
  std::optional<CountedCase> counted;
  for (const CountedCase& cc : ctx.counted)
    if (cc.m == c.m && cc.k == c.k && cc.n == c.n) {
      counted = cc;
      break;
    }
  // A case of the shape whose count failed is not counted again by a launch
  // of its own: a submission that skips a repeated shape would load nothing there.
  if (!counted) {
    if (run.log)
      run.log(counters_loads_log_line(c.m, c.k, c.n));
    const CaseInputs in = make_inputs(c.m, c.k, c.n, Distribution::Uniform, ctx.seed ^ 0x57c0de5ull);
    CountedLaunch launch;
    {
      std::unique_ptr<LoadWindows> windows = run.windows();  // prepared before the hold
      const std::unique_ptr<DeviceHold> hold = run.exclusive_hold();
      launch = count_launch_twice(*windows,
                                  [&] { return ctx.session->run(c.m, c.k, c.n, in.a, in.b, run.time_limit_s); });
      windows.reset();  // the counter disabled before the hold ends
    }
    const bool completed = launch.out.kind == CaseOutcome::Kind::Ok;
    counted = CountedCase{c.m, c.k, c.n, completed, failure_cause(launch.out), launch.loads.value_or(0), 0,
                          launch.loads.has_value(), launch.counter_failed};
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.outcome = ReuseMeasurement::Outcome::NotMeasured;
  if (!counted->completed) {
    r.why = reuse_not_completed(counted->verdict);
    return r;
  }
  if (!counted->counted) {  // the counter failed, not the kernel
    why = counted->counter_failed;
    return std::nullopt;
  }
  if (counted->warp_loads <= 0) {
    r.why = reuse_nothing_counted(false);  // a launch that completed at the shape
    return r;
  }
  r.outcome = ReuseMeasurement::Outcome::Measured;
  r.loads = counted->warp_loads;
  return r;
}

}  // namespace sg
