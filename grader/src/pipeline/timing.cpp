#include "pipeline/timing.h"

#include <algorithm>
#include <cstdio>
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

std::string format(const char* fmt, double a, double b) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, a, b);
  return buf;
}

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

Timing evaluate_timing(const TimingEvidence& e) {
  Timing t;
  t.samples = static_cast<int>(e.student_ms.size());
  t.raw = {e.student_ms, e.student_event_ms, e.reference_ms, e.reference_event_ms, e.overhead_ms};
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
  // One side's samples (see timing.h), sample by sample, so that a few
  // requests the host delayed (a slow wake-up, seen on the H100) change
  // nothing: the median takes the rest.
  struct Side {
    std::vector<double> taken;  // per sample
    bool floored = false;       // the judge's floor beat the events in most samples
  };
  auto side = [&](const std::vector<double>& judge, const std::vector<double>& events) {
    Side out;
    if (events.empty() || events.size() != judge.size()) {
      out.taken = net(judge, t.overhead_ms);
      return out;
    }
    std::size_t floored = 0;
    for (std::size_t i = 0; i < judge.size(); ++i) {
      const double f = floor_of(judge[i]);
      floored += f > events[i];
      out.taken.push_back(std::max(events[i], f));
    }
    out.floored = 2 * floored > judge.size();
    return out;
  };
  const Side student = side(e.student_ms, e.student_event_ms);
  t.student_ms = median(student.taken);
  t.student_floor_ms = floor_of(median(e.student_ms));
  t.student_floor_used = student.floored;
  t.reference_ms = median(side(e.reference_ms, e.reference_event_ms).taken);
  t.naive_ms = median(side(e.naive_ms, e.naive_event_ms).taken);
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

  std::vector<std::string> why;
  if (e.wrong_outputs > 0) {
    t.timed_output_wrong = true;
    why.push_back("the timed launch's output was wrong: the kernel computed something else when timed (" +
                  std::to_string(e.wrong_outputs) + " of " + std::to_string(e.student_ms.size()) + " samples; " +
                  e.first_wrong_output + ")");
  }
  if (t.samples == 0 || e.overhead_ms.empty() || e.reference_ms.empty())
    why.push_back("no valid timings");
  else if (median(net(e.student_ms, t.overhead_ms)) <= 0)
    why.push_back(format("the student's requests took %.3f ms, no longer than one that launches nothing (%.3f ms)",
                         median(e.student_ms), t.overhead_ms));
  if (t.cublas_ms > 0 && t.student_ms > 0 && t.student_ms < kFasterThanCublas * t.cublas_ms)
    why.push_back(format("faster than cuBLAS allows (%.3f ms vs cuBLAS %.3f ms)", t.student_ms, t.cublas_ms));
  if (!why.empty()) {
    t.implausible = true;
    for (std::size_t i = 0; i < why.size(); ++i) t.implausible_reason += (i ? "; " : "") + why[i];
  }
  return t;
}

double performance_points(const Performance& p, const Timing& t) {
  if (t.implausible || p.points <= 0) return 0;
  if (p.full_at <= p.zero_at) return t.speedup >= p.full_at ? p.points : 0;
  const double f = std::clamp((t.speedup - p.zero_at) / (p.full_at - p.zero_at), 0.0, 1.0);
  return p.points * f;
}

}  // namespace sg
