// The GPU's record of a batch's baselines (measure/baseline_book.h): when a
// record may stand for a grading's baselines, when fresh ones may be kept,
// and the file beside the lock (kept, found, replaced; nothing found in a
// missing or spoilt file).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "measure/baseline_book.h"
#include "measure/timed_case.h"
#include "words/timing_log.h"
#include "words/timing_report.h"

namespace fs = std::filesystem;

namespace {

sg::Case perf_case() {
  sg::Case c;
  c.name = "perf";
  c.m = 2048;
  c.k = 1024;
  c.n = 512;
  c.has_performance = true;
  c.performance.samples = 15;
  c.performance.warmups = 3;
  return c;
}

// Fresh baselines whose reference ran at `ms`, and a grading's pace at `pace`.
sg::TimingEvidence evidence(double ms, double pace) {
  sg::TimingEvidence e;
  e.yardstick_event_ms = {pace, pace, pace};
  e.probe_event_ms = {pace, pace};
  e.reference_event_ms = {ms, ms, ms};
  e.reference_ms = {ms + 0.2, ms + 0.2, ms + 0.2};
  e.overhead_ms = {0.2, 0.2, 0.2};
  e.naive_ms = {3 * ms};
  e.naive_event_ms = {3 * ms};
  e.cublas_ms = ms / 6;
  return e;
}

class BaselineBookTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("sg-baseline-book-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string lock() const { return (dir_ / "gpu0.lock").string(); }
  fs::path dir_;
};

TEST(BaselineRecord, StandsOnlyYoungAtThePaceAndAfterAQuietTake) {
  using sg::RecordRefusal;
  const sg::BaselineRecord r = sg::record_of("k", evidence(2.0, 2.0), 1000);
  EXPECT_EQ(sg::record_refusal(r, 2.0, 0.0, 1010), RecordRefusal::None);
  EXPECT_EQ(sg::record_refusal(r, 2.0 * (1 + sg::kRecordAgreement / 2), 0.0, 1010), RecordRefusal::None);
  // A GPU faster or slower than the record, beyond the agreement: timed afresh.
  EXPECT_EQ(sg::record_refusal(r, 2.0 * (1 - 2 * sg::kRecordAgreement), 0.0, 1010), RecordRefusal::PaceDiffers);
  EXPECT_EQ(sg::record_refusal(r, 2.0 * (1 + 2 * sg::kRecordAgreement), 0.0, 1010), RecordRefusal::PaceDiffers);
  EXPECT_EQ(sg::record_refusal(r, 0.0, 0.0, 1010), RecordRefusal::PaceDiffers);  // no pace seen
  // Too old, or from the future (another clock): timed afresh.
  EXPECT_EQ(sg::record_refusal(r, 2.0, 0.0, 1000 + sg::kRecordMaxAgeS + 1), RecordRefusal::TooOld);
  EXPECT_EQ(sg::record_refusal(r, 2.0, 0.0, 999), RecordRefusal::TooOld);
  // The student's take disturbed: its pace says little.
  EXPECT_EQ(sg::record_refusal(r, 2.0, 2 * sg::kDisturbedSpread, 1010), RecordRefusal::TakeDisturbed);
  // Several failed: the first of the conditions is named.
  EXPECT_EQ(sg::record_refusal(r, 2.1, 2 * sg::kDisturbedSpread, 1010), RecordRefusal::TakeDisturbed);
  EXPECT_EQ(sg::record_refusal(r, 2.1, 2 * sg::kDisturbedSpread, 999), RecordRefusal::TooOld);
  sg::BaselineRecord part = r;
  part.baselines.overhead_ms.clear();
  EXPECT_EQ(sg::record_refusal(part, 2.0, 0.0, 1010), RecordRefusal::Incomplete);
}

TEST(BaselineRecord, KeptOnlyFromAQuietTakeAtTheGradingsPace) {
  EXPECT_TRUE(sg::worth_keeping(evidence(2.0, 2.0), 0.0));
  EXPECT_FALSE(sg::worth_keeping(evidence(2.0, 2.0), 2 * sg::kDisturbedSpread));
  // Baselines slower than the grading's own pace (a burst beside them): not kept.
  EXPECT_FALSE(sg::worth_keeping(evidence(2.0 * (1 + 2 * sg::kRecordAgreement), 2.0), 0.0));
  sg::TimingEvidence no_pace = evidence(2.0, 2.0);
  no_pace.yardstick_event_ms.clear();
  no_pace.probe_event_ms.clear();
  EXPECT_FALSE(sg::worth_keeping(no_pace, 0.0));
}

TEST(BaselineRecord, KeysDifferBySizeSamplesAndRunner) {
  sg::Case c = perf_case();
  const std::string key = sg::record_key(c, "/build/baseline_runner");
  EXPECT_NE(key, sg::record_key(c, "/other/baseline_runner"));
  c.performance.samples = 7;
  EXPECT_NE(key, sg::record_key(c, "/build/baseline_runner"));
  c = perf_case();
  c.n = 513;
  EXPECT_NE(key, sg::record_key(c, "/build/baseline_runner"));
}

TEST_F(BaselineBookTest, KeptRecordsAreFoundAndReplaced) {
  const sg::BaselineBook book(lock());
  ASSERT_TRUE(book.enabled());
  EXPECT_FALSE(book.find("a").has_value());  // no file yet
  book.keep(sg::record_of("a", evidence(2.0, 2.0), 1000));
  book.keep(sg::record_of("b", evidence(4.0, 4.0), 1001));
  book.keep(sg::record_of("a", evidence(2.1, 2.1), 1002));
  const std::optional<sg::BaselineRecord> a = book.find("a");
  ASSERT_TRUE(a.has_value());
  EXPECT_DOUBLE_EQ(a->measured_at, 1002);
  EXPECT_DOUBLE_EQ(sg::median(a->baselines.reference_event_ms), 2.1);
  EXPECT_DOUBLE_EQ(a->baselines.cublas_ms, 2.1 / 6);
  const std::optional<sg::BaselineRecord> b = sg::BaselineBook(lock()).find("b");  // another process's view
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->baselines.naive_ms.size(), 1u);
  EXPECT_FALSE(book.find("c").has_value());
}

