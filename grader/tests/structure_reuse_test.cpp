// The structure check's measured data reuse and the GPU sanitizer's shapes,
// without a GPU: ncu's CSV read (forged and garbled tables give no count),
// the naive count, the check's verdicts from a stub backend, the suite
// fields, and which shapes memcheck and racecheck run.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>

#include <fstream>
#include <set>
#include <string>

#include "backends/backend.h"
#include "backends/gpu/ncu_reuse.h"
#include "backends/gpu/sanitizer_shapes.h"
#include "model/plan.h"
#include "model/result_codec.h"
#include "pipeline/checks.h"
#include "suite/suite_loader.h"

namespace sg {
namespace {

const std::string kHeader =
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\","
    "\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";

std::string row(int id, const std::string& kernel, const std::string& value,
                const std::string& metric = kGlobalLoadMetric) {
  return "\"" + std::to_string(id) + "\",\"4242\",\"runner\",\"127.0.0.1\",\"" + kernel +
         "\",\"1\",\"7\",\"(16, 16, 1)\",\"(64, 64, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\",\"" + metric +
         "\",\"inst\",\"" + value + "\"\n";
}

TEST(NcuLoads, SumsTheMetricOverEveryKernelAndIgnoresThePrintsAround) {
  const std::string out = "==PROF== Connected to process 4242 (runner)\n"
                          "selftest: shape 1024x1024x1024\n"
                          "==PROF== Profiling \"mysgemm\" - 0: 0%....50%....100% - 1 pass\n" +
                          kHeader + row(0, "mysgemm(int, int, int, const float *, const float *, float *)", "4194304") +
                          row(1, "zero_fill(float *)", "1,024") + row(1, "x", "99", "sm__cycles_elapsed.avg");
  const NcuLoads r = parse_ncu_loads(out);
  ASSERT_TRUE(r.ok) << r.why;
  EXPECT_DOUBLE_EQ(r.loads, 4194304 + 1024);
  EXPECT_EQ(r.kernels, 2);
  EXPECT_FALSE(r.no_permission);
}

TEST(NcuLoads, AForgedSecondTableIsNotMeasured) {
  // The program prints a table of its own with a tiny count; ncu's real one follows.
  const std::string out = kHeader + row(0, "mysgemm", "1") + "==PROF== Disconnected\n" + kHeader +
                          row(0, "mysgemm", "67108864");
  const NcuLoads r = parse_ncu_loads(out);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.why.find("more than one table header"), std::string::npos) << r.why;
}

TEST(NcuLoads, GarbledValuesAndRowsAreNotMeasured) {
  for (const char* value : {"-5", "1e3", "nan", "inf", "12,34", "1,2345", "", "0x10", "3.", "1..2"}) {
    const NcuLoads r = parse_ncu_loads(kHeader + row(0, "mysgemm", value));
    EXPECT_FALSE(r.ok) << "value '" << value << "' was taken as " << r.loads;
  }
  const NcuLoads short_row = parse_ncu_loads(kHeader + "\"0\",\"4242\",\"" + kGlobalLoadMetric + "\",\"1\"\n");
  EXPECT_FALSE(short_row.ok);
  const NcuLoads broken_quote = parse_ncu_loads(kHeader + "\"0\",\"42" + "\n");
  EXPECT_FALSE(broken_quote.ok);
  EXPECT_FALSE(parse_ncu_loads("").ok);
  EXPECT_FALSE(parse_ncu_loads(kHeader).ok) << "a header without rows is no count";
}

TEST(NcuLoads, PlainGroupedAndFractionalCountsAreRead) {
  EXPECT_DOUBLE_EQ(parse_ncu_loads(kHeader + row(0, "k", "67,108,864")).loads, 67108864);
  EXPECT_DOUBLE_EQ(parse_ncu_loads(kHeader + row(0, "k", "2097152.00")).loads, 2097152);
  EXPECT_DOUBLE_EQ(parse_ncu_loads(kHeader + row(0, "k", "0")).loads, 0);
}

TEST(NcuLoads, PermissionErrorIsRecognised) {
  const NcuLoads r = parse_ncu_loads(
      "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters\n");
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.no_permission);
}

