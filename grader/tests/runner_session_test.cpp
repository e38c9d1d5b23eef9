// The judge's runner session on its own, with a stand-in runner (a shell
// script): which runners are asked to check on a partition of the GPU, and
// that none is told so (or anything else) by its arguments.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "services/runner_session.h"

namespace fs = std::filesystem;

namespace {

// A stand-in runner in a fresh `dir`: a shell script that notes its
// arguments in dir/args.txt, then runs `then` (e.g. "exit 3"; kFirstRequest
// notes the type of the first request it reads in dir/first.txt).
const char* const kFirstRequest = "t=$(od -An -tu4 -N8 <&3 | awk '{print $2}'); echo \"first:$t\" >> first.txt; ";

sg::RunnerConfig script_runner(const fs::path& dir, const std::string& then, unsigned partition_sms) {
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path script = dir / "runner.sh";
  std::ofstream(script) << "echo \"args:$*\" >> '" << (dir / "args.txt").string() << "'\n" << then << "\n";
  sg::RunnerConfig rc;
  rc.argv = {"/bin/sh", script.string()};
  rc.env = {"PATH=/usr/bin:/bin"};
  rc.scratch_dir = rc.log_dir = dir.string();
  rc.drop_privileges = false;
  rc.pid_namespace = false;
  rc.partition_sms_after_failure = partition_sms;
  return rc;
}

// The lines script_runner's runners noted in `file`, one per runner.
std::vector<std::string> noted(const fs::path& dir, const std::string& file) {
  std::vector<std::string> seen;
  std::ifstream f(dir / file);
  for (std::string line; std::getline(f, line);) seen.push_back(line);
  return seen;
}
// The arguments, one line per runner started; `dir` is removed.
std::vector<std::string> noted_arguments(const fs::path& dir) {
  std::vector<std::string> seen = noted(dir, "args.txt");
  fs::remove_all(dir);
  return seen;
}

struct Noted {
  std::vector<std::string> arguments, first_requests;
};

// Runs `cases` cases through a session whose every runner notes its
// arguments and its first request's type, and dies at once (so each case
// needs a fresh runner). A spare that was never used notes an empty type.
Noted runners_started(unsigned partition_sms, int cases) {
  const fs::path dir = fs::temp_directory_path() / ("sg-session-" + std::to_string(::getpid()));
  const sg::RunnerConfig rc = script_runner(dir, std::string(kFirstRequest) + "exit 3", partition_sms);
  const std::vector<float> a(4 * 4, 1.0f), b(4 * 4, 1.0f);
  {
    sg::RunnerSession session(rc);
    for (int i = 0; i < cases; ++i)
      EXPECT_NE(session.run(4, 4, 4, a, b, 20).kind, sg::CaseOutcome::Kind::Ok) << "case " << i;
  }  // the session's end takes its spare runner too
  Noted n;
  n.first_requests = noted(dir, "first.txt");
  n.arguments = noted_arguments(dir);
  return n;
}

const std::string kRunCase = "first:" + std::to_string(static_cast<unsigned>(sg::proto::RequestType::RunCase));
const std::string kPartition = "first:" + std::to_string(static_cast<unsigned>(sg::proto::RequestType::Partition));

// After a failure each new runner's first request is its Partition; no
// runner is given an argument, so none can tell from its command line.
TEST(RunnerSession, RunnersAfterAFailureAreAskedForAPartition) {
  const Noted n = runners_started(16, 3);
  ASSERT_GE(n.arguments.size(), 3u) << "fewer runners than cases";
  for (const std::string& line : n.arguments) EXPECT_EQ(line, "args:");
  ASSERT_GE(n.first_requests.size(), 3u);
  EXPECT_EQ(n.first_requests[0], kRunCase) << "the first runner was asked for a partition before anything failed";
  int partitions = 0;
  for (std::size_t i = 1; i < n.first_requests.size(); ++i) {
    const std::string& line = n.first_requests[i];
    EXPECT_TRUE(line == kPartition || line == "first:") << "runner " << i + 1 << ": " << line;
    partitions += line == kPartition;
  }
  EXPECT_GE(partitions, 2) << "each case after the first ran on a fresh runner";
}

// A failed request says how long it took on the judge's clock, and how much
// of that went to ending the runner (grade.log's line for a failed case).
TEST(RunnerSession, AFailedRequestIsTimedWithItsRunnersEnding) {
  const fs::path dir = fs::temp_directory_path() / ("sg-session-timed-" + std::to_string(::getpid()));
  const sg::RunnerConfig rc = script_runner(dir, std::string(kFirstRequest) + "sleep 0.3; exit 3", 0);
  const std::vector<float> a(4 * 4, 1.0f), b(4 * 4, 1.0f);
  {
    sg::RunnerSession session(rc);
    const sg::CaseOutcome out = session.run(4, 4, 4, a, b, 20);
    EXPECT_NE(out.kind, sg::CaseOutcome::Kind::Ok);
    EXPECT_GE(out.request_s, 0.3);
    EXPECT_LT(out.request_s, 15.0);
    EXPECT_GE(out.ending_s, 0.0);
    EXPECT_LE(out.ending_s, out.request_s);
    EXPECT_EQ(out.partition_s, 0.0) << "no partition was asked for";
  }
  fs::remove_all(dir);
}

// Without the setting (the CPU backend) no runner is asked, failure or not.
TEST(RunnerSession, NoPartitionUnlessConfigured) {
  const Noted n = runners_started(0, 2);
  ASSERT_GE(n.arguments.size(), 2u);
  for (const std::string& line : n.arguments) EXPECT_EQ(line, "args:");
  for (const std::string& line : n.first_requests) EXPECT_TRUE(line == kRunCase || line == "first:") << line;
}

// A runner that does not answer its Ping in time (one that hangs in its
// start-up) is ended without counting as a failure: the runner started for
// the next request is not asked for a partition.
TEST(RunnerSession, AnUnansweredPingIsNoFailure) {
  const fs::path dir = fs::temp_directory_path() / ("sg-session-ping-" + std::to_string(::getpid()));
  const sg::RunnerConfig rc = script_runner(dir, std::string(kFirstRequest) + "sleep 30", 16);
  const std::vector<float> a(4 * 4, 1.0f), b(4 * 4, 1.0f);
  {
    sg::RunnerSession session(rc);
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_FALSE(session.ready(0.5));
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
    EXPECT_EQ(session.run(4, 4, 4, a, b, 0.5).kind, sg::CaseOutcome::Kind::TimedOut);
  }
  const std::vector<std::string> first = noted(dir, "first.txt");
  ASSERT_GE(first.size(), 2u);
  EXPECT_EQ(first[0], "first:" + std::to_string(static_cast<unsigned>(sg::proto::RequestType::Ping)));
  EXPECT_EQ(first[1], kRunCase) << "the runner after an unanswered Ping was asked for a partition";
  noted_arguments(dir);
}

// The session beside (the baseline runner) may replace its runner after it
// was spared: a failed case's sweep still leaves the new runner alone.
TEST(RunnerSession, ASweepSparesTheRunnerBesideEvenAfterItWasReplaced) {
  const fs::path dir = fs::temp_directory_path() / ("sg-session-spare-" + std::to_string(::getpid()));
  const fs::path beside_dir = fs::temp_directory_path() / ("sg-session-beside-" + std::to_string(::getpid()));
  const std::vector<float> a(4 * 4, 1.0f), b(4 * 4, 1.0f);
  sg::RunnerSession beside(script_runner(beside_dir, "sleep 30", 0));
  sg::RunnerSession session(script_runner(dir, "exit 3", 0));
  session.spare(beside);
  beside.begin();
  const pid_t first = beside.pid();
  ASSERT_GT(first, 0);
  EXPECT_FALSE(beside.ready(0.3)) << "its runner never answers: it is ended, and the next one starts afresh";
  beside.begin();
  const pid_t second = beside.pid();
  ASSERT_GT(second, 0);
  ASSERT_NE(second, first);
  EXPECT_NE(session.run(4, 4, 4, a, b, 5).kind, sg::CaseOutcome::Kind::Ok);  // fails, and sweeps
  EXPECT_EQ(::kill(second, 0), 0) << "the sweep took the replaced runner beside";
  std::ifstream stat("/proc/" + std::to_string(second) + "/stat");
  std::string line;
  std::getline(stat, line);
  EXPECT_EQ(line.find(") Z "), std::string::npos) << "the runner beside is a zombie: " << line;
  beside.stop();
  session.stop();
  noted_arguments(dir);
  noted_arguments(beside_dir);
}

// Once the session beside has ended (the baseline runner, before the checks
// after the timing), the session no longer spares it nor looks at it: a
// later sweep (ncu's, in those checks) asks live_runners() what to spare.
TEST(RunnerSession, SpareNoneForgetsTheSessionBesideBeforeItEnds) {
  const fs::path dir = fs::temp_directory_path() / ("sg-session-forget-" + std::to_string(::getpid()));
  const fs::path beside_dir = fs::temp_directory_path() / ("sg-session-gone-" + std::to_string(::getpid()));
  auto beside = std::make_unique<sg::RunnerSession>(script_runner(beside_dir, "sleep 30", 0));
  sg::RunnerSession session(script_runner(dir, "sleep 30", 0));
  session.spare(*beside);
  beside->begin();
  const pid_t spared = beside->pid();
  ASSERT_GT(spared, 0);
  std::vector<pid_t> live = session.live_runners();
  EXPECT_NE(std::find(live.begin(), live.end(), spared), live.end());
  session.spare_none();
  beside.reset();
  live = session.live_runners();
  EXPECT_EQ(std::find(live.begin(), live.end(), spared), live.end());
  EXPECT_EQ(live.size(), 2u) << "its own spare and its own runner (none running), nothing of the session gone";
  noted_arguments(beside_dir);
  noted_arguments(dir);
}

// The grader's own baseline runner sweeps nothing when it fails or ends
// (RunnerConfig::sweeps): it may run while the submission builds, and the
// compiler is another child of the judge. A student's runner sweeps.
TEST(RunnerSession, ASessionWithoutSweepsLeavesTheJudgesOtherChildren) {
  const std::vector<float> a(4 * 4, 1.0f), b(4 * 4, 1.0f);
  auto start_sleeper = []() {
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::execl("/bin/sleep", "sleep", "30", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    return pid;
  };
  const pid_t compiler = start_sleeper();
  ASSERT_GT(compiler, 0);
  for (const bool sweeps : {false, true}) {
    const fs::path dir = fs::temp_directory_path() /
                         ("sg-session-sweeps-" + std::to_string(sweeps) + "-" + std::to_string(::getpid()));
    sg::RunnerConfig rc = script_runner(dir, std::string(kFirstRequest) + "exit 3", 0);
    rc.sweeps = sweeps;
    sg::RunnerSession session(rc);
    EXPECT_NE(session.run(4, 4, 4, a, b, 5).kind, sg::CaseOutcome::Kind::Ok);  // fails
    session.stop();
    // Killed and reaped (by us, or by the sweep itself) within a second; a
    // live one waits that long.
    bool gone = false;
    for (int i = 0; i < 100 && !gone; ++i) {
      const pid_t w = ::waitpid(compiler, nullptr, WNOHANG);
      gone = w == compiler || (w < 0 && errno == ECHILD);
      if (!gone) ::usleep(10000);
    }
    EXPECT_EQ(gone, sweeps) << (sweeps ? "a student's runner's failure swept the judge's other children"
                                       : "the baseline runner's failure swept the judge's other children");
    noted_arguments(dir);
  }
  ::kill(compiler, SIGKILL);
  ::waitpid(compiler, nullptr, WNOHANG);
}

}  // namespace
