#include "pipeline/timing.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <string>

namespace sg {
namespace {

// A 16x16 FP32 tiled kernel cannot beat cuBLAS; allow some noise before calling it impossible.
constexpr double kFasterThanCublas = 0.8;
// The device-wide wall clock must cover the event-timed work: if events saw
// far less than the host waited for, work ran outside the timed region.
constexpr double kWallCoverage = 0.5;
constexpr double kWallSlackMs = 0.05;

std::string format(const char* fmt, double a, double b) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, a, b);
  return buf;
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
  t.student_ms = median(e.student_ms);
  t.reference_ms = median(e.reference_ms);
  t.naive_ms = median(e.naive_ms);
  t.cublas_ms = e.cublas_ms;
  if (!e.student_ms.empty() && t.student_ms > 0) {
    auto [lo, hi] = std::minmax_element(e.student_ms.begin(), e.student_ms.end());
    t.student_spread = (*hi - *lo) / t.student_ms;
  }
  const double flop = 2.0 * e.m * static_cast<double>(e.n) * e.k;
  auto gflops = [flop](double ms) { return ms > 0 ? flop / (ms * 1e6) : 0.0; };
  t.student_gflops = gflops(t.student_ms);
  t.reference_gflops = gflops(t.reference_ms);
  t.cublas_gflops = gflops(t.cublas_ms);
  t.speedup = t.student_ms > 0 ? t.reference_ms / t.student_ms : 0;

  std::vector<std::string> why;
  if (t.samples == 0 || t.student_ms <= 0) why.push_back("no valid student timings");
  const std::int64_t bad = std::accumulate(e.timed_mismatch.begin(), e.timed_mismatch.end(), std::int64_t{0});
  if (bad > 0)
    why.push_back(std::to_string(bad) +
                  " output elements of timed launches differed from the checked launch (work skipped, cached or racy)");
  if (t.cublas_ms > 0 && t.student_ms > 0 && t.student_ms < kFasterThanCublas * t.cublas_ms)
    why.push_back(format("faster than cuBLAS allows (%.3f ms vs cuBLAS %.3f ms)", t.student_ms, t.cublas_ms));
  const double wall = median(e.wall_ms);
  if (!e.wall_ms.empty() && t.student_ms < kWallCoverage * wall - kWallSlackMs)
    why.push_back(format("the host clock saw %.3f ms of device work but the events only %.3f ms "
                         "(work left running outside the timed region)", wall, t.student_ms));
  const double reported = std::accumulate(e.student_ms.begin(), e.student_ms.end(), 0.0) +
                          std::accumulate(e.reference_ms.begin(), e.reference_ms.end(), 0.0) +
                          std::accumulate(e.naive_ms.begin(), e.naive_ms.end(), 0.0);
  if (e.judge_wall_ms > 0 && reported > e.judge_wall_ms * 1.05 + 1.0)
    why.push_back(format("timings add up to %.1f ms but the judge's clock saw only %.1f ms", reported,
                         e.judge_wall_ms));
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
