// A single grading compiles the submission for the architecture the runner
// pieces were built for (the `arch` file beside them) while CUDA describes
// the GPU; with --backend unset and no GPU after all, it grades on the cpu
// backend. Each test runs a copy of the grade binary in a home of its own,
// whose runner/arch it writes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "backends/registry.h"
#include "gpu_guard.h"
#include "shell_run.h"

namespace fs = std::filesystem;

namespace {

class RunnerArch : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("sg-runner-arch-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    const fs::path build(SG_BUILD_DIR);
    fs::create_directories(dir_ / "home" / "runner");
    fs::copy_file(build / "grade", dir_ / "home" / "grade");
    fs::permissions(dir_ / "home" / "grade", fs::perms::owner_all, fs::perm_options::add);
    fs::create_directory_symlink(build / "cpu", dir_ / "home" / "cpu");
    for (const auto& e : fs::directory_iterator(build / "runner"))
      if (e.path().filename() != "arch") fs::create_symlink(e.path(), dir_ / "home" / "runner" / e.path().filename());
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write_arch(const std::string& text) { std::ofstream(dir_ / "home" / "runner" / "arch") << text; }

  // The copy with `args` and the smoke suite on the reference; its log (stderr) kept.
  sg::test::ShellRun grade(const std::string& args) {
    using sg::test::shell_quote;
    const std::string root(SG_SOURCE_ROOT);
    return sg::test::run_shell("SG_SOURCE_ROOT_OVERRIDE=" + shell_quote(root) + " " +
                                   shell_quote((dir_ / "home" / "grade").string()) + " " + args +
                                   " --seed 3 --suite " + shell_quote(root + "/testcases/smoke.yaml") + " --out " +
                                   shell_quote(out()) + " " + shell_quote(root + "/reference/kernel.cu") +
                                   " >/dev/null </dev/null",
                               dir_ / "err.txt", 300);
  }
  std::string out() const { return (dir_ / "out").string(); }
  nlohmann::json results() const {
    std::ifstream f(out() + "/results.json");
    return nlohmann::json::parse(f);
  }
  fs::path dir_;
};

constexpr const char* kAgainOnCpu = "grading again on the cpu backend";

TEST_F(RunnerArch, WithNoGpuAnUnsetBackendGradesOnTheCpuAfterAll) {
  if (sg::test::gpu_unavailable_reason().empty()) GTEST_SKIP() << "a GPU is present: it would grade there";
  write_arch("sm_90\n");
  const sg::test::ShellRun ran = grade("");
  ASSERT_EQ(ran.code, 0) << ran.output;
  EXPECT_NE(ran.output.find(kAgainOnCpu), std::string::npos) << ran.output;
  const nlohmann::json r = results();
  EXPECT_EQ(r["extra_data"]["backend"], "cpu");
  EXPECT_DOUBLE_EQ(r["score"].get<double>(), r["extra_data"]["max_score"].get<double>()) << r.dump(1).substr(0, 3000);
}

TEST_F(RunnerArch, WithNoGpuBackendGpuIsStillAUsageError) {
  if (sg::test::gpu_unavailable_reason().empty()) GTEST_SKIP() << "a GPU is present";
  write_arch("sm_90\n");
  const sg::test::ShellRun ran = grade("--backend gpu");
  EXPECT_EQ(ran.code, 2) << ran.output;
  EXPECT_NE(ran.output.find("no usable GPU"), std::string::npos) << ran.output;
  EXPECT_EQ(ran.output.find(kAgainOnCpu), std::string::npos) << ran.output;
}

// Only one architecture's name is a guess; anything else leaves the device
// to be described first, as without the file.
TEST_F(RunnerArch, OnlyOneArchitecturesNameIsAGuess) {
  const std::string pieces = (dir_ / "home" / "runner").string();
  EXPECT_EQ(sg::runner_pieces_arch(pieces), "") << "no file";
  for (const char* text : {"sm_90\n", "sm_90", "  sm_120\n", "sm_90a\n"}) {
    write_arch(text);
    std::string want(text);
    want.erase(0, want.find_first_not_of(' '));
    want.erase(want.find_last_not_of('\n') + 1);
    EXPECT_EQ(sg::runner_pieces_arch(pieces), want) << text;
  }
  for (const char* text : {"", "\n", "compute_90\n", "sm_9x\n", "sm_\n", "sm_a\n", "sm_90 sm_80\n", "sm_9a0\n",
                           "sm_123456789\n"}) {
    write_arch(text);
    EXPECT_EQ(sg::runner_pieces_arch(pieces), "") << text;
  }
}

// On a GPU the guess is what is compiled first: a wrong one is built again
// for the GPU's own architecture (a single grading never builds twice
// otherwise), a right one is not.
TEST_F(RunnerArch, ASingleGradingCompilesForTheRunnerPiecesWhileCudaStarts) {
  SG_REQUIRE_GPU();
  write_arch("sm_75\n");
  sg::test::ShellRun ran = grade("--backend gpu");
  ASSERT_EQ(ran.code, 0) << ran.output;
  EXPECT_NE(ran.output.find("building again for sm_"), std::string::npos) << ran.output;
  EXPECT_EQ(results()["extra_data"]["device"].get<std::string>().find("sm_75"), std::string::npos);
  std::ifstream pieces(std::string(SG_BUILD_DIR) + "/runner/arch");
  std::string built;
  if (!(pieces >> built)) GTEST_SKIP() << "the runner pieces were built for several architectures";
  write_arch(built + "\n");
  ran = grade("");
  ASSERT_EQ(ran.code, 0) << ran.output;
  EXPECT_EQ(ran.output.find("building again"), std::string::npos) << ran.output;
  EXPECT_EQ(results()["extra_data"]["backend"], "gpu");
}

}  // namespace