TEST_F(BaselineBookTest, ASpoiltFileFindsNothingAndIsReplaced) {
  const sg::BaselineBook book(lock());
  for (const char* text : {"not json", "{\"key\": 1}", "[{\"key\": \"a\", \"measured_at\": \"x\"}]",
                           "[{\"key\": \"a\", \"measured_at\": 1, \"cublas_ms\": 1, "
                           "\"overhead_ms\": [\"x\"], \"reference_ms\": [], \"naive_ms\": [], "
                           "\"reference_event_ms\": [], \"naive_event_ms\": []}]"}) {
    std::ofstream(lock() + ".baselines") << text;
    EXPECT_FALSE(book.find("a").has_value()) << text;
  }
  book.keep(sg::record_of("a", evidence(2.0, 2.0), 1000));
  EXPECT_TRUE(book.find("a").has_value());
}

TEST(BaselineBookAlone, AGradingAloneHasNoRecords) {
  const sg::BaselineBook book("");
  EXPECT_FALSE(book.enabled());
  book.keep(sg::record_of("a", evidence(2.0, 2.0), 1000));  // nothing to write to
  EXPECT_FALSE(book.find("a").has_value());
}

// A record that stands fills the case's baselines and says so; one that does
// not leaves the case to be timed.
TEST_F(BaselineBookTest, ARecordThatStandsFillsTheBaselines) {
  const sg::Case c = perf_case();
  const sg::BaselineBook book(lock());
  book.keep(sg::record_of(sg::record_key(c, "runner"), evidence(2.0, 2.0), 1000));
  sg::TimedCase t;
  t.c = &c;
  t.evidence.yardstick_event_ms = {2.001, 2.0, 2.002};
  t.evidence.probe_event_ms = {2.0};
  ASSERT_TRUE(sg::take_recorded_baselines(book, "runner", t, 1030));
  EXPECT_TRUE(t.baselines_recorded);
  EXPECT_DOUBLE_EQ(t.record_age_s, 30);
  EXPECT_EQ(t.evidence.reference_event_ms.size(), 3u);
  EXPECT_DOUBLE_EQ(t.evidence.cublas_ms, 2.0 / 6);
  sg::TimedCase other;
  other.c = &c;
  other.evidence.yardstick_event_ms = {1.9, 1.9, 1.9};  // the GPU now faster: the record is stale
  EXPECT_FALSE(sg::take_recorded_baselines(book, "runner", other, 1030));
  EXPECT_FALSE(other.baselines_recorded);
  EXPECT_EQ(other.record_refused, sg::RecordRefusal::PaceDiffers);
  EXPECT_NEAR(other.record_gap, 0.05, 1e-9);
  EXPECT_EQ(sg::record_not_taken_log_line(other),
            "the GPU's record of the baselines of perf not taken: its reference ran 5.00% from this grading's pace "
            "(at most 0.30%)");
  EXPECT_TRUE(other.evidence.reference_event_ms.empty());
  EXPECT_FALSE(sg::take_recorded_baselines(book, "another runner", t, 1030));
}

// The report's detail says whose baselines a speedup used.
TEST(BaselineRecord, TheReportSaysTheBaselinesCameFromTheRecord) {
  const sg::Case c = perf_case();
  sg::TimedCase t;
  t.c = &c;
  t.evidence = evidence(2.0, 2.0);
  t.evidence.student_ms = t.evidence.reference_ms;
  t.evidence.student_event_ms = t.evidence.reference_event_ms;
  t.evidence.student_after_probe.assign(3, false);
  t.baselines_recorded = true;
  t.record_age_s = 30;
  t.record_gap = 0.0012;
  sg::TestResult p;
  p.max_score = 1;
  (void)sg::record_timing(p, t);
  EXPECT_NE(p.detail.find("the baselines (reference, naive, an empty request, cuBLAS) were those another grading of "
                          "this batch measured on this GPU 30 s earlier: this grading's reference launches ran at "
                          "their pace (within 0.12%)"),
            std::string::npos)
      << p.detail;
  t.baselines_recorded = false;
  sg::TestResult q;
  (void)sg::record_timing(q, t);
  EXPECT_EQ(q.detail.find("another grading"), std::string::npos) << q.detail;
}

