// The judge's runner session on its own, with a stand-in runner (a shell
// script): which runners are asked to check on a partition of the GPU.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "pipeline/runner_session.h"

namespace fs = std::filesystem;

namespace {

// Runs `cases` cases through a session whose every runner notes its
// arguments and dies at once (so each case needs a fresh runner); returns
// one line per runner started.
std::vector<std::string> runner_arguments(unsigned partition_sms, int cases) {
  const fs::path dir = fs::temp_directory_path() / ("sg-session-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path script = dir / "runner.sh", args = dir / "args.txt";
  std::ofstream(script) << "echo \"args:$*\" >> '" << args.string() << "'\nexit 3\n";
  sg::RunnerConfig rc;
  rc.argv = {"/bin/sh", script.string()};
  rc.env = {"PATH=/usr/bin:/bin"};
  rc.scratch_dir = rc.log_dir = dir.string();
  rc.drop_privileges = false;
  rc.pid_namespace = false;
  rc.partition_sms_after_failure = partition_sms;
  const std::vector<float> a(4 * 4, 1.0f), b(4 * 4, 1.0f);
  {
    sg::RunnerSession session(rc);
    for (int i = 0; i < cases; ++i)
      EXPECT_NE(session.run(4, 4, 4, a, b, 20).kind, sg::CaseOutcome::Kind::Ok) << "case " << i;
  }  // the session's end takes its spare runner too
  std::vector<std::string> seen;
  std::ifstream f(args);
  for (std::string line; std::getline(f, line);) seen.push_back(line);
  fs::remove_all(dir);
  return seen;
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

}  // namespace
