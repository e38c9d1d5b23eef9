// The timing rules over the judge's own figures: overhead subtracted,
// speedup, partial credit, and every reason to award nothing.
#include <gtest/gtest.h>

#include "measure/timing.h"
#include "words/timing_report.h"

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
  const sg::TimingEvidence e = honest(4.0, 4.0, 0.05);
  sg::Timing t = sg::evaluate_timing(e);
  EXPECT_FALSE(t.implausible) << sg::implausible_reason(e, t);
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
  // The fastest quarter of requests (4.2 ms), less the reference requests' cost beyond the launch (0.21), less 3%.
  EXPECT_NEAR(t.student_floor_ms, 4.2 - 0.21 - 0.03 * 4.2, 1e-9);
  EXPECT_FALSE(t.student_floor_used);
  EXPECT_NEAR(t.student_spread, 0.08 / 4.03, 1e-9);
}

TEST(Timing, AnUnderReportingRunnerGetsTheJudgesFloor) {
  sg::TimingEvidence e = with_events(4.0, 4.0);
  for (double& ms : e.student_event_ms) ms = 0.001;  // a runner that claims its kernel took no time
  const sg::Timing t = sg::evaluate_timing(e);
  EXPECT_TRUE(t.student_floor_used);
  EXPECT_NEAR(t.student_ms, 4.2 - 0.21 - 0.03 * 4.2, 1e-9);
  // What it gained over its honest self (3.99 to 4.07 ms, median 4.03) is the
  // slack and its own spread between its fastest quarter and its median, no more.
  const double honest_ms = 4.03, fastest_quarter_ms = 3.99;
  EXPECT_LE(t.speedup / (3.99 / honest_ms), honest_ms / (fastest_quarter_ms - 0.03 * 4.2) + 1e-9);
  EXPECT_GE(t.student_ms, fastest_quarter_ms - 0.03 * 4.2 - 1e-9);
}

TEST(Timing, AFewDelayedRequestsLeaveAnHonestRunnerOnItsEvents) {
  sg::TimingEvidence e = with_events(4.0, 4.0);
  for (int i = 0; i < 4; ++i) e.student_ms[i] += 0.5;  // 4 of 9 requests woke late
  const sg::Timing t = sg::evaluate_timing(e);
  EXPECT_FALSE(t.student_floor_used);
  EXPECT_NEAR(t.student_ms, 4.03, 1e-9);  // its own median event time
  EXPECT_FALSE(t.implausible) << sg::implausible_reason(e, t);
}

// One grading of the reference in a batch of 24 on the H100 (perf_2048): a
// burst of another process's work delayed 8 of its 15 requests in a row by
// 0.2-1.8 ms and its kernel by up to 3%. A floor taken sample by sample gave
// 2.210 ms and a speedup of 0.9545 against the reference's 2.110 ms.
TEST(Timing, ABurstThatDelaysMostRequestsLeavesAnHonestRunnerOnItsEvents) {
  sg::TimingEvidence e;
  e.m = e.n = e.k = 2048;
  e.student_ms = {2.353, 2.344, 2.403, 2.365, 2.345, 2.342, 2.553, 2.978,
                  2.909, 4.124, 2.998, 3.033, 2.73,  2.586, 2.484};
  e.student_event_ms = {2.109, 2.11,  2.11,  2.109, 2.111, 2.109, 2.111, 2.143,
                        2.152, 2.169, 2.152, 2.146, 2.128, 2.129, 2.118};
  e.reference_ms = {2.357, 2.354, 2.374, 2.37,  2.385, 2.37,  2.372, 2.385,
                    2.402, 2.393, 2.408, 2.371, 2.361, 2.376, 2.351};
  e.reference_event_ms = {2.109, 2.11, 2.112, 2.108, 2.109, 2.111, 2.108, 2.11,
                          2.109, 2.111, 2.11, 2.109, 2.11,  2.112, 2.11};
  e.overhead_ms = {0.239, 0.216, 0.222, 0.221, 0.221, 0.2,  0.236, 0.237,
                   0.25,  0.232, 0.234, 0.21,  0.257, 0.227, 0.212};
  const sg::Timing t = sg::evaluate_timing(e);
  EXPECT_FALSE(t.student_floor_used);
  EXPECT_NEAR(t.student_ms, 2.118, 1e-9);  // the median event time (the burst slowed the kernel too)
  EXPECT_NEAR(t.speedup, 2.110 / 2.118, 1e-9);
  // The same runner claiming no time at all still gets the floor of its
  // fastest quarter: its clean 2.109 ms less the slack (0.08 ms) and the
  // overheads' difference (0.02 ms).
  for (double& ms : e.student_event_ms) ms = 0.001;
  const sg::Timing lying = sg::evaluate_timing(e);
  EXPECT_TRUE(lying.student_floor_used);
  EXPECT_GT(lying.student_ms, 2.109 - 0.08 - 0.02);
  EXPECT_LT(lying.speedup, 1.06);
}