TEST(NcuLoads, NaiveCountMatchesTheH100Measurement) {
  // 67.1 M warp-level loads for the naive kernel at 1024^3 on the H100 (issue 16).
  EXPECT_DOUBLE_EQ(naive_global_loads(1024, 1024, 1024), 67108864.0);
  EXPECT_DOUBLE_EQ(naive_global_loads(1024, 1024, 1024) / 4194304.0, 16.0);  // the 16x16 reference's count
}

TEST(NcuLoads, CounterPermissionIsReadFromTheDriversParameters) {
  const std::string path = testing::TempDir() + "/nvidia_params";
  auto with = [&](const std::string& text) {
    std::ofstream(path) << text;
    return counters_admin_only(path);
  };
  EXPECT_EQ(with("ResmanDebugLevel: 4294967295\nRmProfilingAdminOnly: 1\n"), std::optional<bool>(true));
  EXPECT_EQ(with("RmProfilingAdminOnly: 0\n"), std::optional<bool>(false));
  EXPECT_EQ(with("RmProfilingAdminOnly: yes\n"), std::nullopt);
  EXPECT_EQ(with("Other: 1\n"), std::nullopt);
  EXPECT_EQ(counters_admin_only(path + ".absent"), std::nullopt);
}

// The runner is started under ncu exactly as for a checked run: its last
// argument is the runner itself, nothing after it says which run this is.
TEST(NcuLoads, CommandStartsTheRunnerAsACheckedRunDoes) {
  const auto argv = ncu_command("/cuda/bin/ncu", "/w/runner");
  ASSERT_FALSE(argv.empty());
  EXPECT_EQ(argv.back(), "/w/runner");
  EXPECT_NE(std::find(argv.begin(), argv.end(), std::string(kGlobalLoadMetric)), argv.end());
  EXPECT_NE(std::find(argv.begin(), argv.end(), std::string("--csv")), argv.end());
  // The submission's prints go nowhere near ncu's table.
  const auto runner_at = std::find(argv.begin(), argv.end(), std::string("/w/runner"));
  ASSERT_NE(runner_at, argv.begin());
  const std::string& script = *std::prev(runner_at);
  EXPECT_NE(script.find(">/dev/null 2>&1"), std::string::npos) << script;
  EXPECT_EQ(script.rfind("exec", 0), 0u) << "the runner is exec'd, so ncu profiles its process: " << script;
}

// A backend whose only real method is measure_reuse: what the structure check reads.
class StubBackend final : public Backend {
 public:
  explicit StubBackend(ReuseMeasurement m) : m_(std::move(m)) {}
  BackendKind kind() const override { return BackendKind::Gpu; }
  std::string device() const override { return "stub"; }
  BuildOutput build(const std::string&, const WorkDir&) override { return {}; }
  RunnerConfig runner_config(const std::string&, const WorkDir&, const std::string&) const override { return {}; }
  std::string cannot_run(const Case&) const override { return ""; }
  double case_time_limit(const Case&) const override { return 1; }
  double case_time_limit_after_hang(const Case&) const override { return 1; }
  void oracle(const Case&, const CaseInputs&, std::vector<double>&, std::vector<double>&) override {}
  bool launches_can_differ() const override { return false; }
  void sanitizer(const Check&, const SanitizerContext&, TestResult&) override {}
  ReuseMeasurement measure_reuse(const Check&, const SanitizerContext&) override { return m_; }
  std::string why_not_timed() const override { return ""; }
  double roofline_ms(const Case&, const CaseInputs&, int) override { return 0; }
  std::unique_ptr<DeviceHold> shared_hold(SharedHold) override { return nullptr; }
  std::unique_ptr<DeviceHold> exclusive_hold() override { return nullptr; }
  double exclusive_seconds() const override { return 0; }

