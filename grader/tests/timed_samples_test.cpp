// The judge's side of timed samples against a stand-in runner on the host
// (progs/seeded_host_runner.cpp): every sample is timed by the judge's clock,
// every student output checked, and the cheats a runner could try with the
// output (replaying an earlier one, computing it only when asked) are caught.
// Also a checked case's limit, extended while the CPU layer's blocks keep
// completing and not otherwise.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "services/runner_session.h"
#include "measure/timed_samples.h"
#include "words/timing_report.h"
#include "words/case_report.h"
#include "proto/protocol.h"

namespace fs = std::filesystem;

namespace {

// A timing's failure as the report says it; "" for none.
std::string said(const std::optional<sg::TimedFailure>& failure) {
  return failure ? sg::not_measured_verdict(*failure) : "";
}

// Builds the stand-in runner once (when its source is newer); "" on failure, with the reason in `why`.
std::string stand_in_runner(std::string& why) {
  const fs::path root = SG_SOURCE_ROOT;
  const fs::path dir = fs::absolute(SG_BUILD_DIR) / "test_progs";
  fs::create_directories(dir);
  const fs::path binary = dir / "seeded_host_runner";
  const fs::path source = root / "grader/tests/progs/seeded_host_runner.cpp";
  if (fs::exists(binary) && fs::last_write_time(binary) >= fs::last_write_time(source) &&
      fs::last_write_time(binary) >= fs::last_write_time(root / "grader/src/proto/protocol.cpp") &&
      fs::last_write_time(binary) >= fs::last_write_time(root / "grader/src/proto/seeded_inputs.h"))
    return binary.string();
  const std::string log = (dir / "seeded_host_runner.log").string();
  const std::string src = (root / "grader/src").string();
  const std::string cmd = "g++ -std=c++17 -O2 -Wall -Wextra -I'" + src + "' -o '" + binary.string() + ".tmp' '" +
                          source.string() + "' '" + src + "/proto/protocol.cpp' '" + src +
                          "/proto/seeded_digest.cpp' -pthread >'" + log + "' 2>&1 && mv '" + binary.string() +
                          ".tmp' '" + binary.string() + "'";
  if (std::system(cmd.c_str()) != 0) {
    std::ifstream f(log);
    std::stringstream ss;
    ss << f.rdbuf();
    why = "building the stand-in runner failed: " + ss.str();
    return "";
  }
  return binary.string();
}

sg::RunnerConfig config(const std::string& runner, const std::string& mode, const fs::path& dir) {
  sg::RunnerConfig rc;
  rc.argv = {runner, mode};
  rc.env = {"PATH=/usr/bin:/bin"};
  rc.scratch_dir = rc.log_dir = dir.string();
  rc.drop_privileges = false;
  rc.pid_namespace = false;
  return rc;
}

sg::Case small_case() {
  sg::Case c;
  c.name = "perf_small";
  c.m = 24;
  c.k = 40;
  c.n = 16;
  c.has_performance = true;
  c.performance.samples = 5;
  c.performance.warmups = 1;
  return c;
}

class TimedSamples : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    runner_ = stand_in_runner(why);
    if (runner_.empty()) GTEST_FAIL() << why;
    dir_ = fs::temp_directory_path() / ("sg-timed-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  sg::TimingEvidence student(const std::string& mode, std::string& failure) {
    sg::RunnerSession session(config(runner_, mode, dir_));
    sg::TimingEvidence e;
    std::vector<sg::TimedOutput> outputs;
    failure = said(sg::time_student_samples(session, small_case(), 30, e, outputs));
    session.stop();  // the outputs are read and checked once the runner has ended
    sg::read_output_files(dir_.string(), small_case(), outputs);
    if (failure.empty()) sg::check_student_outputs(small_case(), outputs, e);
    return e;
  }

  std::string runner_;
  fs::path dir_;
};

