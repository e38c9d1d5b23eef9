// The cases made ahead (Grading::start_making_ahead: in the sanitizer stage,
// or while a grading alone builds): where the oracle is device work, every
// case's oracle is made in one shared hold instead of one hold a case, and
// each case's run then takes the result made for it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "pipeline/grading.h"

namespace sg {
namespace {

// A device backend that counts the shared holds it gives and the oracles it
// computes (an oracle's C64 holds its case's m, so a case can be told by it).
class CountingBackend final : public Backend {
 public:
  int holds = 0, oracles = 0;
  std::atomic<int> sanitizer_runs{0};
  BackendKind kind() const override { return BackendKind::Gpu; }
  std::string device() const override { return "counting"; }
  BuildOutput build(const std::string&, const WorkDir&) override { return {}; }
  RunnerConfig runner_config(const std::string&, const WorkDir&, const std::string&) const override { return {}; }
  std::string cannot_run(const Case&) const override { return ""; }
  // A case named "huge" does not fit the device as it is now.
  std::string cannot_run_now(const Case& c) override { return c.name == "huge" ? "too big" : ""; }
  double case_time_limit(const Case&) const override { return 1; }
  double case_time_limit_after_hang(const Case&) const override { return 1; }
  void oracle(const Case& c, const CaseInputs&, std::vector<double>& c64, std::vector<double>& abs_ab) override {
    ++oracles;
    c64.assign(1, c.m);
    abs_ab.assign(1, 1);
  }
  bool launches_can_differ() const override { return true; }
  void sanitizer(const Check&, const SanitizerContext&, TestResult& t) override {
    ++sanitizer_runs;
    t.status = Status::Passed;
  }
  ReuseMeasurement measure_reuse(const Check&, const SanitizerContext&) override { return {}; }
  std::string why_not_timed() const override { return ""; }
  double roofline_ms(const Case&, const CaseInputs&, int) override { return 0; }
  std::unique_ptr<DeviceHold> shared_hold(SharedHold) override {
    ++holds;
    return std::make_unique<DeviceHold>();
  }
  std::unique_ptr<DeviceHold> exclusive_hold() override { return nullptr; }
  double exclusive_seconds() const override { return 0; }
};

Case small_case(const std::string& name, int m) {
  Case c;
  c.name = name;
  c.m = m;
  c.k = 3;
  c.n = 5;
  return c;
}

class MadeAhead : public testing::Test {
 protected:
  MadeAhead() : g(suite, opts, paths) {
    auto b = std::make_unique<CountingBackend>();
    backend = b.get();
    g.backend = std::move(b);
    g.r.seed = 7;
  }
  Suite suite;
  GradeOptions opts;
  GraderPaths paths;
  Grading g;  // after suite, opts and paths, which it keeps references to
  CountingBackend* backend = nullptr;
};

TEST_F(MadeAhead, EveryCaseIsMadeInOneSharedHold) {
  const Case a = small_case("a", 2), b = small_case("b", 4), c = small_case("c", 6);
  const std::map<std::string, PreparedCase> made = g.prepare_all({&a, &b, &c});
  EXPECT_EQ(backend->holds, 1);
  EXPECT_EQ(backend->oracles, 3);
  ASSERT_EQ(made.size(), 3u);
  EXPECT_EQ(made.at("b").c64.at(0), 4);
  EXPECT_EQ(made.at("c").in.a.size(), 6u * 3);  // its own inputs
  EXPECT_EQ(g.prepare_all({}).size(), 0u);
  EXPECT_EQ(backend->holds, 1) << "no hold for nothing to make";
}

TEST_F(MadeAhead, ACaseTakesWhatWasMadeForItOnceAndOthersAreMadeAtTheirTurn) {
  const Case a = small_case("a", 2), b = small_case("b", 4), other = small_case("other", 9);
  g.making_ahead = std::async(std::launch::async, [this, &a, &b] { return g.prepare_all({&a, &b}); });
  const PreparedCase pa = g.take_prepared(a);
  EXPECT_EQ(backend->holds, 1) << "the case made ahead needs no hold of its own";
  EXPECT_EQ(pa.c64.at(0), 2);
  const PreparedCase po = g.take_prepared(other);
  EXPECT_EQ(backend->holds, 2);
  EXPECT_EQ(po.c64.at(0), 9);
  (void)g.take_prepared(a);  // taken already: made again
  EXPECT_EQ(backend->holds, 3);
  EXPECT_EQ(backend->oracles, 4);
  const PreparedCase same = g.prepare(a);
  EXPECT_EQ(same.in.a, pa.in.a) << "made ahead or not, a case's inputs come from the grading's seed";
}

// Alone, the cases are made while the submission builds: no oracle before
// the baselines' takes leave the GPU (gpu_free), none once the build failed
// (stop_making_ahead) and none the device cannot hold, the cases left out
// made at their turn.
TEST_F(MadeAhead, TheOraclesWaitForTheGpuAndStopWhereNoCaseWillRun) {
  const Case a = small_case("a", 2), b = small_case("b", 4);
  std::promise<void> free;
  g.making_ahead = std::async(std::launch::async, [this, &a, &b, gpu_free = free.get_future().share()] {
    return g.prepare_all({&a, &b}, gpu_free);
  });
  EXPECT_EQ(g.making_ahead.wait_for(std::chrono::milliseconds(200)), std::future_status::timeout);
  EXPECT_EQ(backend->oracles, 0) << "an oracle while the GPU was not free";
  g.stop_making_ahead = true;
  free.set_value();
  EXPECT_TRUE(g.cases_made_ahead().empty()) << "cases made after the build failed";
  EXPECT_EQ(backend->oracles, 0);
  g.stop_making_ahead = false;
  EXPECT_EQ(g.take_prepared(b).c64.at(0), 4);  // made at its turn
  EXPECT_EQ(backend->oracles, 1);
  // The cases were chosen before the device was described: one it cannot
  // hold now is left out (set aside at its turn), not computed.
  const Case huge = small_case("huge", 8);
  const std::map<std::string, PreparedCase> made = g.prepare_all({&a, &huge});
  EXPECT_EQ(made.count("huge"), 0u);
  EXPECT_EQ(made.count("a"), 1u);
  EXPECT_EQ(backend->oracles, 2);
}

// Only a grading alone with cases to time, its runners sandboxed, runs its
// sanitizer last (pipeline/grading.h): once, on a second thread, its result
// in the sanitizer's test; a grading in a batch (a GPU lock), unsandboxed or
// with nothing to time runs it before the cases, and the last-sanitizer calls
// do nothing.
using SanitizerLast = MadeAhead;

TEST_F(SanitizerLast, OnlyAGradingAloneWithCasesToTimeRunsItLastAndOnce) {
  Case perf = small_case("perf", 8);
  perf.has_performance = true;
  Check san;
  san.name = "sanitizer";
  san.kind = CheckKind::Sanitizer;
  suite.checks.push_back(san);
  TestResult t;
  t.name = "sanitizer";
  g.r.tests.push_back(t);
  EXPECT_FALSE(g.sanitizer_last()) << "nothing to time";
  g.finish_sanitizer();
  EXPECT_EQ(backend->sanitizer_runs, 0);
  suite.cases.push_back(perf);
  EXPECT_FALSE(g.sanitizer_last()) << "no sandbox: a tool's run could reach the timed outputs";
  g.runner_config.sandbox.bwrap = "/usr/bin/bwrap";
  opts.gpu_lock = "/tmp/some-gpu.lock";
  EXPECT_FALSE(g.sanitizer_last()) << "a batch's grading";
  opts.gpu_lock.clear();
  ASSERT_TRUE(g.sanitizer_last());
  g.start_sanitizer();
  g.start_sanitizer();  // once started, not again
  g.finish_sanitizer();
  g.finish_sanitizer();  // waited for once; not run again
  EXPECT_EQ(backend->sanitizer_runs, 1);
  EXPECT_EQ(g.r.tests[0].status, Status::Passed);
}

}  // namespace
}  // namespace sg
