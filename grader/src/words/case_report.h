// Building the TestResult of one case from what the runner and the
// comparison produced: verdict, feedback text, diagnoses, points.
#pragma once
#include <string>

#include <optional>

#include "compare/hypotheses.h"
#include "measure/timed_samples.h"
#include "services/runner_session.h"
#include "model/result.h"
#include "model/suite.h"

namespace sg {

// A test that did not run, with the reason (keeps its max_score).
void mark_not_run(TestResult& t, const std::string& why, Status status = Status::Failed);
// A test a stopped grading kept from running: failed with `verdict` (the
// stop's words, "not run: <why>"), and `why` kept as the fact the views lead with.
void mark_stopped(TestResult& t, const std::string& verdict, const std::string& why);

// The runner failed on this case (crash, timeout, CUDA error...).
void record_runner_failure(TestResult& t, const CaseOutcome& outcome);

// What the runner session saw fail, from its facts (CaseOutcome::Failure):
// "timed out after 10 s", "CUDA error: <the runner's message>", "crashed"'s
// cause with how the runner ended ("... (runner killed by signal 11 ...)").
std::string runner_failure(const CaseOutcome& outcome);

// A runner failure's cause as a report says it: runner_failure, then the
// launch's shape where the runner saw the launch but its message does not
// name it (the GPU's: " (blocks of 256x1 threads, grid 64x1)").
std::string failure_cause(const CaseOutcome& outcome);

// A folder's quota as sentences name it: "its scratch folder's quota (64 MiB
// or 1024 files)"; and what a student reads when the submission filled it.
std::string quota_text(const QuotaOverrun& over);
std::string quota_verdict(const QuotaOverrun& over);

// Why a timed case was not measured (measure/timed_samples.h): the request
// that failed, or the reference's own output that failed its check.
std::string not_measured_verdict(const TimedFailure& failure);
// A timed case that was not measured: not_measured_verdict, no points.
void mark_not_run(TestResult& t, const std::optional<TimedFailure>& failure);

// Lines of a checked case's detail: it timed out beside other gradings and
// ran again with the device to itself; its limit was cut to `limit_s` from
// `usual_s` because an earlier case hung; it was checked on a partition of
// `sms` SMs; it took `took_s`, past its limit `limit_s`, which was extended
// while its blocks kept completing (the CPU backend).
// replayed: the earlier checked launches made again first (RunnerSession::rerun);
// failed_in_replay: the last of them failed, before the case was made.
std::string ran_alone_again_note(std::size_t replayed = 0, bool failed_in_replay = false);
std::string shortened_limit_note(double limit_s, double usual_s);
std::string partition_note(unsigned sms);
std::string extended_limit_note(double took_s, double limit_s);

// Fills status, score, verdict and detail from a comparison. `data` (the
// case's inputs and output) lets the diagnoses test hypotheses against it.
// True where a bug's prediction reproduced the output (compare/diagnosis.h).
bool record_comparison(TestResult& t, const Case& c, Comparison cmp, bool differs_between_runs,
                       const CaseData* data = nullptr);

// The runner reported an out-of-bounds access the kernel went on from (the
// CPU backend's red zones): the case keeps the verdict of its values, as on
// a GPU, and the feedback names the access.
void note_out_of_bounds(TestResult& t, const std::string& access);

// The runner reported stores that raced with another block's in the same
// launch (the CPU backend's race check between blocks): the case keeps the
// verdict of its values, the feedback names the first, and the sanitizer
// check takes points for it.
void note_block_race(TestResult& t, const std::string& first, unsigned long long stores);

// Text for people: counts, first wrong elements, the tile map.
std::string describe_comparison(const Comparison& cmp, int m, int n);

}  // namespace sg
