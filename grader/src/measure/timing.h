// Turning the judge's own timings into a speedup, and deciding whether they
// can be believed. Pure functions: unit-tested without a GPU.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "compare/freivalds.h"
#include "model/result.h"

namespace sg {

// What was wrong with a timed sample's output, as facts (words/timing_report
// says it): never written; its file (named by the grader) could not be
// opened (errno), was no regular file, held the wrong number of bytes or could
// not be read whole; it was not the output the request committed to; it
// failed Freivalds' check.
struct OutputFault {
  enum class Kind { None, NeverWritten, CannotOpen, NotRegularFile, WrongSize, ShortRead, NotCommitted, FreivaldsFailed };
  Kind kind = Kind::None;
  std::string file;
  int error = 0;
  std::int64_t bytes = 0, expected_bytes = 0;
  FreivaldsResult freivalds;
  // The file could not be read: nothing is known of what the kernel computed.
  bool unreadable() const { return kind >= Kind::CannotOpen && kind <= Kind::ShortRead; }
  bool wrong() const { return kind != Kind::None; }
};

// Two clocks per sample. The judge's steady clock around each synchronous
// TimeSeeded request (proto/protocol.h) is trusted but carries the request's
// jitter; the runner's CUDA events around the launch are steady but, in the
// student's runner, only a claim. The student's samples come from the
// student's runner, the others from the baseline runner after it had exited.
struct TimingEvidence {
  int m = 0, k = 0, n = 0;
  std::vector<double> student_ms, reference_ms, naive_ms;  // the judge's clock, raw, per sample
  // The runners' event times of the same samples (empty: none reported).
  std::vector<double> student_event_ms, reference_event_ms, naive_event_ms;
  std::vector<double> overhead_ms;  // requests that launch nothing (baseline runner)
  // The GPU's pace around the student's samples: reference launches in the
  // baseline runner just before them (the yardstick) and between them (the
  // probes), their event times. Neither enters the speedup; they only show a
  // take the GPU ran slower as a whole (take_disturbance).
  std::vector<double> yardstick_event_ms, probe_event_ms;
  // Per student sample: it came right after a probe. Such a request pays for
  // the GPU's switch back to the student's process (outside its events), so
  // it is left out of the take's spread.
  std::vector<bool> student_after_probe;
  // Timed student samples whose output failed its digest or Freivalds' check,
  // and what the first one got wrong.
  std::int64_t wrong_outputs = 0;
  std::int64_t unreadable_outputs = 0;  // of those, outputs whose file could not be read
  OutputFault first_wrong_output;
  double cublas_ms = 0;  // measured by the judge itself
};

double median(std::vector<double> v);

// How far apart the judge's clock put the first and third quartiles of one
// side's requests, as a share of the first: small for steady samples, large
// when another process's burst of work ran beside most of them.
double request_spread(const std::vector<double>& judge_ms);
// Past this, a side's samples are taken again (measure/take_policy.h, at most
// kTimingTakes in all, the least disturbed kept): a burst that delayed most of
// them would otherwise decide the speedup (an honest reference has scored
// well below 1 against itself that way: RESULTS.md).
constexpr double kDisturbedSpread = 0.03;
constexpr int kTimingTakes = 5;
// The pause before a take, in seconds: none before the first two, then
// 0.25, 0.5 and 1 s. A disturbance can outlast two takes back to back
// (RESULTS.md); a pause lets another process's start-up end before the next
// take. Only a disturbed take costs one.
double retake_pause_s(int take);

// How much slower the reference ran in a window than its fastest pace seen:
// the median of `window` against the fastest launch of the yardstick and
// the probes (`window` itself left out), as a share; 0 when nothing can be
// compared or the window was faster. The fastest, not a median: the
// reference's launches agree to 0.2% when nothing disturbs them, a
// disturbance only slows them, and a yardstick whose launches were mostly
// slowed (seen on the H100: 3 of 5, 9-30%) must not make a slowed window
// look at pace. A burst of another
// process's work that covers a whole take slows every launch in it alike,
// which the spread above cannot see (seen on the H100 in a batch: a
// reference got 0.942 against itself, another 1.097, every take steady).
double pace_slowdown(const TimingEvidence& e, const std::vector<double>& window_event_ms);

// How disturbed a take was, to be compared with kDisturbedSpread (over it:
// taken again) and across takes (the least disturbed kept): the larger of
// the spread of its requests and the slowdown of its reference launches.
// The student's requests that came right after a probe are left out of its
// spread. The student's take is judged by the probes between its samples, the
// baselines' take by its own reference launches. Both are reference
// launches in the grader's baseline runner, so a submission can only make
// its own take look disturbed (a retake), never a disturbed one look steady
// without also slowing the yardstick, which it cannot speed up again.
double student_take_disturbance(const TimingEvidence& e);
// The spread of the student's requests that did not follow a probe.
double student_request_spread(const TimingEvidence& e);
double baseline_take_disturbance(const TimingEvidence& e);

// Why a timing cannot be believed, as the rules found it (evaluate_timing
// flags it; words/timing_report.cpp says why, from these, the evidence and
// the Timing): timed outputs that failed their check (TimingEvidence::
// wrong_outputs), no samples to time, the student's requests no longer than
// one that launches nothing, a time faster than cuBLAS allows.
struct Implausibility {
  bool outputs_wrong = false;
  bool no_valid_timings = false;
  bool no_longer_than_empty = false;
  bool faster_than_cublas = false;
  bool any() const { return outputs_wrong || no_valid_timings || no_longer_than_empty || faster_than_cublas; }
};
// `t` as evaluate_timing derived it from `e` (its overhead, student and cuBLAS times).
Implausibility implausibility(const TimingEvidence& e, const Timing& t);

// Each side's time is the median of its event times, but never less than
// the judge's floor: its fastest quarter of requests (the first quartile),
// less what a request costs beyond its launch in the baseline runner (its
// reference requests' clock less their events), less a slack of 3% (at
// least 0.08 ms). A runner that under-reports gains at most that slack and
// its own spread between that quartile and its median; an honest one stays
// on its steady events, even when most of its requests were delayed.
// Without event times, the median request less the median overhead. Also
// the spread, speedup, GFLOP/s and whether it is implausible (the reason is
// words/timing_report.cpp's to say).
Timing evaluate_timing(const TimingEvidence& e);

// Linear between zero_at and full_at; 0 for implausible timings.
double performance_points(const Performance& p, const Timing& t);

}  // namespace sg