TEST_F(TimedSamples, HonestOutputsPassAndEverySampleIsTimedByTheJudge) {
  std::string failure;
  const sg::TimingEvidence e = student("honest", failure);
  EXPECT_EQ(failure, "");
  ASSERT_EQ(e.student_ms.size(), 5u);
  ASSERT_EQ(e.student_event_ms.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_GT(e.student_ms[i], 0.0);
    EXPECT_GT(e.student_event_ms[i], 0.0);  // the stand-in's own clock around its product
    EXPECT_LE(e.student_event_ms[i], e.student_ms[i]);
  }
  EXPECT_EQ(e.wrong_outputs, 0) << sg::output_fault_text(e.first_wrong_output);
}

// The warm-ups fill every slot: no timed sample allocates one.
TEST_F(TimedSamples, EverySlotIsAllocatedByAWarmUp) {
  sg::RunnerSession session(config(runner_, "honest", dir_));
  const sg::Case c = small_case();  // 1 warm-up asked for, 5 samples
  sg::TimingEvidence e;
  std::vector<sg::TimedOutput> outputs;
  ASSERT_EQ(said(sg::time_student_samples(session, c, 30, e, outputs)), "");
  ASSERT_EQ(outputs.size(), 5u);
  session.stop();
  sg::read_output_files(dir_.string(), c, outputs);
  sg::check_student_outputs(c, outputs, e);
  EXPECT_EQ(e.wrong_outputs, 0) << sg::output_fault_text(e.first_wrong_output);
  std::istringstream said(session.captured_output(1 << 16));
  int firsts = 0, launches = 0;
  for (std::string line; std::getline(said, line);) {
    int slot = -1;
    long request = 0;
    if (std::sscanf(line.c_str(), "request %ld launches basicSgemm", &request) == 1) {
      ++launches;
      // The suite's one warm-up launches; the other slots' first requests launch nothing.
      EXPECT_TRUE(request == 1 || request > c.performance.samples) << line;
    }
    if (std::sscanf(line.c_str(), "slot %d first used by request %ld", &slot, &request) != 2) continue;
    ++firsts;
    EXPECT_LE(request, c.performance.samples) << line;  // one of the 5 warm-ups
  }
  EXPECT_EQ(firsts, c.performance.samples);
  EXPECT_EQ(launches, c.performance.warmups + c.performance.samples);
}

TEST_F(TimedSamples, AReplayedOutputFailsFreivalds) {
  std::string failure;
  const sg::TimingEvidence e = student("replay", failure);
  EXPECT_EQ(failure, "");
  EXPECT_EQ(e.wrong_outputs, 5);  // the warm-up computed; every timed sample replayed it
  EXPECT_NE(sg::output_fault_text(e.first_wrong_output).find("Freivalds"), std::string::npos) << sg::output_fault_text(e.first_wrong_output);
}

TEST_F(TimedSamples, AnOutputComputedOnlyWhenAskedBreaksItsCommitment) {
  std::string failure;
  const sg::TimingEvidence e = student("late", failure);
  EXPECT_EQ(failure, "");
  EXPECT_EQ(e.wrong_outputs, 5);
  EXPECT_NE(sg::output_fault_text(e.first_wrong_output).find("committed"), std::string::npos) << sg::output_fault_text(e.first_wrong_output);
}

// Each output waits in a file of its own until the judge reads it, after
// the runner has ended; a file that is not one (a link to elsewhere, the
// wrong size) earns nothing, and nothing past it is read.
TEST_F(TimedSamples, OutputsAreReadFromTheirFilesAfterTheRunnerEnded) {
  sg::RunnerSession session(config(runner_, "honest", dir_));
  sg::TimingEvidence e;
  std::vector<sg::TimedOutput> outputs;
  ASSERT_EQ(said(sg::time_student_samples(session, small_case(), 30, e, outputs)), "");
  session.stop();
  ASSERT_EQ(outputs.size(), 5u);
  for (const sg::TimedOutput& o : outputs) {
    EXPECT_TRUE(o.written);
    EXPECT_TRUE(o.c.empty());  // not read yet
    EXPECT_TRUE(fs::is_regular_file(dir_ / sg::proto::seeded_output_name(o.seed)));
  }
  sg::read_output_files(dir_.string(), small_case(), outputs);
  for (const sg::TimedOutput& o : outputs) {
    EXPECT_EQ(o.c.size(), 24u * 16u) << sg::output_fault_text(o.unreadable);
    EXPECT_FALSE(fs::exists(dir_ / sg::proto::seeded_output_name(o.seed)));  // removed once read
  }
  sg::check_student_outputs(small_case(), outputs, e);
  EXPECT_EQ(e.wrong_outputs, 0) << sg::output_fault_text(e.first_wrong_output);
}

