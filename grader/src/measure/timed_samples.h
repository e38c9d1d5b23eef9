// The timed samples of one performance case, as the judge takes them: its
// steady clock around each synchronous TimeSeeded request (proto/protocol.h),
// on inputs made from a fresh seed per sample. The student's samples come
// from the student's runner, each output checked (digest, then Freivalds'
// test); the reference's, the naive kernel's and the overhead's from the
// grader's baseline runner. measure/timing.cpp turns them into a Timing.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/suite.h"
#include "services/runner_session.h"
#include "measure/timing.h"

namespace sg {

// Where a timing failed, as facts (words/case_report.h says it): a request of
// the reference's yardstick, of the student's samples (their writes of
// outputs included), of a probe between them, or of the baselines' samples;
// or the reference's own last output, which failed its check.
enum class TimedStep { Yardstick, StudentSamples, Probe, Baselines, ReferenceOutput };
struct TimedFailure {
  TimedStep step = TimedStep::StudentSamples;
  CaseOutcome request;          // the request that failed (all but ReferenceOutput)
  OutputFault reference_wrong;  // ReferenceOutput: what its check found (check_timed_output)
};

// What is wrong with a timed sample's output (a fault of kind None when nothing): it must be
// the output the runner committed to (the digest in `committed`) and pass
// Freivalds' test with x drawn from x_seed. Uses every core: call it
// between timed requests, never beside one.
OutputFault check_timed_output(int m, int k, int n, std::uint64_t seed, const std::vector<float>& c,
                               const proto::ReplyHeader& committed, std::uint64_t x_seed, double factor);
// The same on `threads` threads.
OutputFault check_timed_output(int m, int k, int n, std::uint64_t seed, const std::vector<float>& c,
                               const proto::ReplyHeader& committed, std::uint64_t x_seed, double factor,
                               unsigned threads);

// A timed student sample and its output: the runner writes the output to a
// file in its scratch folder when asked (proto SeededOutput), and the judge
// reads it from there, during or after the exclusive hold (the timed reply's
// digest vouches for it either way).
struct TimedOutput {
  int slot = 0;
  std::uint64_t seed = 0;
  proto::ReplyHeader committed;  // holds the digest the timed reply committed to
  bool written = false;          // the runner wrote its file
  std::vector<float> c;          // read from the file (read_output_files)
  OutputFault unreadable;        // why the file could not be read, when it could not
};

// The student's warm-ups (the suite's number launch basicSgemm; every other
// slot the samples will use is allocated by a request that launches nothing)
// and samples, back to back (each into its own slot, so the GPU never idles),
// into e.student_ms (the judge's clock) and e.student_event_ms (the runner's
// claim), and one TimedOutput each into `outputs`. Every output is written
// to its own file by the end (one per sample; a slot used again, with more
// samples than slots, is written first). Nothing when every request was
// answered, else the failure.
// With `probes` (the grader's baseline runner), a reference launch follows
// every kProbeEvery-th sample there, into e.probe_event_ms: the GPU's pace
// during the take (timing.h, student_take_disturbance).
std::optional<TimedFailure> time_student_samples(RunnerSession& student, const Case& c, double limit_s,
                                                 TimingEvidence& e, std::vector<TimedOutput>& outputs,
                                                 RunnerSession* probes = nullptr);
constexpr int kProbeEvery = 3;

// The yardstick of the GPU's pace before the student's samples: warm-ups,
// then kYardstickSamples reference launches in the baseline runner, into
// e.yardstick_event_ms. Nothing when every request was answered, else the failure.
std::optional<TimedFailure> time_yardstick(RunnerSession& baseline, const Case& c, double limit_s, TimingEvidence& e);
constexpr int kYardstickSamples = 5;

// Asks the runner to write every output not yet written to its file: nothing,
// or the request that failed.
std::optional<CaseOutcome> write_output_files(RunnerSession& runner, const Case& c, double limit_s,
                                              std::vector<TimedOutput>& outputs);

// Reads every written output not yet read from its file in `dir` (the
// runner's scratch folder), removing the file; a file that is missing, not
// a regular file or of the wrong size leaves the output unreadable. Several
// files at once, on every core.
void read_output_files(const std::string& dir, const Case& c, std::vector<TimedOutput>& outputs);

// Removes the files of written outputs that will not be read (a take of
// the samples that was not kept).
void discard_output_files(const std::string& dir, const std::vector<TimedOutput>& outputs);

// Checks every output (digest, then Freivalds' test with x drawn now) into
// e.wrong_outputs and e.first_wrong_output (the first in `outputs`' order);
// an unreadable one is wrong. One output a core, on every core: called after
// the timed requests, once the student's runner has ended.
void check_student_outputs(const Case& c, const std::vector<TimedOutput>& outputs, TimingEvidence& e);

// The overhead, reference and naive samples into e (the judge's clock and the
// baseline runner's events), interleaved with the order rotating, and the
// reference's last output written to its file in the runner's scratch
// folder (into `reference`). Nothing when every request was answered, else
// the failure.
std::optional<TimedFailure> time_baseline_samples(RunnerSession& baseline, const Case& c, double limit_s,
                                                  TimingEvidence& e, TimedOutput& reference);

// The reference's output that time_baseline_samples had written, read from
// `dir` (the baseline runner's scratch folder, the file removed) and held to
// the student's test (check_timed_output): nothing when it passed or none
// was written, else the failure (TimedStep::ReferenceOutput). Every core, no
// GPU: after the hold.
std::optional<TimedFailure> check_reference_output(const std::string& dir, const Case& c, TimedOutput& reference);

}  // namespace sg
