// The student's runner holds no reference code: there is nothing in its
// address space for a submission to time in its place (the judge times the
// baselines in the baseline runner). Links a real runner the way the GPU
// backend does; needs nvcc and the built runner pieces, never a GPU.
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "process/program_path.h"
#include "shell_run.h"

namespace {

namespace fs = std::filesystem;
using sg::test::run_shell;
using sg::test::shell_quote;

std::string nvcc() {
  if (const char* env = std::getenv("NVCC"); env && *env) return env;
  if (std::string p = sg::find_program("nvcc"); !p.empty()) return p;
  return sg::find_program("/usr/local/cuda/bin/nvcc");
}

TEST(RunnerLink, StudentRunnerHasNoReferenceCodeAndTheBaselineRunnerHas) {
  const fs::path build = SG_BUILD_DIR;
  const fs::path root = SG_SOURCE_ROOT;
  const fs::path pieces = build / "runner";
  if (nvcc().empty()) GTEST_SKIP() << "needs nvcc";
  for (const char* f : {"runner_main.o", "runner_selftest.o", "protocol.o", "baseline_runner"})
    if (!fs::exists(pieces / f)) GTEST_SKIP() << "build/runner/" << f << " is not built (make all)";
  const fs::path dir = fs::temp_directory_path() / ("sg-runner-link-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string q_nvcc = shell_quote(nvcc());
  // The reference as a submission, linked exactly as GpuBackend::build links one.
  const std::string cmd =
      q_nvcc + " -c -arch=sm_90 " + shell_quote((root / "reference/kernel.cu").string()) + " -o " +
      shell_quote((dir / "kernel.o").string()) + " && " + q_nvcc + " -o " + shell_quote((dir / "runner").string()) +
      " " + shell_quote((pieces / "runner_main.o").string()) + " " +
      shell_quote((pieces / "runner_selftest.o").string()) + " " + shell_quote((pieces / "protocol.o").string()) +
      " " + shell_quote((dir / "kernel.o").string()) + " -cudart static && nm -C " +
      shell_quote((dir / "runner").string()) + " > " + shell_quote((dir / "runner.nm").string()) + " && nm -C " +
      shell_quote((pieces / "baseline_runner").string()) + " > " + shell_quote((dir / "baseline.nm").string());
  const auto r = run_shell(cmd, dir / "log.txt", 300);
  ASSERT_EQ(r.code, 0) << r.output;
  const std::string student = sg::test::read_file(dir / "runner.nm");
  const std::string baseline = sg::test::read_file(dir / "baseline.nm");
  EXPECT_NE(student.find("basicSgemm"), std::string::npos);
  for (const char* name : {"ref_naive", "ref_tiled", "ref_naive_sgemm", "ref_tiled_sgemm"})
    EXPECT_EQ(student.find(name), std::string::npos) << name << " is linked into the student's runner";
  EXPECT_NE(baseline.find("ref_naive_sgemm"), std::string::npos);
  EXPECT_NE(baseline.find("basicSgemm"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