// The judge's clock tells a disturbed take from a steady one (H100
// figures): the 15 requests of a clean grading, and those of the grading
// whose burst put its speedup at 0.988 in a run of ten.
TEST(Timing, RequestSpreadTellsADisturbedTakeFromASteadyOne) {
  const std::vector<double> steady = {2.324, 2.345, 2.335, 2.343, 2.35, 2.337, 2.336, 2.322,
                                      2.342, 2.341, 2.344, 2.337, 2.329, 2.352, 2.33};
  const std::vector<double> burst = {2.334, 2.61, 3.117, 3.052, 2.92,  3.015, 3.036, 2.802,
                                     2.587, 2.507, 2.533, 2.472, 2.427, 2.406, 2.45};
  EXPECT_LT(sg::request_spread(steady), 0.01);
  EXPECT_GT(sg::request_spread(burst), sg::kDisturbedSpread);
  // Quartiles: one slow request among 15 does not count as a disturbance.
  std::vector<double> one_late = steady;
  one_late[4] = 4.0;
  EXPECT_LT(sg::request_spread(one_late), sg::kDisturbedSpread);
  EXPECT_EQ(sg::request_spread({1.0, 2.0}), 0.0);  // too few to say
}

// A take slowed as a whole has steady requests; the reference launches
// beside it show the slowdown (seen on the H100: 0.942 and 1.097 against
// itself in a batch, every take steady).
TEST(Timing, ATakeTheGpuRanSlowerAsAWholeIsDisturbed) {
  sg::TimingEvidence e = with_events(4.0, 4.0);
  e.yardstick_event_ms = {4.00, 4.01, 3.99, 4.02, 4.00};
  e.probe_event_ms = {4.01, 4.00, 4.02, 4.01, 4.00};
  EXPECT_LT(sg::request_spread(e.student_ms), sg::kDisturbedSpread);
  EXPECT_LE(sg::student_take_disturbance(e), sg::kDisturbedSpread);  // steady and at pace
  EXPECT_LE(sg::baseline_take_disturbance(e), sg::kDisturbedSpread);

  sg::TimingEvidence slowed = e;  // the student's window 6% slow throughout
  for (double& p : slowed.probe_event_ms) p *= 1.06;
  EXPECT_NEAR(sg::pace_slowdown(slowed, slowed.probe_event_ms), 4.01 * 1.06 / 3.99 - 1, 1e-9);  // against the fastest
  EXPECT_GT(sg::student_take_disturbance(slowed), sg::kDisturbedSpread);
  // Its probes were slow, not fast: the baselines are still held to the yardstick.
  EXPECT_LE(sg::baseline_take_disturbance(slowed), sg::kDisturbedSpread);

  sg::TimingEvidence baselines_slowed = e;  // the baselines' window 9% slow
  for (double& r : baselines_slowed.reference_event_ms) r *= 1.09;
  EXPECT_GT(sg::baseline_take_disturbance(baselines_slowed), sg::kDisturbedSpread);
  EXPECT_LE(sg::student_take_disturbance(baselines_slowed), sg::kDisturbedSpread);
}

