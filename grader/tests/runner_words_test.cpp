// A runner failure's sentences, made in words/case_report from the facts a
// CaseOutcome carries (issue 32, item 3): the session, the disk quotas and
// the measurement pass facts; each sentence is the one the session wrote
// into CaseOutcome::cause before, word for word.
#include <gtest/gtest.h>

#include <string>

#include "measure/timed_samples.h"
#include "services/runner_session.h"
#include "words/build_report.h"
#include "words/case_report.h"

namespace sg {
namespace {

CaseOutcome failed(CaseOutcome::Kind kind, CaseOutcome::Failure failure, const std::string& message = "") {
  CaseOutcome o;
  o.kind = kind;
  o.failure = failure;
  o.message = message;
  return o;
}

QuotaOverrun scratch_quota() { return QuotaOverrun{"scratch folder", DiskQuota{64LL << 20, 1024}}; }

TEST(RunnerWords, EachFailureSaysWhatHappened) {
  using K = CaseOutcome::Kind;
  using F = CaseOutcome::Failure;
  EXPECT_EQ(runner_failure(CaseOutcome{}), "");
  EXPECT_EQ(runner_failure(failed(K::StartFailed, F::NotStarted, "fork: Resource temporarily unavailable")),
            "could not start the runner: fork: Resource temporarily unavailable");
  CaseOutcome timed_out = failed(K::TimedOut, F::TimedOut);
  timed_out.after_s = 9.6;
  EXPECT_EQ(runner_failure(timed_out), "timed out after 10 s");
  timed_out.after_s = 2.4;
  EXPECT_EQ(runner_failure(timed_out), "timed out after 2 s");
  CaseOutcome slow = failed(K::TimedOut, F::TimedOutExtended);
  slow.after_s = 80;
  slow.limit_s = 20;
  slow.extension_factor = 4;
  slow.extension_budget_s = 600;
  EXPECT_EQ(runner_failure(slow),
            "timed out after 80 s while its blocks kept completing (its limit of 20 s was extended as long as they "
            "did, up to 4 times that and 600 s in all per grading)");
  EXPECT_EQ(runner_failure(failed(K::Crashed, F::DiedBeforeReading)), "the runner died before reading the case");
  EXPECT_EQ(runner_failure(failed(K::Crashed, F::DiedWhileRunning)), "the runner died while running the case");
  EXPECT_EQ(runner_failure(failed(K::ProtocolError, F::MalformedReply, "bad magic")),
            "the runner sent a malformed reply (bad magic)");
  EXPECT_EQ(runner_failure(failed(K::ProtocolError, F::ReplyToOther)), "the runner sent a reply to another request");
  EXPECT_EQ(runner_failure(failed(K::ProtocolError, F::Rejected, "unknown request")),
            "the runner rejected the request: unknown request");
  EXPECT_EQ(runner_failure(failed(K::OutOfMemory, F::OutOfMemory, "cudaMalloc failed")),
            "out of GPU memory: cudaMalloc failed");
  EXPECT_EQ(runner_failure(failed(K::LaunchError, F::LaunchFailed, "invalid configuration argument")),
            "invalid configuration argument");
  EXPECT_EQ(runner_failure(failed(K::CudaError, F::CudaError, "an illegal memory access was encountered")),
            "CUDA error: an illegal memory access was encountered");
}

// The runner's own message is data: words that look like a sentence of the
// grader's are quoted, never read.
TEST(RunnerWords, TheRunnersMessageIsQuotedAsItIs) {
  const std::string forged = "timed out after 1 s (runner exited with code 0)";
  EXPECT_EQ(runner_failure(failed(CaseOutcome::Kind::CudaError, CaseOutcome::Failure::CudaError, forged)),
            "CUDA error: " + forged);
}

TEST(RunnerWords, HowTheRunnerEndedFollowsWhatHappened) {
  CaseOutcome o = failed(CaseOutcome::Kind::Crashed, CaseOutcome::Failure::DiedWhileRunning);
  o.runner_end = CaseOutcome::RunnerEnd::Ended;
  o.runner_exit.exited = true;
  o.runner_exit.code = 3;
  EXPECT_EQ(runner_failure(o), "the runner died while running the case (runner " + o.runner_exit.describe() + ")");
  EXPECT_EQ(failure_cause(o), runner_failure(o)) << "no launch seen: nothing more";
  o.runner_end = CaseOutcome::RunnerEnd::Killed;
  EXPECT_EQ(runner_failure(o),
            "the runner died while running the case (the runner did not end by itself and was killed)");
  o.facts.block_x = 64;
  o.facts.block_y = 1;
  o.facts.grid_x = 1024;
  o.facts.grid_y = 1;
  EXPECT_EQ(failure_cause(o), runner_failure(o) + " (blocks of 64x1 threads, grid 1024x1)");
}

TEST(RunnerWords, AQuotaSaysWhichFolderAndHowMuch) {
  EXPECT_EQ(quota_text(scratch_quota()), "its scratch folder's quota (64 MiB or 1024 files)");
  EXPECT_EQ(quota_verdict(scratch_quota()),
            "the submission wrote more than its scratch folder's quota (64 MiB or 1024 files): a submission may not "
            "write files");
  CaseOutcome over = failed(CaseOutcome::Kind::DiskQuota, CaseOutcome::Failure::OverQuota);
  over.quota = scratch_quota();
  EXPECT_EQ(runner_failure(over), quota_verdict(scratch_quota()));
  CaseOutcome start = failed(CaseOutcome::Kind::DiskQuota, CaseOutcome::Failure::OutputOverQuota);
  start.quota = QuotaOverrun{"work folder", DiskQuota{512LL << 20, 1024}};
  EXPECT_EQ(runner_failure(start),
            "the runner could not be started: the submission's output and files took more than its work folder's "
            "quota (512 MiB or 1024 files)");
  EXPECT_EQ(build_over_quota_why(*start.quota),
            "the build wrote more than its work folder's quota (512 MiB or 1024 files): make the kernel's source and "
            "its tables smaller");
}

TEST(RunnerWords, ATimedCaseNotMeasuredSaysWhichRequestFailed) {
  TimedFailure f;
  f.request = failed(CaseOutcome::Kind::Crashed, CaseOutcome::Failure::DiedWhileRunning);
  f.step = TimedStep::StudentSamples;
  EXPECT_EQ(not_measured_verdict(f), "not measured: the timed launches failed: the runner died while running the case");
  f.step = TimedStep::Probe;
  EXPECT_EQ(not_measured_verdict(f),
            "not measured: the timed launches failed: the grader's baseline runner failed between the samples: the "
            "runner died while running the case");
  f.step = TimedStep::Yardstick;
  EXPECT_EQ(not_measured_verdict(f),
            "not measured: the grader's baseline runner failed: the runner died while running the case");
  f.step = TimedStep::Baselines;
  EXPECT_EQ(not_measured_verdict(f),
            "not measured: the grader's baseline runner failed: the runner died while running the case");
  f.step = TimedStep::ReferenceOutput;
  f.reference_wrong.kind = OutputFault::Kind::ShortRead;
  f.reference_wrong.file = "x";
  EXPECT_EQ(not_measured_verdict(f),
            "not measured: the grader's baseline runner failed: the reference's own timed output failed the check: "
            "its output file x could not be read whole");
  TestResult t;
  t.max_score = 5;
  t.score = 5;
  mark_not_run(t, std::optional<TimedFailure>(f));
  EXPECT_EQ(t.status, Status::Failed);
  EXPECT_EQ(t.score, 0);
  EXPECT_EQ(t.verdict, not_measured_verdict(f));
}

}  // namespace
}  // namespace sg
