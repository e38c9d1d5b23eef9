#include "words/timing_report.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace sg {
namespace {

double round2(double x) { return std::round(x * 100.0) / 100.0; }

}  // namespace

std::string implausible_reason(const TimingEvidence& e, const Timing& t) {
  const Implausibility found = implausibility(e, t);
  std::vector<std::string> why;
  if (found.outputs_wrong) {
    const std::string counted = std::to_string(e.wrong_outputs) + " of " + std::to_string(e.student_ms.size()) +
                                " samples; " + output_fault_text(e.first_wrong_output) + ")";
    // An output file the grader could not read was tampered with after the
    // runner wrote it: no claim about what the kernel computed.
    why.push_back(e.unreadable_outputs > 0
                      ? "the timed launches' outputs could not be checked: the files the runner wrote them to were "
                        "replaced or cut (" + counted
                      : "the timed launch's output was wrong: the kernel computed something else when timed (" + counted);
  }
  if (found.no_valid_timings) why.push_back("no valid timings");
  if (found.no_longer_than_empty)
    why.push_back(fmt::format("the student's requests took {:.3f} ms, no longer than one that launches nothing ({:.3f} ms)",
                              median(e.student_ms), t.overhead_ms));
  if (found.faster_than_cublas)
    why.push_back(fmt::format("faster than cuBLAS allows ({:.3f} ms vs cuBLAS {:.3f} ms)", t.student_ms, t.cublas_ms));
  std::string reason;
  for (std::size_t i = 0; i < why.size(); ++i) reason += (i ? "; " : "") + why[i];
  return reason;
}

std::string freivalds_text(const FreivaldsResult& r) {
  if (r.ok) return "Freivalds' check passed";
  return fmt::format("{} of the rows failed Freivalds' check (first: row {}, |Cx - ABx| = {:.3g}, bound {:.3g})",
                     static_cast<long long>(r.rows_failed), r.first_row, r.first_diff, r.first_bound);
}

std::string output_fault_text(const OutputFault& f) {
  using K = OutputFault::Kind;
  const std::string file = "its output file " + f.file;
  switch (f.kind) {
    case K::None: return "";
    case K::NeverWritten: return "its output was never written";
    case K::CannotOpen: return file + " could not be opened (" + std::strerror(f.error) + ")";
    case K::NotRegularFile: return file + " is not a regular file";
    case K::WrongSize: return fmt::format("{} holds {} bytes, not {}", file, f.bytes, f.expected_bytes);
    case K::ShortRead: return file + " could not be read whole";
    case K::NotCommitted: return "the output written afterwards was not the one the timed request committed to";
    case K::FreivaldsFailed: return freivalds_text(f.freivalds);
  }
  return "";
}

Timing record_timing(TestResult& p, const TimedCase& timed) {
  const Case& c = *timed.c;
  Timing tm = evaluate_timing(timed.evidence);
  tm.implausible_reason = implausible_reason(timed.evidence, tm);
  p.score = round2(performance_points(c.performance, tm));
  p.verdict = fmt::format(
      "speedup {:.3f} vs the reference tiled kernel ({:.3f} ms vs {:.3f} ms; full points at {:.2f}, none at {:.2f}); "
      "{:.0f} GFLOP/s, {:.1f}% of cuBLAS",
      tm.speedup, tm.student_ms, tm.reference_ms, c.performance.full_at, c.performance.zero_at, tm.student_gflops,
      tm.cublas_gflops > 0 ? 100.0 * tm.student_gflops / tm.cublas_gflops : 0.0);
  p.detail = fmt::format(
      "median of {} samples; student {:.3f} ms (spread {:.1f}%), reference {:.3f} ms, naive {:.3f} ms, cuBLAS {:.3f} ms\n"
      "timed by CUDA events, never below the grader's clock less the request's overhead and 3% "
      "({:.3f} ms, from the fastest quarter of requests; a request that launches nothing: {:.3f} ms); every timed output "
      "checked (digest and Freivalds' test)\n",
      tm.samples, tm.student_ms, 100 * tm.student_spread, tm.reference_ms, tm.naive_ms, tm.cublas_ms,
      tm.student_floor_ms, tm.overhead_ms);
  const TimingEvidence& e = timed.evidence;
  if (!e.yardstick_event_ms.empty())
    p.detail += fmt::format(
        "the reference's pace (events): {:.3f} ms before the student's samples, {:.3f} ms between them, "
        "{:.3f} ms with the baselines\n",
        median(e.yardstick_event_ms), median(e.probe_event_ms), median(e.reference_event_ms));
  if (timed.baselines_recorded && timed.record_timed_early)
    p.detail += fmt::format(
        "the baselines (reference, naive, an empty request, cuBLAS) were timed while the submission compiled, "
        "{:.0f} s earlier, the GPU idle but for them: this grading's reference launches ran at their pace (within "
        "{:.2f}%)\n",
        timed.record_age_s, 100 * timed.record_gap);
  else if (timed.baselines_recorded)
    p.detail += fmt::format(
        "the baselines (reference, naive, an empty request, cuBLAS) were those another grading of this batch "
        "measured on this GPU {:.0f} s earlier: this grading's reference launches ran at their pace (within "
        "{:.2f}%)\n",
        timed.record_age_s, 100 * timed.record_gap);
  if (tm.student_floor_used)
    p.detail += "the runner's own event times were below the grader's clock: the grader's figure was used\n";
  if (timed.student_takes > 1 || timed.baseline_takes > 1)
    p.detail += "samples taken again because most of them were delayed (the grader's clock put their quartiles "
                "more than 3% apart) or the GPU ran them slower as a whole (the reference's launches with them more "
                "than 3% slower than its fastest launch): the student's " +
                std::to_string(timed.student_takes) + " time(s), the baselines' " +
                std::to_string(timed.baseline_takes) + " time(s); the least disturbed kept\n";
  if (std::max(timed.student_disturbance, timed.baseline_disturbance) > kDisturbedSpread)
    p.detail += fmt::format(
        "every take was disturbed (the kept ones by {:.1f}%, the student's, and {:.1f}%, the baselines'): "
        "this speedup is less certain; grading the submission alone gives a quiet GPU\n",
        100 * timed.student_disturbance, 100 * timed.baseline_disturbance);
  if (tm.timed_output_wrong) {
    p.verdict = "no performance points: " + tm.implausible_reason;
    p.status = Status::Failed;
  } else if (tm.implausible) {
    p.verdict = "implausible timing, no performance points: " + tm.implausible_reason;
    p.status = Status::Failed;
  } else {
    p.status = p.score >= p.max_score - 1e-9 ? Status::Passed : (p.score > 0 ? Status::Partial : Status::Failed);
  }
  p.timing = tm;
  return tm;
}

}  // namespace sg
