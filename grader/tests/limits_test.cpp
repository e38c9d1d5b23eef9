// A grading's time limits (services/limits.h).
#include <gtest/gtest.h>

#include "backends/cpu/cpu_sanitizer.h"
#include "services/limits.h"

namespace {

sg::Case shape(int m, int k, int n, double timeout_s) {
  sg::Case c;
  c.m = m;
  c.k = k;
  c.n = n;
  c.timeout_s = timeout_s;
  return c;
}

// After a hang on a GPU a small case gets 3 s and a large one 1 s more per
// GFLOP, never more than its full limit.
TEST(Limits, AfterAHangAGpuCaseGetsALimitFromItsWork) {
  EXPECT_DOUBLE_EQ(sg::case_time_limit_after_hang(shape(120, 201, 250, 10), sg::BackendKind::Gpu),
                   3.0 + 2.0 * 120 * 201 * 250 / 1e9);
  EXPECT_NEAR(sg::case_time_limit_after_hang(shape(1024, 1024, 1024, 10), sg::BackendKind::Gpu), 5.147, 0.001);
  EXPECT_DOUBLE_EQ(sg::case_time_limit_after_hang(shape(4096, 2048, 2048, 30), sg::BackendKind::Gpu), 30);
  EXPECT_DOUBLE_EQ(sg::case_time_limit_after_hang(shape(1, 1, 1, 2), sg::BackendKind::Gpu), 2);
  for (const sg::Case& c : {shape(120, 201, 250, 10), shape(2048, 2048, 2048, 30)})
    EXPECT_LE(sg::case_time_limit_after_hang(c, sg::BackendKind::Gpu), sg::case_time_limit(c, sg::BackendKind::Gpu));
}

// The CPU backend's sanitizer runs get what a case of the check's shape
// gets (extended there while blocks complete), not the check's 120 s sized
// for compute-sanitizer over many shapes; a smaller timeout_s still holds.
TEST(Limits, TheCpuSanitizersRunsGetACaseLimitNotTheChecks) {
  sg::Check c;
  c.kind = sg::CheckKind::Sanitizer;
  c.m = 40;
  c.k = 50;
  c.n = 36;
  ASSERT_DOUBLE_EQ(c.timeout_s, 120);
  EXPECT_DOUBLE_EQ(sg::cpu_sanitizer_run_limit(c), sg::case_time_limit(shape(40, 50, 36, 10), sg::BackendKind::Cpu));
  EXPECT_LT(sg::cpu_sanitizer_run_limit(c), 11);
  c.timeout_s = 4;
  EXPECT_DOUBLE_EQ(sg::cpu_sanitizer_run_limit(c), 4);
}

// On the CPU backend the work is counted at its floor rate (1e8 FLOP/s).
TEST(Limits, AfterAHangACpuCaseKeepsItsWorkButNotTheSuitesAllowance) {
  const sg::Case c = shape(1000, 777, 333, 10);
  EXPECT_DOUBLE_EQ(sg::case_time_limit_after_hang(c, sg::BackendKind::Cpu), 3.0 + 2.0 * 1000 * 777 * 333 / 1e8);
  EXPECT_DOUBLE_EQ(sg::case_time_limit(c, sg::BackendKind::Cpu) - sg::case_time_limit_after_hang(c, sg::BackendKind::Cpu), 7);
}

}  // namespace

// The machine's own resource failures in a build log are the grader's, not
// the student's compile error; a student's #error with the same words is.
TEST(Limits, TheMachineRunningOutIsNoCompileError) {
  EXPECT_EQ(sg::grader_resource_failure("kernel.cu:12:3: error: expected ';'\n"), "");
  EXPECT_EQ(sg::grader_resource_failure("cc1plus: fatal error: error writing to /tmp/ccA1.s: No space left on device\n"),
            "No space left on device");
  EXPECT_EQ(sg::grader_resource_failure("/usr/bin/ld: final link failed: Disk quota exceeded\n"), "Disk quota exceeded");
  EXPECT_EQ(sg::grader_resource_failure("x\nfatal error: kernel.cu: Too many open files\n"), "Too many open files");
  EXPECT_EQ(sg::grader_resource_failure("kernel.cu:1:2: error: #error No space left on device\n"), "");
  // A compiler the grader could not start for its own descriptor limit (dup2 says EINVAL).
  EXPECT_EQ(sg::grader_resource_failure("could not start /usr/bin/g++: cannot start /usr/bin/g++: setting up fds 0-4 "
                                        "(dup2): Invalid argument\n"),
            "out of descriptors");
}
