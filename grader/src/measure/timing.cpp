#include "measure/timing.h"

#include <algorithm>
#include <string>

namespace sg {
namespace {

// A 16x16 FP32 tiled kernel cannot beat cuBLAS; allow some noise before calling it impossible.
constexpr double kFasterThanCublas = 0.8;
// How far a runner's event times may sit below the judge's clock less the
// overhead before the judge's figure is used: the noise between two runners'
// request overheads (an honest runner stays on its events), and all that a
// runner which under-reports can gain.
constexpr double kFloorSlack = 0.03;
constexpr double kFloorSlackMs = 0.08;

// The samples less the overhead.
std::vector<double> net(const std::vector<double>& raw, double overhead) {
  std::vector<double> out;
  out.reserve(raw.size());
  for (double v : raw) out.push_back(v - overhead);
  return out;
}

}  // namespace

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

double request_spread(const std::vector<double>& judge_ms) {
  if (judge_ms.size() < 4) return 0;
  std::vector<double> v = judge_ms;
  std::sort(v.begin(), v.end());
  const double q1 = v[(v.size() - 1) / 4], q3 = v[(3 * (v.size() - 1) + 3) / 4];
  return q1 > 0 ? q3 / q1 - 1 : 0;
}

double retake_pause_s(int take) { return take <= 2 ? 0.0 : 0.25 * (1 << std::min(take - 3, 4)); }

double pace_slowdown(const TimingEvidence& e, const std::vector<double>& window_event_ms) {
  double fastest = 0;
  for (const auto* series : {&e.yardstick_event_ms, &e.probe_event_ms})
    if (series != &window_event_ms)
      for (double ms : *series)
        if (ms > 0 && (fastest == 0 || ms < fastest)) fastest = ms;
  const double window = median(window_event_ms);
  return fastest > 0 && window > fastest ? window / fastest - 1 : 0;
}

double student_request_spread(const TimingEvidence& e) {
  std::vector<double> settled;
  for (std::size_t i = 0; i < e.student_ms.size(); ++i)
    if (i >= e.student_after_probe.size() || !e.student_after_probe[i]) settled.push_back(e.student_ms[i]);
  return request_spread(settled);
}

double student_take_disturbance(const TimingEvidence& e) {
  return std::max(student_request_spread(e), pace_slowdown(e, e.probe_event_ms));
}

double baseline_take_disturbance(const TimingEvidence& e) {
  return std::max(request_spread(e.reference_ms), pace_slowdown(e, e.reference_event_ms));
}

Timing evaluate_timing(const TimingEvidence& e) {
  Timing t;
  t.samples = static_cast<int>(e.student_ms.size());
  t.raw = {e.student_ms,     e.student_event_ms,   e.reference_ms, e.reference_event_ms,
           e.overhead_ms,    e.yardstick_event_ms, e.probe_event_ms};
  t.overhead_ms = median(e.overhead_ms);
  // What a request costs beyond its launch, as the reference's own requests
  // in the trusted baseline runner show it: the judge's clock less the events.
  double launch_overhead = t.overhead_ms;
  if (!e.reference_event_ms.empty() && e.reference_event_ms.size() == e.reference_ms.size()) {
    std::vector<double> beyond;
    for (std::size_t i = 0; i < e.reference_ms.size(); ++i)
      beyond.push_back(e.reference_ms[i] - e.reference_event_ms[i]);
    launch_overhead = median(beyond);
  }
  auto floor_of = [&](double request) {
    return request - launch_overhead - std::max(kFloorSlackMs, kFloorSlack * request);
  };
  // One side (see timing.h): the median event time, bounded below by the
  // floor of its fastest quarter of requests. A delay of the host or a burst
  // of another process's work only ever lengthens requests, often most of a
  // take's in a batch: a floor taken sample by sample, or at the median
  // request, then beat the honest events (RESULTS.md). Each request
  // holds a launch whose output was checked, so the fastest quarter is work
  // that was really done.
  struct Side {
    std::vector<double> taken;  // per sample: its event time, or its request less the overhead
    double ms = 0;
    double floor_ms = 0;
    bool floored = false;  // the judge's floor beat the median event time
  };
  auto side = [&](const std::vector<double>& judge, const std::vector<double>& events) {
    Side out;
    if (events.empty() || events.size() != judge.size()) {
      out.taken = net(judge, t.overhead_ms);
      out.ms = median(out.taken);
      return out;
    }
    std::vector<double> sorted = judge;
    std::sort(sorted.begin(), sorted.end());
    out.floor_ms = floor_of(sorted[(sorted.size() - 1) / 4]);
    for (double ev : events) out.taken.push_back(std::max(ev, out.floor_ms));
    const double by_events = median(events);
    out.floored = out.floor_ms > by_events;
    out.ms = std::max(by_events, out.floor_ms);
    return out;
  };
  const Side student = side(e.student_ms, e.student_event_ms);
  t.student_ms = student.ms;
  t.student_floor_ms = student.floor_ms;
  t.student_floor_used = student.floored;
  t.reference_ms = side(e.reference_ms, e.reference_event_ms).ms;
  t.naive_ms = side(e.naive_ms, e.naive_event_ms).ms;
  t.cublas_ms = e.cublas_ms;
  if (!student.taken.empty() && t.student_ms > 0) {
    auto [lo, hi] = std::minmax_element(student.taken.begin(), student.taken.end());
    t.student_spread = (*hi - *lo) / t.student_ms;
  }
  const double flop = 2.0 * e.m * static_cast<double>(e.n) * e.k;
  auto gflops = [flop](double ms) { return ms > 0 ? flop / (ms * 1e6) : 0.0; };
  t.student_gflops = gflops(t.student_ms);
  t.reference_gflops = gflops(t.reference_ms);
  t.cublas_gflops = gflops(t.cublas_ms);
  t.speedup = t.student_ms > 0 && t.reference_ms > 0 ? t.reference_ms / t.student_ms : 0;

  const Implausibility why = implausibility(e, t);
  t.timed_output_wrong = why.outputs_wrong;
  t.implausible = why.any();
  return t;
}

Implausibility implausibility(const TimingEvidence& e, const Timing& t) {
  Implausibility why;
  why.outputs_wrong = e.wrong_outputs > 0;
  if (e.student_ms.empty() || e.overhead_ms.empty() || e.reference_ms.empty())
    why.no_valid_timings = true;
  else
    why.no_longer_than_empty = median(net(e.student_ms, t.overhead_ms)) <= 0;
  why.faster_than_cublas = t.cublas_ms > 0 && t.student_ms > 0 && t.student_ms < kFasterThanCublas * t.cublas_ms;
  return why;
}

double performance_points(const Performance& p, const Timing& t) {
  if (t.implausible || p.points <= 0) return 0;
  if (p.full_at <= p.zero_at) return t.speedup >= p.full_at ? p.points : 0;
  const double f = std::clamp((t.speedup - p.zero_at) / (p.full_at - p.zero_at), 0.0, 1.0);
  return p.points * f;
}

}  // namespace sg
