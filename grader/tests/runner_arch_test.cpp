// A single grading compiles the submission for the architecture the runner
// pieces were built for (the `arch` file beside them) while CUDA describes
// the GPU; with --backend unset and no GPU after all, it grades on the cpu
// backend. Each test runs a copy of the grade binary in a home of its own,
// whose runner/arch it writes.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "backends/registry.h"
#include "gpu_guard.h"

namespace fs = std::filesystem;

namespace {

struct Ran {
  int code = -1;
  std::string err;
};

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

  // The copy with `args` and the smoke suite on the reference; its log kept.
  Ran grade(const std::string& args) {
    const std::string cmd = "SG_SOURCE_ROOT_OVERRIDE='" + std::string(SG_SOURCE_ROOT) + "' timeout -k 5 300 '" +
                            (dir_ / "home" / "grade").string() + "' " + args + " --seed 3 --suite '" +
                            SG_SOURCE_ROOT + "/testcases/smoke.yaml' --out '" + out() + "' '" + SG_SOURCE_ROOT +
                            "/reference/kernel.cu' >/dev/null 2>'" + (dir_ / "err.txt").string() + "' </dev/null";
    const int rc = std::system(cmd.c_str());
    Ran r;
    r.code = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    std::ifstream f(dir_ / "err.txt");
    std::stringstream ss;
    ss << f.rdbuf();
    r.err = ss.str();
    return r;
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
  const Ran ran = grade("");
  ASSERT_EQ(ran.code, 0) << ran.err;
  EXPECT_NE(ran.err.find(kAgainOnCpu), std::string::npos) << ran.err;
  const nlohmann::json r = results();
  EXPECT_EQ(r["extra_data"]["backend"], "cpu");
  EXPECT_DOUBLE_EQ(r["score"].get<double>(), r["extra_data"]["max_score"].get<double>()) << r.dump(1).substr(0, 3000);
}

TEST_F(RunnerArch, WithNoGpuBackendGpuIsStillAUsageError) {
  if (sg::test::gpu_unavailable_reason().empty()) GTEST_SKIP() << "a GPU is present";
  write_arch("sm_90\n");
  const Ran ran = grade("--backend gpu");
  EXPECT_EQ(ran.code, 2) << ran.err;
  EXPECT_NE(ran.err.find("no usable GPU"), std::string::npos) << ran.err;
  EXPECT_EQ(ran.err.find(kAgainOnCpu), std::string::npos) << ran.err;
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
  Ran ran = grade("--backend gpu");
  ASSERT_EQ(ran.code, 0) << ran.err;
  EXPECT_NE(ran.err.find("building again for sm_"), std::string::npos) << ran.err;
  EXPECT_EQ(results()["extra_data"]["device"].get<std::string>().find("sm_75"), std::string::npos);
  std::ifstream pieces(std::string(SG_BUILD_DIR) + "/runner/arch");
  std::string built;
  if (!(pieces >> built)) GTEST_SKIP() << "the runner pieces were built for several architectures";
  write_arch(built + "\n");
  ran = grade("");
  ASSERT_EQ(ran.code, 0) << ran.err;
  EXPECT_EQ(ran.err.find("building again"), std::string::npos) << ran.err;
  EXPECT_EQ(results()["extra_data"]["backend"], "gpu");
}

}  // namespace