// A request right after a probe pays for the GPU's switch back to the
// student's process (6-7% more on the H100 at 2048^3, outside the events):
// it is left out of the take's spread, which otherwise saw every take as
// disturbed.
TEST(Timing, RequestsRightAfterAProbeAreLeftOutOfTheSpread) {
  sg::TimingEvidence e;
  e.yardstick_event_ms = e.probe_event_ms = {4.0, 4.0, 4.0, 4.0};
  for (int i = 0; i < 15; ++i) {  // as perf_2048: probes after samples 2, 5, 8, 11 and 14
    const bool after = i > 0 && i % 3 == 0;
    e.student_after_probe.push_back(after);
    e.student_ms.push_back((4.2 + 0.002 * (i % 4)) * (after ? 1.07 : 1.0));
  }
  EXPECT_GT(sg::request_spread(e.student_ms), sg::kDisturbedSpread);
  EXPECT_LE(sg::student_take_disturbance(e), sg::kDisturbedSpread);
  EXPECT_LT(sg::student_request_spread(e), 0.01);
  for (std::size_t i = 0; i < e.student_ms.size(); ++i)
    if (!e.student_after_probe[i] && i % 2) e.student_ms[i] *= 1.07;  // the others delayed too: disturbed
  EXPECT_GT(sg::student_take_disturbance(e), sg::kDisturbedSpread);
}

// The pace is the fastest launch of the yardstick, not its median: in a batch
// on the H100 3 of 5 yardstick launches ran slow, the probes' median looked
// at pace against the yardstick's, and a take 19% slow was kept (a
// reference scored 0.844 against itself). These are that case's figures.
TEST(Timing, AYardstickMostlySlowedDoesNotHideASlowTake) {
  sg::TimingEvidence e;
  e.yardstick_event_ms = {4.187, 4.187, 5.424, 4.596, 4.598};
  e.probe_event_ms = {4.564, 4.586, 4.186};
  for (int i = 0; i < 11; ++i) e.student_ms.push_back(4.45);  // steady requests: only the pace can tell
  EXPECT_NEAR(sg::pace_slowdown(e, e.probe_event_ms), 4.564 / 4.187 - 1, 1e-9);
  EXPECT_GT(sg::student_take_disturbance(e), sg::kDisturbedSpread);
}

// Retakes: two back to back, then pauses that double, so that a disturbance
// lasting longer than two takes has ended before the last ones.
TEST(Timing, TakesAfterTheSecondComeAfterAPause) {
  EXPECT_EQ(sg::retake_pause_s(1), 0.0);
  EXPECT_EQ(sg::retake_pause_s(2), 0.0);
  EXPECT_EQ(sg::retake_pause_s(3), 0.25);
  EXPECT_EQ(sg::retake_pause_s(4), 0.5);
  EXPECT_EQ(sg::retake_pause_s(5), 1.0);
  double total = 0;
  for (int take = 1; take <= sg::kTimingTakes; ++take) total += sg::retake_pause_s(take);
  EXPECT_LE(total, 2.0);  // what a side disturbed throughout adds to the exclusive hold, at most
}

