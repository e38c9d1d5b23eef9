// The timed samples of one performance case, as the judge takes them: its
// steady clock around each synchronous TimeSeeded request (proto/protocol.h),
// on inputs made from a fresh seed per sample. The student's samples come
// from the student's runner, each output checked (digest, then Freivalds'
// test); the reference's, the naive kernel's and the overhead's from the
// grader's baseline runner. pipeline/timing.cpp turns them into a Timing.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/suite.h"
#include "pipeline/runner_session.h"
#include "pipeline/timing.h"

namespace sg {

// What is wrong with a timed sample's output ("" when nothing): it must be
// the output the runner committed to (the digest in `committed`) and pass
// Freivalds' test with x drawn from x_seed. Uses every core: call it
// between timed requests, never beside one.
std::string check_timed_output(int m, int k, int n, std::uint64_t seed, const std::vector<float>& c,
                               const proto::ReplyHeader& committed, std::uint64_t x_seed, double factor);

// A timed student sample whose output is still to be fetched and checked.
struct PendingOutput {
  int slot = 0;
  std::uint64_t seed = 0;
  proto::ReplyHeader committed;  // holds the digest the timed reply committed to
};

// A timed sample's output, fetched from the runner, still to be checked.
struct FetchedOutput {
  std::uint64_t seed = 0;
  proto::ReplyHeader committed;
  std::vector<float> c;
};

// The student's warm-ups (one into each output slot, allocating it) and
// samples, back to back (each into its own slot, so the GPU never idles),
// into e.student_ms (the judge's clock) and e.student_event_ms (the runner's
// claim). Outputs are fetched into `fetched` when every slot is used and at
// the end (the runner keeps one shape's outputs). "" when every request was
// answered, else why not.
std::string time_student_samples(RunnerSession& student, const Case& c, double limit_s, TimingEvidence& e,
                                 std::vector<FetchedOutput>& fetched);

// Fetches the pending outputs from the runner (untimed), appending to `fetched`.
std::string fetch_student_outputs(RunnerSession& student, const Case& c, double limit_s,
                                  const std::vector<PendingOutput>& pending, std::vector<FetchedOutput>& fetched);

// Checks every fetched output (digest, then Freivalds' test with x drawn
// now) into e.wrong_outputs and e.first_wrong_output. Uses every core:
// called after the timed requests, once the student's runner has ended.
void check_student_outputs(const Case& c, const std::vector<FetchedOutput>& fetched, TimingEvidence& e);

// The overhead, reference and naive samples into e (the judge's clock and the
// baseline runner's events), interleaved with the order rotating, and the
// reference's last output checked. "" when every request was answered and
// that output passed, else why not.
std::string time_baseline_samples(RunnerSession& baseline, const Case& c, double limit_s, TimingEvidence& e);

}  // namespace sg
