// The Makefile's own decisions, read from `make -n` (nothing is built): on a
// machine without nvcc, `make grade` builds the CUDA-free grader, grades with
// the cpu backend and says so, and never calls nvcc.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "shell_run.h"

namespace {

namespace fs = std::filesystem;
using sg::test::run_shell;
using sg::test::shell_quote;

TEST(Makefile, WithoutNvccGradeBuildsTheCudaFreeGraderAndGradesOnTheCpu) {
  const fs::path log = fs::temp_directory_path() / "sg-makefile-test.log";
  const auto run = run_shell("cd " + shell_quote(SG_SOURCE_ROOT) +
                                 " && make -n grade NVCC=/nonexistent/bin/nvcc BUILD=build/makefile-test-dry",
                             log, 60);
  fs::remove(log);
  ASSERT_EQ(run.code, 0) << run.output;
  EXPECT_NE(run.output.find("no nvcc (/nonexistent/bin/nvcc): building the CUDA-free grader"), std::string::npos)
      << run.output.substr(0, 2000);
  EXPECT_NE(run.output.find("-DSG_NO_CUDA"), std::string::npos);
  EXPECT_NE(run.output.find("--backend cpu"), std::string::npos);
  EXPECT_EQ(run.output.find("-lcublas"), std::string::npos) << "linked against cuBLAS without CUDA";
  for (std::size_t at = run.output.find("/nonexistent/bin/nvcc"); at != std::string::npos;
       at = run.output.find("/nonexistent/bin/nvcc", at + 1)) {
    const std::size_t line = run.output.rfind('\n', at) + 1;
    EXPECT_EQ(run.output.compare(line, 6, "make: "), 0) << "nvcc is called: " << run.output.substr(line, 200);
  }
}

TEST(Makefile, WithNvccGradeKeepsTheChosenBackend) {
  if (std::system("command -v nvcc >/dev/null 2>&1 || test -x /usr/local/cuda/bin/nvcc") != 0)
    GTEST_SKIP() << "needs nvcc";
  const fs::path log = fs::temp_directory_path() / "sg-makefile-test-2.log";
  const auto run = run_shell("cd " + shell_quote(SG_SOURCE_ROOT) + " && make -n grade BUILD=build/makefile-test-dry",
                             log, 60);
  fs::remove(log);
  ASSERT_EQ(run.code, 0) << run.output;
  EXPECT_NE(run.output.find("--backend auto"), std::string::npos) << run.output.substr(0, 2000);
  EXPECT_EQ(run.output.find("building the CUDA-free grader"), std::string::npos);
}

}  // namespace