// The pace is the fastest of the yardstick and the probes: a yardstick that
// was itself slowed does not make a steady take look disturbed, nor hide a
// slow baseline take once the probes ran at pace; and with nothing to
// compare (no yardstick, no probes: the CPU backend) nothing is disturbed.
TEST(Timing, ThePaceIsTheFasterOfYardstickAndProbes) {
  sg::TimingEvidence e = with_events(4.0, 4.0);
  e.yardstick_event_ms = {4.4, 4.4, 4.4};  // slowed
  e.probe_event_ms = {4.0, 4.0, 4.0};
  EXPECT_EQ(sg::pace_slowdown(e, e.probe_event_ms), 0.0);  // faster than the yardstick: no slowdown
  EXPECT_LE(sg::student_take_disturbance(e), sg::kDisturbedSpread);
  for (double& r : e.reference_event_ms) r = 4.3;
  EXPECT_NEAR(sg::pace_slowdown(e, e.reference_event_ms), 0.075, 1e-9);  // against the probes' 4.0
  EXPECT_GT(sg::baseline_take_disturbance(e), sg::kDisturbedSpread);

  sg::TimingEvidence bare = with_events(4.0, 4.0);
  EXPECT_EQ(sg::pace_slowdown(bare, bare.reference_event_ms), 0.0);
  EXPECT_EQ(sg::student_take_disturbance(bare), sg::request_spread(bare.student_ms));
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
  e.first_wrong_output.kind = sg::OutputFault::Kind::FreivaldsFailed;
  e.first_wrong_output.freivalds.rows_failed = 3;
  const sg::Timing t = sg::evaluate_timing(e);
  const std::string why = sg::implausible_reason(e, t);  // said by words/, from the facts
  EXPECT_TRUE(t.timed_output_wrong);
  EXPECT_TRUE(t.implausible);
  EXPECT_NE(why.find("the timed launch's output was wrong"), std::string::npos);
  EXPECT_NE(why.find("14 of 9 samples; 3 of the rows failed Freivalds' check"), std::string::npos) << why;
  sg::Performance p;
  p.points = 7;
  p.zero_at = 0.75;
  p.full_at = 0.95;
  EXPECT_EQ(sg::performance_points(p, t), 0.0);
}

TEST(Timing, OutputFilesReplacedAfterTheRunWereNotCheckedAndEarnNothing) {
  sg::TimingEvidence e = honest(4.0, 4.0);
  e.wrong_outputs = e.unreadable_outputs = 9;
  e.first_wrong_output.kind = sg::OutputFault::Kind::NotRegularFile;
  e.first_wrong_output.file = "timed-output-00000000000000ab.f32";
  const sg::Timing t = sg::evaluate_timing(e);
  const std::string why = sg::implausible_reason(e, t);  // said by words/, from the facts
  EXPECT_TRUE(t.timed_output_wrong);
  EXPECT_NE(why.find("could not be checked"), std::string::npos) << why;
  EXPECT_NE(why.find("timed-output-00000000000000ab.f32 is not a regular file"), std::string::npos) << why;
  EXPECT_EQ(why.find("computed something else"), std::string::npos) << why;
  sg::Performance p;
  p.points = 7;
  EXPECT_EQ(sg::performance_points(p, t), 0.0);
}

TEST(Timing, FasterThanCublasIsFlagged) {
  sg::TimingEvidence e = honest(0.5, 4.0);
  sg::Timing t = sg::evaluate_timing(e);
  const std::string why = sg::implausible_reason(e, t);  // said by words/, from the facts
  EXPECT_TRUE(t.implausible);
  EXPECT_EQ(why.rfind("faster than cuBLAS allows (", 0), 0u) << why;
}

TEST(Timing, NoLongerThanAnEmptyRequestIsFlagged) {
  // A runner whose requests take no longer than the overhead did no work
  // the judge could see (its raw times are below the empty request's).
  sg::TimingEvidence e = honest(4.0, 4.0, 0.2);
  for (double& s : e.student_ms) s = 0.15;
  e.cublas_ms = 0;
  const sg::Timing t = sg::evaluate_timing(e);
  const std::string why = sg::implausible_reason(e, t);  // said by words/, from the facts
  EXPECT_TRUE(t.implausible);
  EXPECT_EQ(why, "the student's requests took 0.150 ms, no longer than one that launches nothing (0.200 ms)");
}

TEST(Timing, MissingBaselinesAreNoTiming) {
  sg::TimingEvidence e = honest(4.0, 4.0);
  e.overhead_ms.clear();
  EXPECT_TRUE(sg::evaluate_timing(e).implausible);
  e = honest(4.0, 4.0);
  e.reference_ms.clear();
  const sg::Timing t = sg::evaluate_timing(e);
  const std::string why = sg::implausible_reason(e, t);  // said by words/, from the facts
  EXPECT_TRUE(t.implausible);
  EXPECT_EQ(why, "no valid timings");
  EXPECT_EQ(t.speedup, 0.0);
}

}  // namespace
