// The judge's runner session on its own, with a stand-in runner (a shell
// script): which runners are asked to check on a partition of the GPU.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "services/runner_session.h"

namespace fs = std::filesystem;

namespace {

// A stand-in runner in a fresh `dir`: a shell script that notes its
// arguments in dir/args.txt, then runs `then` (e.g. "exit 3").
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

// The lines script_runner's runners noted, one per runner started; `dir` is removed.
std::vector<std::string> noted_arguments(const fs::path& dir) {
  std::vector<std::string> seen;
  std::ifstream f(dir / "args.txt");
  for (std::string line; std::getline(f, line);) seen.push_back(line);
  fs::remove_all(dir);
  return seen;
}

// Runs `cases` cases through a session whose every runner notes its
// arguments and dies at once (so each case needs a fresh runner); returns
// one line per runner started.
std::vector<std::string> runner_arguments(unsigned partition_sms, int cases) {
  const fs::path dir = fs::temp_directory_path() / ("sg-session-" + std::to_string(::getpid()));
  const sg::RunnerConfig rc = script_runner(dir, "exit 3", partition_sms);
  const std::vector<float> a(4 * 4, 1.0f), b(4 * 4, 1.0f);
  {
    sg::RunnerSession session(rc);
    for (int i = 0; i < cases; ++i)
      EXPECT_NE(session.run(4, 4, 4, a, b, 20).kind, sg::CaseOutcome::Kind::Ok) << "case " << i;
  }  // the session's end takes its spare runner too
  return noted_arguments(dir);
}

TEST(RunnerSession, RunnersAfterAFailureAreAskedForAPartition) {
  const std::vector<std::string> seen = runner_arguments(16, 3);
  ASSERT_GE(seen.size(), 3u) << "fewer runners than cases";
  EXPECT_EQ(seen[0], "args:") << "the first runner was asked for a partition before anything failed";
  for (std::size_t i = 1; i < seen.size(); ++i) EXPECT_EQ(seen[i], "args:--partition-sms 16") << "runner " << i + 1;
}

// Without the setting (the CPU backend) no runner gets the option, failure or not.
TEST(RunnerSession, NoPartitionUnlessConfigured) {
  const std::vector<std::string> seen = runner_arguments(0, 2);
  ASSERT_GE(seen.size(), 2u);
  for (const std::string& line : seen) EXPECT_EQ(line, "args:");
}

// A runner that does not answer its Ping in time (one that hangs in its
// start-up) is ended without counting as a failure: the runner started for
// the next request is not asked for a partition.
TEST(RunnerSession, AnUnansweredPingIsNoFailure) {
  const fs::path dir = fs::temp_directory_path() / ("sg-session-ping-" + std::to_string(::getpid()));
  const sg::RunnerConfig rc = script_runner(dir, "sleep 30", 16);
  const std::vector<float> a(4 * 4, 1.0f), b(4 * 4, 1.0f);
  {
    sg::RunnerSession session(rc);
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_FALSE(session.ready(0.5));
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
    EXPECT_EQ(session.run(4, 4, 4, a, b, 0.5).kind, sg::CaseOutcome::Kind::TimedOut);
  }
  const std::vector<std::string> seen = noted_arguments(dir);
  ASSERT_GE(seen.size(), 2u);
  EXPECT_EQ(seen[0], "args:");
  EXPECT_EQ(seen[1], "args:") << "the runner after an unanswered Ping was asked for a partition";
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

}  // namespace
