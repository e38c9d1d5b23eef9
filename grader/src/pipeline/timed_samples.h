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

// The student's warm-ups and samples, back to back (each into its own output
// slot, so the GPU never idles between them), into e.student_ms; what is to be
// checked into `pending`. "" when every request was answered, else why not.
std::string time_student_samples(RunnerSession& student, const Case& c, double limit_s, TimingEvidence& e,
                                 std::vector<PendingOutput>& pending);

// Fetches and checks every pending output (digest, then Freivalds' test) into
// e.wrong_outputs and e.first_wrong_output. Needs no exclusive GPU: called
// after the timed requests, before the student's runner ends.
std::string check_student_samples(RunnerSession& student, const Case& c, double limit_s,
                                  const std::vector<PendingOutput>& pending, TimingEvidence& e);

// The overhead, reference and naive samples into e, interleaved with the
// order rotating. "" when every request was answered, else why not.
std::string time_baseline_samples(RunnerSession& baseline, const Case& c, double limit_s, TimingEvidence& e);

}  // namespace sg
