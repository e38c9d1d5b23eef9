// cuBLAS is loaded by the GPU oracle when it starts, not linked into the
// grader (backends/gpu/cublas_calls.h): no grade process pays its load before
// main, and a machine whose cuBLAS cannot be loaded is told which library
// and what to do instead.
#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>
#include <string>

#include "backends/gpu/cublas_calls.h"
#include "shell_run.h"

namespace {

namespace fs = std::filesystem;
using sg::test::run_shell;
using sg::test::shell_quote;

TEST(CublasCalls, TheGraderDoesNotLinkCublas) {
  const fs::path log = fs::temp_directory_path() / "sg-cublas-needed.log";
  const auto run = run_shell("readelf -d " + shell_quote(std::string(SG_BUILD_DIR) + "/grade"), log, 30);
  fs::remove(log);
  ASSERT_EQ(run.code, 0) << run.output;
  ASSERT_NE(run.output.find("(NEEDED)"), std::string::npos) << run.output;  // the section was read
  EXPECT_EQ(run.output.find("libcublas"), std::string::npos) << run.output;
}

#ifndef SG_NO_CUDA
TEST(CublasCalls, AMissingLibraryIsNamedWithWhatToDo) {
  try {
    (void)sg::load_cublas("libcublas.so.999");
    FAIL() << "a library that does not exist was loaded";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cannot load cuBLAS (libcublas.so.999)"), std::string::npos) << what;
    EXPECT_NE(what.find("--backend cpu"), std::string::npos) << what;
  }
}

TEST(CublasCalls, EveryCallIsBoundFromTheLibraryTheHeadersName) {
  EXPECT_EQ(sg::cublas_library_name(), "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR));
  sg::CublasCalls calls;
  try {
    calls = sg::load_cublas();
  } catch (const std::runtime_error& e) {
    GTEST_SKIP() << "cuBLAS is not installed here: " << e.what();
  }
  EXPECT_NE(calls.create, nullptr);
  EXPECT_NE(calls.destroy, nullptr);
  EXPECT_NE(calls.set_math_mode, nullptr);
  EXPECT_NE(calls.dgemm, nullptr);
  EXPECT_NE(calls.sgemm, nullptr);
}
#endif

}  // namespace