TEST_F(TimedSamples, AnOutputFileThatIsALinkOrOfTheWrongSizeEarnsNothing) {
  std::string failure;
  sg::TimingEvidence e = student("link", failure);
  EXPECT_EQ(failure, "");
  EXPECT_EQ(e.wrong_outputs, 5);
  EXPECT_EQ(e.unreadable_outputs, 5);
  EXPECT_NE(sg::output_fault_text(e.first_wrong_output).find("could not be opened"), std::string::npos) << sg::output_fault_text(e.first_wrong_output);
  e = student("short", failure);
  EXPECT_EQ(failure, "");
  EXPECT_EQ(e.wrong_outputs, 5);
  EXPECT_NE(sg::output_fault_text(e.first_wrong_output).find("bytes, not 1536"), std::string::npos) << sg::output_fault_text(e.first_wrong_output);
}

TEST_F(TimedSamples, BaselinesOverheadAndNaiveAreTakenInterleaved) {
  sg::RunnerSession session(config(runner_, "honest", dir_));
  sg::TimingEvidence e;
  sg::TimedOutput reference;
  EXPECT_EQ(said(sg::time_baseline_samples(session, small_case(), 30, e, reference)), "");
  EXPECT_EQ(e.overhead_ms.size(), 5u);
  EXPECT_EQ(e.reference_ms.size(), 5u);
  EXPECT_EQ(e.naive_ms.size(), 3u);  // a landmark: three samples are enough
  EXPECT_EQ(e.reference_event_ms.size(), 5u);
  EXPECT_EQ(e.naive_event_ms.size(), 3u);
  EXPECT_TRUE(e.student_ms.empty());
  // The reference's last output waits in its file, checked later (after the hold).
  ASSERT_TRUE(reference.written);
  EXPECT_TRUE(fs::is_regular_file(dir_ / sg::proto::seeded_output_name(reference.seed)));
  session.stop();
  EXPECT_EQ(said(sg::check_reference_output(dir_.string(), small_case(), reference)), "");
  EXPECT_FALSE(fs::exists(dir_ / sg::proto::seeded_output_name(reference.seed)));  // removed once read
}

// A baseline runner whose reference output fails the student's test leaves
// the case not measured, when the output is checked after the hold.
TEST_F(TimedSamples, AWrongReferenceOutputIsFoundAfterTheSamples) {
  sg::RunnerSession session(config(runner_, "short", dir_));
  sg::TimingEvidence e;
  sg::TimedOutput reference;
  ASSERT_EQ(said(sg::time_baseline_samples(session, small_case(), 30, e, reference)), "");
  session.stop();
  const std::optional<sg::TimedFailure> wrong = sg::check_reference_output(dir_.string(), small_case(), reference);
  ASSERT_TRUE(wrong.has_value());
  EXPECT_EQ(wrong->step, sg::TimedStep::ReferenceOutput);
  EXPECT_EQ(wrong->reference_wrong.kind, sg::OutputFault::Kind::WrongSize) << said(wrong);
}

