// The timing rules: speedup, partial credit, and every implausibility flag.
#include <gtest/gtest.h>

#include "pipeline/timing.h"

namespace {

sg::TimingEvidence honest(double student, double reference) {
  sg::TimingEvidence e;
  e.m = e.n = e.k = 2048;
  for (int i = 0; i < 9; ++i) {
    e.student_ms.push_back(student * (1 + 0.01 * (i % 3)));
    e.reference_ms.push_back(reference);
    e.naive_ms.push_back(reference * 2);
    e.wall_ms.push_back(student * 1.05 + 0.02);
    e.timed_mismatch.push_back(0);
  }
  e.cublas_ms = reference / 3;
  e.judge_wall_ms = 9 * (student + 3 * reference) + 50;
  return e;
}

TEST(Timing, MedianAndSpeedup) {
  sg::Timing t = sg::evaluate_timing(honest(4.0, 4.0));
  EXPECT_FALSE(t.implausible) << t.implausible_reason;
  EXPECT_NEAR(t.student_ms, 4.04, 1e-9);
  EXPECT_NEAR(t.speedup, 4.0 / 4.04, 1e-9);
  EXPECT_NEAR(t.student_spread, 0.08 / 4.04, 1e-9);
  EXPECT_NEAR(t.student_gflops, 2.0 * 2048 * 2048 * 2048 / (4.04e6), 1e-3);
}

TEST(Timing, LinearPartialCredit) {
  sg::Performance p;
  p.points = 8;
  p.zero_at = 0.5;
  p.full_at = 0.9;
  sg::Timing t;
  t.speedup = 0.7;
  EXPECT_NEAR(sg::performance_points(p, t), 4.0, 1e-9);
  t.speedup = 0.4;
  EXPECT_EQ(sg::performance_points(p, t), 0.0);
  t.speedup = 1.3;
  EXPECT_EQ(sg::performance_points(p, t), 8.0);
  t.implausible = true;
  EXPECT_EQ(sg::performance_points(p, t), 0.0);
}

TEST(Timing, SkippedWorkInTimedLaunchesIsFlagged) {
  sg::TimingEvidence e = honest(4.0, 4.0);
  e.timed_mismatch[3] = 100;
  sg::Timing t = sg::evaluate_timing(e);
  EXPECT_TRUE(t.implausible);
  EXPECT_NE(t.implausible_reason.find("differed from the checked launch"), std::string::npos);
}

TEST(Timing, FasterThanCublasIsFlagged) {
  sg::TimingEvidence e = honest(0.5, 4.0);
  sg::Timing t = sg::evaluate_timing(e);
  EXPECT_TRUE(t.implausible);
  EXPECT_NE(t.implausible_reason.find("cuBLAS"), std::string::npos);
}

TEST(Timing, WorkOutsideTheTimedRegionIsFlagged) {
  sg::TimingEvidence e = honest(4.0, 4.0);
  e.cublas_ms = 0.001;  // isolate the host-clock rule
  for (double& s : e.student_ms) s = 0.01;
  for (double& w : e.wall_ms) w = 4.0;
  sg::Timing t = sg::evaluate_timing(e);
  EXPECT_TRUE(t.implausible);
  EXPECT_NE(t.implausible_reason.find("host clock"), std::string::npos);
}

TEST(Timing, TimingsTheJudgeClockContradictsAreFlagged) {
  sg::TimingEvidence e = honest(4.0, 4.0);
  e.judge_wall_ms = 10;  // the judge saw 10 ms, the runner claims ~140 ms
  sg::Timing t = sg::evaluate_timing(e);
  EXPECT_TRUE(t.implausible);
  EXPECT_NE(t.implausible_reason.find("judge's clock"), std::string::npos);
}

}  // namespace