TEST(BaselineRecord, TheLogSaysWhoseBaselinesAndHowClose) {
  EXPECT_EQ(sg::recorded_baselines_log_line("perf_2048", 12.34, 0.0008),
            "the baselines of perf_2048 from this GPU's record, measured 12.3 s ago (its reference 0.08% from this "
            "grading's pace)");
  EXPECT_EQ(sg::baselines_not_recorded_log_line("cannot write x"),
            "the baselines were not kept as this GPU's record: cannot write x");
  const sg::Case c = perf_case();
  sg::TimedCase t;
  t.c = &c;
  EXPECT_EQ(sg::record_not_taken_log_line(t), "") << "a record that stood, or none";
  t.record_refused = sg::RecordRefusal::TooOld;
  t.record_age_s = 412;
  EXPECT_EQ(sg::record_not_taken_log_line(t),
            "the GPU's record of the baselines of perf not taken: measured 412 s ago (at most 300 s)");
  t.record_refused = sg::RecordRefusal::TakeDisturbed;
  t.student_disturbance = 0.052;
  EXPECT_EQ(sg::record_not_taken_log_line(t),
            "the GPU's record of the baselines of perf not taken: this grading's take was disturbed (5.2%, at most 3%)");
  t.record_refused = sg::RecordRefusal::Incomplete;
  EXPECT_EQ(sg::record_not_taken_log_line(t),
            "the GPU's record of the baselines of perf not taken: it lacks some of the baselines");
}

}  // namespace

// A grading alone's own record, timed while its submission built
// (pipeline/early_baselines.h): taken under the same rule as a batch's, and
// said to be its own in the log and the report.
TEST(EarlyRecord, StandsUnderTheBatchRuleAndSaysItsOwn) {
  const sg::Case c = perf_case();
  const std::optional<sg::BaselineRecord> r = sg::record_of(sg::record_key(c, "runner"), evidence(2.0, 2.0), 1000);
  sg::TimedCase t;
  t.c = &c;
  t.record_timed_early = true;
  t.evidence.yardstick_event_ms = {2.001, 2.0, 2.002};
  t.evidence.probe_event_ms = {2.0};
  ASSERT_TRUE(sg::take_record(r, t, 1003));
  EXPECT_TRUE(t.baselines_recorded);
  EXPECT_DOUBLE_EQ(t.record_age_s, 3);
  EXPECT_DOUBLE_EQ(t.evidence.cublas_ms, 2.0 / 6);
  EXPECT_FALSE(sg::take_record(std::nullopt, t, 1003)) << "no record: the baselines are timed after the samples";
  sg::TimedCase faster;
  faster.c = &c;
  faster.record_timed_early = true;
  faster.evidence.yardstick_event_ms = {1.99, 1.99, 1.99};  // 0.5% from the record: beyond the agreement
  EXPECT_FALSE(sg::take_record(r, faster, 1003));
  EXPECT_EQ(faster.record_refused, sg::RecordRefusal::PaceDiffers);
  EXPECT_TRUE(faster.evidence.reference_event_ms.empty());
  EXPECT_EQ(sg::record_not_taken_log_line(faster),
            "the baselines of perf timed while the submission built not taken: its reference ran 0.50% from this "
            "grading's pace (at most 0.30%)");
  EXPECT_EQ(sg::early_record_log_line("perf", 2.04, 0.0011),
            "the baselines of perf timed while the submission built, 2.0 s ago (its reference 0.11% from this "
            "grading's pace)");
  t.evidence.student_ms = t.evidence.reference_ms;
  t.evidence.student_event_ms = t.evidence.reference_event_ms;
  t.evidence.student_after_probe.assign(3, false);
  sg::TestResult p;
  p.max_score = 1;
  (void)sg::record_timing(p, t);
  EXPECT_NE(p.detail.find("were timed while the submission compiled, 3 s earlier, the GPU idle but for them"),
            std::string::npos)
      << p.detail;
  EXPECT_EQ(p.detail.find("another grading"), std::string::npos) << p.detail;
}

TEST(EarlyRecord, TheLogSaysWhyATakeWasNotKept) {
  EXPECT_EQ(sg::early_baselines_log_line("perf_2048"),
            "timing the baselines of perf_2048 while the submission builds (the GPU idles meanwhile)");
  EXPECT_EQ(sg::early_baselines_not_kept_log_line("perf_2048", sg::early_disturbed(0.041)),
            "the baselines of perf_2048 timed while the submission builds are not kept: their take was disturbed "
            "(4.1%, at most 3%)");
  EXPECT_EQ(sg::early_baselines_not_kept_log_line("perf_2048", sg::early_wrong_output()),
            "the baselines of perf_2048 timed while the submission builds are not kept: the reference's output was "
            "wrong");
}