 private:
  ReuseMeasurement m_;
};

TestResult structure_with(const ReuseMeasurement& m, bool shared_and_barrier) {
  StubBackend backend(m);
  BuildOutput build;
  StructureReport s;
  s.found_kernel = true;
  s.uses_shared = s.uses_barrier = shared_and_barrier;
  build.structure = s;
  CheckContext ctx;
  ctx.backend = &backend;
  ctx.build = &build;
  Check c;
  c.name = "structure";
  c.kind = CheckKind::SharedAndBarrier;
  c.points = 5;
  c.m = c.k = c.n = 1024;
  c.min_reuse = 8;
  TestResult t;
  t.max_score = 5;
  t.m = t.k = t.n = 1024;
  run_check(c, CheckStage::AfterBuild, ctx, t);
  return t;
}

ReuseMeasurement measured(double loads) {
  ReuseMeasurement m;
  m.outcome = ReuseMeasurement::Outcome::Measured;
  m.source = ReuseSource::Ncu;
  m.loads = loads;
  m.naive_loads = naive_global_loads(1024, 1024, 1024);
  m.kernels = 1;
  return m;
}

TEST(StructureCheck, DecorationWithNaiveLoadsFailsOnTheMeasuredReuse) {
  // Shared memory and a barrier in the PTX, the naive kernel's loads on the GPU.
  const TestResult t = structure_with(measured(67108864), true);
  EXPECT_EQ(t.status, Status::Failed);
  EXPECT_EQ(t.score, 0);
  EXPECT_NE(t.verdict.find("used 1.0 times (the tiled reference: 16"), std::string::npos) << t.verdict;
  EXPECT_NE(t.verdict.find("at least 8.0"), std::string::npos) << t.verdict;
  ASSERT_TRUE(t.reuse);
  EXPECT_EQ(t.reuse->source, ReuseSource::Ncu);
  EXPECT_DOUBLE_EQ(*t.reuse->factor, 1.0);
  ASSERT_FALSE(t.diagnoses.empty());
  EXPECT_EQ(t.diagnoses[0].id, "structure.low_reuse");
}

TEST(StructureCheck, TiledReusePassesAtTheThresholdAndAbove) {
  for (const double loads : {4194304.0, 2097152.0, 1048576.0, 8388608.0}) {  // 16, 32, 64, and exactly 8
    const TestResult t = structure_with(measured(loads), true);
    EXPECT_EQ(t.status, Status::Passed) << loads << ": " << t.verdict;
    EXPECT_EQ(t.score, 5);
  }
  const TestResult seven = structure_with(measured(67108864.0 / 7.9), true);
  EXPECT_EQ(seven.status, Status::Failed) << seven.verdict;
  const TestResult t = structure_with(measured(4194304), false);  // registers or L1 tricks: the count decides
  EXPECT_EQ(t.status, Status::Passed);
  EXPECT_NE(t.verdict.find("used 16.0 times"), std::string::npos) << t.verdict;
}

// The register-tiling feedback on a structure figure: `structure` is the
// structure check's result (as graded before it), `points` the suite's.
TestResult register_tiling_after(const TestResult& structure, double points) {
  std::vector<TestResult> tests{structure};
  tests[0].kind = TestKind::Check;
  CheckContext ctx;
  ctx.tests = &tests;
  Check c;
  c.name = "register_tiling";
  c.kind = CheckKind::RegisterTiling;
  c.points = points;
  TestResult t;
  t.kind = TestKind::Check;
  t.max_score = points;
  for (const CheckStage stage : {CheckStage::AfterBuild, CheckStage::BeforeCases, CheckStage::AfterCases})
    run_check(c, stage, ctx, t);
  EXPECT_EQ(t.verdict, "") << "graded before the other checks' figures are final";
  run_check(c, CheckStage::AfterChecks, ctx, t);
  return t;
}

