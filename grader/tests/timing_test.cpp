// The timing rules over the judge's own figures: overhead subtracted,
// speedup, partial credit, and every reason to award nothing.
#include <gtest/gtest.h>

#include "pipeline/timing.h"

namespace {

// Raw request times as the judge's clock sees them: kernel + overhead.
sg::TimingEvidence honest(double student, double reference, double overhead = 0.05) {
  sg::TimingEvidence e;
  e.m = e.n = e.k = 2048;
  for (int i = 0; i < 9; ++i) {
    e.student_ms.push_back(student * (1 + 0.01 * (i % 3)) + overhead);
    e.reference_ms.push_back(reference + overhead);
    e.overhead_ms.push_back(overhead * (1 + 0.1 * ((i % 3) - 1)));  // median: overhead
  }
  for (int i = 0; i < 3; ++i) e.naive_ms.push_back(reference * 2 + overhead);
  e.cublas_ms = reference / 3;
  return e;
}

TEST(Timing, OverheadIsSubtractedFromBothSides) {
  sg::Timing t = sg::evaluate_timing(honest(4.0, 4.0, 0.05));
  EXPECT_FALSE(t.implausible) << t.implausible_reason;
  EXPECT_NEAR(t.overhead_ms, 0.05, 1e-12);
  EXPECT_NEAR(t.student_ms, 4.04, 1e-9);
  EXPECT_NEAR(t.reference_ms, 4.0, 1e-9);
  EXPECT_NEAR(t.naive_ms, 8.0, 1e-9);
  EXPECT_NEAR(t.speedup, 4.0 / 4.04, 1e-9);
  EXPECT_NEAR(t.student_spread, 0.08 / 4.04, 1e-9);
  EXPECT_NEAR(t.student_gflops, 2.0 * 2048 * 2048 * 2048 / (4.04e6), 1e-3);
  EXPECT_FALSE(t.timed_output_wrong);
}

// The same samples with the runners' event times: steady, a little below
// the requests less their overhead, as on the GPU.
sg::TimingEvidence with_events(double student, double reference, double overhead = 0.2) {
  sg::TimingEvidence e = honest(student, reference, overhead);
  for (double j : e.student_ms) e.student_event_ms.push_back(j - overhead - 0.01);
  for (double j : e.reference_ms) e.reference_event_ms.push_back(j - overhead - 0.01);
  for (double j : e.naive_ms) e.naive_event_ms.push_back(j - overhead - 0.01);
  return e;
}

TEST(Timing, EventTimesAboveTheJudgesFloorAreUsed) {
  const sg::Timing t = sg::evaluate_timing(with_events(4.0, 4.0));
  EXPECT_NEAR(t.student_ms, 4.04 - 0.01, 1e-9);
  EXPECT_NEAR(t.reference_ms, 4.0 - 0.01, 1e-9);
  // The median request, less the reference requests' cost beyond the launch (0.21), less 3%.
  EXPECT_NEAR(t.student_floor_ms, 4.24 - 0.21 - 0.03 * 4.24, 1e-9);
  EXPECT_FALSE(t.student_floor_used);
  EXPECT_NEAR(t.student_spread, 0.08 / 4.03, 1e-9);
}

TEST(Timing, AnUnderReportingRunnerGetsTheJudgesFloor) {
  sg::TimingEvidence e = with_events(4.0, 4.0);
  for (double& ms : e.student_event_ms) ms = 0.001;  // a runner that claims its kernel took no time
  const sg::Timing t = sg::evaluate_timing(e);
  EXPECT_TRUE(t.student_floor_used);
  EXPECT_NEAR(t.student_ms, 4.24 - 0.21 - 0.03 * 4.24, 1e-9);
  // What it gained over its honest self is the slack, no more.
  EXPECT_LE(t.speedup / (3.99 / 4.03), 1.0 / (1 - 0.03 * 4.24 / 4.03) + 1e-9);
}

TEST(Timing, AFewDelayedRequestsLeaveAnHonestRunnerOnItsEvents) {
  sg::TimingEvidence e = with_events(4.0, 4.0);
  for (int i = 0; i < 4; ++i) e.student_ms[i] += 0.5;  // 4 of 9 requests woke late
  const sg::Timing t = sg::evaluate_timing(e);
  EXPECT_FALSE(t.student_floor_used);
  EXPECT_LE(t.student_ms, 4.08 - 0.01 + 1e-9);  // still one of its own event times (3.99 to 4.07)
  EXPECT_FALSE(t.implausible) << t.implausible_reason;
}

TEST(Timing, SameKernelBothSidesGivesSpeedupOne) {
  // The reference graded against itself: the same raw times on both sides.
  sg::TimingEvidence e = honest(3.2, 3.2, 0.12);
  e.student_ms.assign(e.reference_ms.begin(), e.reference_ms.end());
  const sg::Timing t = sg::evaluate_timing(e);
  EXPECT_DOUBLE_EQ(t.speedup, 1.0);
  sg::Performance p;
  p.points = 7;
  p.zero_at = 0.75;
  p.full_at = 0.95;
  EXPECT_EQ(sg::performance_points(p, t), 7.0);
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

TEST(Timing, AWrongTimedOutputEarnsNothing) {
  sg::TimingEvidence e = honest(2.0, 4.0);  // twice as fast as the reference...
  e.wrong_outputs = 14;                     // ...because it computed something else
  e.first_wrong_output = "3 of the rows failed Freivalds' check";
  const sg::Timing t = sg::evaluate_timing(e);
  EXPECT_TRUE(t.timed_output_wrong);
  EXPECT_TRUE(t.implausible);
  EXPECT_NE(t.implausible_reason.find("the timed launch's output was wrong"), std::string::npos);
  EXPECT_NE(t.implausible_reason.find("14 of 9 samples"), std::string::npos) << t.implausible_reason;
  sg::Performance p;
  p.points = 7;
  p.zero_at = 0.75;
  p.full_at = 0.95;
  EXPECT_EQ(sg::performance_points(p, t), 0.0);
}

TEST(Timing, FasterThanCublasIsFlagged) {
  sg::TimingEvidence e = honest(0.5, 4.0);
  sg::Timing t = sg::evaluate_timing(e);
  EXPECT_TRUE(t.implausible);
  EXPECT_NE(t.implausible_reason.find("cuBLAS"), std::string::npos);
}

TEST(Timing, NoLongerThanAnEmptyRequestIsFlagged) {
  // A runner whose requests take no longer than the overhead did no work
  // the judge could see (its raw times are below the empty request's).
  sg::TimingEvidence e = honest(4.0, 4.0, 0.2);
  for (double& s : e.student_ms) s = 0.15;
  e.cublas_ms = 0;
  const sg::Timing t = sg::evaluate_timing(e);
  EXPECT_TRUE(t.implausible);
  EXPECT_NE(t.implausible_reason.find("launches nothing"), std::string::npos) << t.implausible_reason;
}

TEST(Timing, MissingBaselinesAreNoTiming) {
  sg::TimingEvidence e = honest(4.0, 4.0);
  e.overhead_ms.clear();
  EXPECT_TRUE(sg::evaluate_timing(e).implausible);
  e = honest(4.0, 4.0);
  e.reference_ms.clear();
  const sg::Timing t = sg::evaluate_timing(e);
  EXPECT_TRUE(t.implausible);
  EXPECT_EQ(t.speedup, 0.0);
}

}  // namespace