// The GPU's pace around the student's samples: a yardstick of reference
// launches in the baseline runner first, then one between every third
// sample; the student's runner sees none of them and its outputs are as
// before.
TEST_F(TimedSamples, TheReferenceIsTimedBeforeAndBetweenTheStudentsSamples) {
  const fs::path baseline_dir = dir_ / "baseline";
  fs::create_directories(baseline_dir);
  sg::RunnerSession baseline(config(runner_, "honest", baseline_dir));
  sg::RunnerSession session(config(runner_, "honest", dir_));
  sg::Case c = small_case();
  c.performance.samples = 7;
  sg::TimingEvidence e;
  std::vector<sg::TimedOutput> outputs;
  ASSERT_EQ(said(sg::time_yardstick(baseline, c, 30, e)), "");
  EXPECT_EQ(e.yardstick_event_ms.size(), static_cast<std::size_t>(sg::kYardstickSamples));
  ASSERT_EQ(said(sg::time_student_samples(session, c, 30, e, outputs, &baseline)), "");
  EXPECT_EQ(e.student_ms.size(), 7u);
  EXPECT_EQ(e.probe_event_ms.size(), 7u / sg::kProbeEvery);
  ASSERT_EQ(e.student_after_probe.size(), 7u);
  for (std::size_t s = 0; s < 7; ++s)  // samples 3 and 6 follow the probes after samples 2 and 5
    EXPECT_EQ(e.student_after_probe[s], s > 0 && s % sg::kProbeEvery == 0) << "sample " << s;
  for (double ms : e.probe_event_ms) EXPECT_GT(ms, 0.0);
  session.stop();
  baseline.stop();
  sg::read_output_files(dir_.string(), c, outputs);
  sg::check_student_outputs(c, outputs, e);
  EXPECT_EQ(e.wrong_outputs, 0) << sg::output_fault_text(e.first_wrong_output);
  // Every launch the baseline runner made was the reference's.
  std::istringstream said(baseline.captured_output(1 << 16));
  int launches = 0;
  for (std::string line; std::getline(said, line);) {
    long request = 0;
    launches += std::sscanf(line.c_str(), "request %ld launches basicSgemm", &request) == 1;
  }
  EXPECT_EQ(launches, c.performance.warmups + sg::kYardstickSamples + static_cast<int>(7u / sg::kProbeEvery));
}

// A checked case past its limit (1 s; the runner is started and answers a
// Ping first, so that its start-up, slow on a loaded machine, is no part of
// it) whose runner keeps counting blocks (2.4 s of them) is given more time;
// one that counts none is stopped at its limit; the session's budget for
// extensions ends them.
sg::CaseOutcome checked_case(const std::string& runner, const std::string& mode, const fs::path& dir,
                             double budget_s, double& seconds) {
  sg::RunnerConfig rc = config(runner, mode, dir);
  rc.progress_file = (dir / "cudacpu-progress").string();
  rc.env.push_back("CUDACPU_PROGRESS_FILE=" + rc.progress_file);
  rc.progress_limit_factor = 8;
  rc.progress_budget_s = budget_s;
  sg::RunnerSession session(rc);
  EXPECT_TRUE(session.ready(30)) << "the fake runner did not answer its Ping";
  const std::vector<float> a(4 * 4, 1.0f), b(4 * 4, 1.0f);
  const auto t0 = std::chrono::steady_clock::now();
  sg::CaseOutcome out = session.run(4, 4, 4, a, b, 1.0);
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

TEST_F(TimedSamples, ACaseWhoseBlocksKeepCompletingGetsMoreTime) {
  double seconds = 0;
  const sg::CaseOutcome out = checked_case(runner_, "slow", dir_, 10, seconds);
  EXPECT_EQ(out.kind, sg::CaseOutcome::Kind::Ok) << sg::runner_failure(out);
  EXPECT_TRUE(out.extended);
  EXPECT_DOUBLE_EQ(out.limit_s, 1.0);
  EXPECT_GT(seconds, 2.0);
}

TEST_F(TimedSamples, ACaseThatCompletesNoBlockStopsAtItsLimit) {
  double seconds = 0;
  const sg::CaseOutcome out = checked_case(runner_, "stuck", dir_, 10, seconds);
  EXPECT_EQ(out.kind, sg::CaseOutcome::Kind::TimedOut);
  EXPECT_FALSE(out.extended);  // stopped at its first limit
}

TEST_F(TimedSamples, TheExtensionBudgetEndsASlowCase) {
  double seconds = 0;
  const sg::CaseOutcome out = checked_case(runner_, "slow", dir_, 0.3, seconds);
  EXPECT_EQ(out.kind, sg::CaseOutcome::Kind::TimedOut);
  EXPECT_TRUE(out.extended);
  EXPECT_EQ(out.failure, sg::CaseOutcome::Failure::TimedOutExtended);
  const std::string cause = sg::runner_failure(out);
  EXPECT_NE(cause.find("kept completing"), std::string::npos) << cause;
  EXPECT_NE(cause.find("after 1 s"), std::string::npos) << "1 s and 0.3 s of budget: " << cause;
}

// The limit bounds the work: a reply that began within it is read in full
// (sg::kReplyTransferS), and one that stops halfway still ends.
TEST_F(TimedSamples, AReplyThatBeganWithinTheLimitIsReadInFull) {
  double seconds = 0;
  const sg::CaseOutcome out = checked_case(runner_, "tail", dir_, 10, seconds);
  EXPECT_EQ(out.kind, sg::CaseOutcome::Kind::Ok) << sg::runner_failure(out);
  EXPECT_FALSE(out.extended);
  EXPECT_GT(seconds, 1.4);  // its second part came 1.5 s after the first, past the limit of 1 s
}

TEST_F(TimedSamples, AReplyThatStopsHalfwayEndsAfterTheTransferAllowance) {
  double seconds = 0;
  const sg::CaseOutcome out = checked_case(runner_, "tail_stuck", dir_, 10, seconds);
  EXPECT_EQ(out.kind, sg::CaseOutcome::Kind::TimedOut) << sg::runner_failure(out);
  EXPECT_GT(seconds, sg::kReplyTransferS - 0.5);
  EXPECT_LT(seconds, sg::kReplyTransferS + 5);
}

TEST_F(TimedSamples, ARunnerThatDiesIsNamed) {
  sg::RunnerConfig rc = config("/bin/false", "", dir_);
  rc.argv = {"/bin/false"};
  sg::RunnerSession session(rc);
  sg::TimingEvidence e;
  std::vector<sg::TimedOutput> outputs;
  const std::optional<sg::TimedFailure> failure = sg::time_student_samples(session, small_case(), 10, e, outputs);
  ASSERT_TRUE(failure.has_value());
  EXPECT_EQ(failure->step, sg::TimedStep::StudentSamples);
  EXPECT_NE(failure->request.failure, sg::CaseOutcome::Failure::None);
  EXPECT_NE(said(failure).find("not measured: the timed launches failed: "), std::string::npos) << said(failure);
  EXPECT_TRUE(e.student_ms.empty());
}

}  // namespace