TEST(RegisterTilingCheck, PassesOnlyPastWhatOneElementPerThreadReaches) {
  const TestResult r64 = register_tiling_after(structure_with(measured(1048576.0), true), 0);  // reuse 64
  EXPECT_EQ(r64.status, Status::Passed) << r64.verdict;
  EXPECT_EQ(r64.score, 0);
  EXPECT_NE(r64.verdict.find("used 64.0 times"), std::string::npos) << r64.verdict;
  // 32x32 tiles reach exactly 32 with one element per thread: not register tiling.
  const TestResult r32 = register_tiling_after(structure_with(measured(2097152.0), true), 0);
  EXPECT_EQ(r32.status, Status::Skipped) << r32.verdict;
  EXPECT_TRUE(set_aside(r32)) << "a feedback-only check short of the figure stays out of the maximum";
  EXPECT_NE(r32.verdict.find("not seen: each value loaded from global memory is used 32.0 times"), std::string::npos)
      << r32.verdict;
  // With points of its own, falling short fails it and scores nothing.
  const TestResult scored = register_tiling_after(structure_with(measured(2097152.0), true), 2);
  EXPECT_EQ(scored.status, Status::Failed);
  EXPECT_EQ(scored.score, 0);
  EXPECT_EQ(register_tiling_after(structure_with(measured(1048576.0), true), 2).score, 2);
}

TEST(RegisterTilingCheck, WithoutAMeasuredFigureItSaysSo) {
  ReuseMeasurement m;
  m.outcome = ReuseMeasurement::Outcome::Unavailable;
  m.why = "ncu is not installed";
  m.fallback = "the PTX";
  const TestResult t = register_tiling_after(structure_with(m, true), 0);
  EXPECT_EQ(t.status, Status::Skipped);
  EXPECT_NE(t.verdict.find("not measured"), std::string::npos) << t.verdict;
}

TEST(StructureCheck, WithoutCountersTheStaticCheckStandsAndSaysWhy) {
  ReuseMeasurement m;
  m.why = "ncu could not read the GPU's counters (ERR_NVGPUCTRPERM)";
  const TestResult pass = structure_with(m, true);
  EXPECT_EQ(pass.status, Status::Passed);
  EXPECT_EQ(pass.verdict,
            "ncu could not read the GPU's counters (ERR_NVGPUCTRPERM): structure checked from the PTX instead: "
            "mysgemm uses shared memory and a barrier");
  ASSERT_TRUE(pass.reuse);
  EXPECT_EQ(pass.reuse->source, ReuseSource::Static);
  EXPECT_FALSE(pass.reuse->factor);
  EXPECT_EQ(pass.m, 0) << "nothing ran at the check's shape";
  const TestResult fail = structure_with(m, false);
  EXPECT_EQ(fail.status, Status::Failed);
  EXPECT_EQ(fail.diagnoses.at(0).id, "structure.not_tiled");
}

TEST(StructureCheck, ACountThatCouldNotBeReadEarnsNothing) {
  ReuseMeasurement m;
  m.outcome = ReuseMeasurement::Outcome::NotMeasured;
  m.source = ReuseSource::Ncu;
  m.why = "ncu's output holds more than one table header";
  const TestResult t = structure_with(m, true);
  EXPECT_EQ(t.status, Status::Failed);
  EXPECT_EQ(t.score, 0);
  EXPECT_NE(t.verdict.find("could not be measured: ncu's output holds more"), std::string::npos) << t.verdict;
}

TEST(StructureCheck, ReuseSurvivesGradeResultJson) {
  GradeResult r;
  r.tests.push_back(structure_with(measured(2097152), true));
  const GradeResult back = decode_result(encode_result(r), "x");
  ASSERT_TRUE(back.tests.at(0).reuse);
  EXPECT_DOUBLE_EQ(*back.tests[0].reuse->factor, 32.0);
  EXPECT_EQ(back.tests[0].reuse->source, ReuseSource::Ncu);
  EXPECT_DOUBLE_EQ(back.tests[0].reuse->min_factor, 8);
}

TEST(StructureSuite, MinReuseAndShapeAreReadAndChecked) {
  const std::string head = "suite: t\ncases:\n  - {name: a, m: 4, k: 4, n: 4, points: 1}\nchecks:\n";
  const Suite s = load_suite_string(head + "  - {name: s, kind: shared_memory_and_barrier, points: 1}\n", "t.yaml");
  EXPECT_DOUBLE_EQ(s.checks.at(0).min_reuse, 8);
  EXPECT_EQ(s.checks[0].m, 1024);
  const Suite t = load_suite_string(
      head + "  - {name: s, kind: shared_memory_and_barrier, points: 1, min_reuse: 12.5, m: 512, k: 256, n: 128}\n",
      "t.yaml");
  EXPECT_DOUBLE_EQ(t.checks.at(0).min_reuse, 12.5);
  EXPECT_EQ(t.checks[0].k, 256);
  auto error_of = [&](const std::string& check) {
    try {
      load_suite_string(head + check, "t.yaml");
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error_of("  - {name: s, kind: sanitizer, points: 1, m: 40, k: 50, n: 36, min_reuse: 8}\n")
                .find("min_reuse applies only to kind: shared_memory_and_barrier"),
            std::string::npos);
  EXPECT_NE(error_of("  - {name: s, kind: shared_memory_and_barrier, points: 1, min_reuse: 0}\n"), "");
  EXPECT_NE(error_of("  - {name: s, kind: shared_memory_and_barrier, points: 1, m: 64, k: 64, n: 40}\n")
                .find("multiple of 16"),
            std::string::npos);
  EXPECT_NE(error_of("  - {name: s, kind: symbols, points: 1, m: 64, k: 64, n: 64}\n"), "");
  const Suite def = load_suite_file(std::string(SG_SOURCE_ROOT) + "/testcases/default.yaml");
  for (const Check& c : def.checks) {
    if (c.kind == CheckKind::SharedAndBarrier) {
      EXPECT_DOUBLE_EQ(c.min_reuse, 8);
    }
  }
}

Case small(const std::string& name, int m, int k, int n, Visibility v = Visibility::Public) {
  Case c;
  c.name = name;
  c.m = m;
  c.k = k;
  c.n = n;
  c.visibility = v;
  return c;
}

// The default suite's sanitizer check: 40x50x36.
Check sanitizer_check() {
  Check check;
  check.name = "sanitizer";
  check.m = 40;
  check.k = 50;
  check.n = 36;
  return check;
}

TEST(SanitizerShapes, MemcheckRunsTheCheckShapeAndEverySmallCaseOnce) {
  Check check = sanitizer_check();
  const std::vector<Case> cases = {small("square_256", 256, 256, 256), small("square_1024", 1024, 1024, 1024),
                                   small("n_not_multiple", 128, 96, 196), small("again", 40, 50, 36),
                                   small("hidden_one", 55, 33, 77, Visibility::Hidden)};
  const auto shapes = memcheck_shapes(check, cases);
  ASSERT_EQ(shapes.size(), 3u);
  EXPECT_EQ(shapes[0].label, "40x50x36 (sanitizer, again)");
  EXPECT_EQ(shapes[1].label, "128x96x196 (n_not_multiple)");  // the smaller case first
  EXPECT_EQ(shapes[2].label, "256x256x256 (square_256)");     // 2^24 exactly: still small
  check.visibility = Visibility::Hidden;
  EXPECT_EQ(memcheck_shapes(check, cases).size(), 4u) << "a hidden check may run hidden shapes";
  const auto requests = selftest_requests(shapes, 1000);
  ASSERT_EQ(requests.size(), 3u);
  for (std::size_t i = 0; i < requests.size(); ++i) {
    EXPECT_EQ(requests[i].type, proto::RequestType::Selftest);
    EXPECT_EQ(requests[i].m, shapes[i].m);
    EXPECT_EQ(requests[i].k, shapes[i].k);
    EXPECT_EQ(requests[i].n, shapes[i].n);
    EXPECT_EQ(requests[i].seed, 1000 + i) << "each shape its own inputs";
  }
}

TEST(SanitizerShapes, MemcheckRunsTheCasesSmallestFirstAfterTheCheckShape) {
  // A run ends at its first failing launch, and each error it records costs
  // the tool time with the GPU held: the smallest failing shape is reported.
  const Check check = sanitizer_check();
  const std::vector<Case> cases = {small("rect", 128, 384, 256), small("tiny", 1, 1, 1), small("odd", 120, 201, 250),
                                   small("k_is_1", 64, 1, 48), small("same_volume", 1, 1, 1)};
  std::vector<std::string> labels;
  for (const auto& s : memcheck_shapes(check, cases)) labels.push_back(s.label);
  const std::vector<std::string> expected = {"40x50x36 (sanitizer)", "1x1x1 (tiny, same_volume)", "64x1x48 (k_is_1)",
                                             "120x201x250 (odd)", "128x384x256 (rect)"};
  EXPECT_EQ(labels, expected);
}

TEST(SanitizerShapes, MemcheckOverTheDefaultSuiteCoversEveryRaggedSmallCase) {
  const Suite def = load_suite_file(std::string(SG_SOURCE_ROOT) + "/testcases/default.yaml");
  const Check* san = nullptr;
  for (const Check& c : def.checks)
    if (c.kind == CheckKind::Sanitizer) san = &c;
  ASSERT_NE(san, nullptr);
  std::set<std::string> labels;
  for (const auto& s : memcheck_shapes(*san, def.cases)) labels.insert(s.label.substr(s.label.find('(')));
  for (const char* name : {"n_not_multiple", "odd_120x201x250", "wide", "m_is_1", "k_below_tile"}) {
    bool found = false;
    for (const auto& l : labels) found = found || l.find(name) != std::string::npos;
    EXPECT_TRUE(found) << name;
  }
}

TEST(SanitizerShapes, RacecheckShapeIsDrawnFromTheSeedRaggedAndSmall) {
  std::set<std::string> seen;
  for (std::uint64_t seed = 0; seed < 2000; ++seed) {
    const SanitizerShape s = racecheck_shape(seed);
    for (const int d : {s.m, s.k, s.n}) {
      EXPECT_NE(d % 16, 0) << s.label;
      EXPECT_GE(d, 17);
      EXPECT_LE(d, 79);
    }
    EXPECT_GE(s.k, 33) << "at least three K tiles";
    seen.insert(s.label);
    EXPECT_EQ(racecheck_shape(seed).label, s.label) << "the same seed draws the same shape";
  }
  EXPECT_GT(seen.size(), 1000u) << "a fixed shape could be detected";
}

TEST(SanitizerShapes, TheFirstErrorIsPinnedToItsShape) {
  const std::string memcheck = "selftest: shape 40x50x36\n"
                               "selftest: shape 128x96x196\n"
                               "========= Invalid __global__ write of size 4 bytes\n"
                               "selftest: failed at 128x96x196: cudaDeviceSynchronize() failed: ...\n";
  EXPECT_EQ(shape_of_first_error(memcheck), "128x96x196");
  const std::string race = "selftest: shape 41x67x53\n"
                           "========= Error: Race reported between Write access at mysgemm+0x100\n";
  EXPECT_EQ(shape_of_first_error(race), "41x67x53");
  EXPECT_EQ(shape_of_first_error("selftest: shape 40x50x36\n========= ERROR SUMMARY: 0 errors\n"), "");
}

// A tool run's verdict: the judge names the shape whose request was in
// flight (it knows which it sent); the runner's markers only where every
// launch was answered.
TEST(SanitizerShapes, OutcomeNamesTheShapeTheJudgeWasWaitingFor) {
  const std::vector<SanitizerShape> shapes = {{40, 50, 36, "40x50x36 (a)"}, {128, 96, 196, "128x96x196 (b)"}};
  ToolRun r;
  r.started = true;
  r.exit.exited = true;
  r.exit.code = 0;
  r.answered = 2;
  EXPECT_TRUE(sanitizer_tool_outcome(r, shapes, 30).clean);
  r.answered = 1;  // ended with status 0 before its second answer: a raw exit in the submission
  SanitizerToolOutcome o = sanitizer_tool_outcome(r, shapes, 30);
  EXPECT_FALSE(o.clean);
  EXPECT_EQ(o.shape, "128x96x196 (b)");
  EXPECT_NE(o.what.find("ended before its launches completed"), std::string::npos) << o.what;
  r.exit.code = 10;
  r.answered = 0;
  r.output = "selftest: shape 128x96x196\n========= Invalid __global__ write\n";  // the runner's word loses
  o = sanitizer_tool_outcome(r, shapes, 30);
  EXPECT_EQ(o.what, "found errors");
  EXPECT_EQ(o.shape, "40x50x36 (a)");
  r.answered = 2;  // every launch answered, errors reported all the same: the markers say where
  EXPECT_EQ(sanitizer_tool_outcome(r, shapes, 30).shape, "128x96x196");
  r.exit = ExitInfo{};
  r.exit.timed_out = true;
  r.went_quiet = true;
  r.answered = 1;
  o = sanitizer_tool_outcome(r, shapes, 30);
  EXPECT_TRUE(o.hung);
  EXPECT_EQ(o.shape, "128x96x196 (b)");
  EXPECT_NE(o.what.find("no progress for 30 s"), std::string::npos) << o.what;
  r.went_quiet = false;
  r.exit = ExitInfo{};
  r.exit.exited = true;
  r.exit.code = 5;
  r.refused = "selftest: failed at 128x96x196: cudaDeviceSynchronize() failed";
  o = sanitizer_tool_outcome(r, shapes, 30);
  EXPECT_FALSE(o.hung);
  EXPECT_NE(o.what.find("the launch failed (selftest: failed at"), std::string::npos) << o.what;
}

// The runner's and the tools' output is the submission's to shape: megabyte
// lines of digits, '=' and prints (a device printf in every thread crashed
// the judge when a regex read them) are read in one pass, with the same answers.
TEST(SanitizerShapes, MegabyteLinesAreReadWithoutCrashing) {
  const std::string digits(1 << 20, '7'), equals(1 << 20, '='), prints(1 << 20, 'x');
  EXPECT_EQ(shape_of_first_error("selftest: failed at " + digits + "x1x1\n"), "");
  EXPECT_EQ(shape_of_first_error("selftest: shape 40x50x36\n" + equals + " Invalid __global__ read\n"), "40x50x36");
  EXPECT_EQ(shape_of_first_error(prints + "\nselftest: shape 17x33x19\n" + prints + " Hazard\n"), "17x33x19");
  ToolRun r;
  r.output = prints + "\n" + prints + " Invalid __global__ write of size 4\n========= ERROR SUMMARY: 1 error\n";
  const std::string summary = sanitizer_summary("memcheck", r);
  EXPECT_NE(summary.find("\n  Invalid __global__ write of size 4\n  ========= ERROR SUMMARY: 1 error\n"),
            std::string::npos) << summary.substr(0, 300);
  r.output = prints;  // nothing it looks for: the start of the output
  EXPECT_EQ(sanitizer_summary("memcheck", r).size(), std::string("memcheck: ").size() + r.exit.describe().size() + 1 + 2000);
}

}  // namespace
}  // namespace sg