// What a wrong timed output is said as (words/timing_report.cpp), from its facts.
TEST(TimedOutputWords, EachFaultIsSaid) {
  using K = sg::OutputFault::Kind;
  sg::OutputFault f;
  EXPECT_EQ(sg::output_fault_text(f), "");
  f.file = "out-7.bin";
  f.kind = K::NeverWritten;
  EXPECT_EQ(sg::output_fault_text(f), "its output was never written");
  f.kind = K::CannotOpen;
  f.error = ENOENT;
  EXPECT_EQ(sg::output_fault_text(f), "its output file out-7.bin could not be opened (No such file or directory)");
  f.kind = K::NotRegularFile;
  EXPECT_EQ(sg::output_fault_text(f), "its output file out-7.bin is not a regular file");
  f.kind = K::WrongSize;
  f.bytes = 12;
  f.expected_bytes = 1536;
  EXPECT_EQ(sg::output_fault_text(f), "its output file out-7.bin holds 12 bytes, not 1536");
  f.kind = K::ShortRead;
  EXPECT_EQ(sg::output_fault_text(f), "its output file out-7.bin could not be read whole");
  f.kind = K::NotCommitted;
  EXPECT_EQ(sg::output_fault_text(f), "the output written afterwards was not the one the timed request committed to");
  f.kind = K::FreivaldsFailed;
  f.freivalds.rows_failed = 3;
  f.freivalds.first_row = 37;
  f.freivalds.first_diff = 0.0123456;
  f.freivalds.first_bound = 1e-5;
  EXPECT_EQ(sg::output_fault_text(f),
            "3 of the rows failed Freivalds' check (first: row 37, |Cx - ABx| = 0.0123, bound 1e-05)");
  EXPECT_TRUE(f.wrong());
  EXPECT_FALSE(f.unreadable());
}
