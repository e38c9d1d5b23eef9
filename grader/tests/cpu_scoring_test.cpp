// How a grading without a GPU scores (issue 36, item 6): the suite's
// without_gpu rule (read and checked like every other field), the tests each
// rule plans on the CPU backend, and the score line every view opens with,
// which says what the score is out of and that performance was not measured.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "batch/unfinished_result.h"
#include "model/plan.h"
#include "report/batch_writers.h"
#include "report/score_line.h"
#include "report/writers.h"
#include "shell_run.h"
#include "suite/suite_loader.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kRoot = SG_SOURCE_ROOT;

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// The message load_suite_string throws for `yaml`, or "" when it loads.
std::string error_of(const std::string& yaml) {
  try {
    sg::load_suite_string(yaml, "t.yaml");
  } catch (const sg::SuiteError& e) {
    return e.what();
  }
  return "";
}

// The default suite with `rule` as its without_gpu (it says not_measured).
sg::Suite default_with(const std::string& rule) {
  std::string text = sg::test::read_file(kRoot + "/testcases/default.yaml");
  const std::string line = "\nwithout_gpu: not_measured\n";
  const std::size_t at = text.find(line);
  if (at == std::string::npos) throw std::runtime_error("default.yaml no longer says without_gpu: not_measured");
  return sg::load_suite_string(text.replace(at, line.size(), "\nwithout_gpu: " + rule + "\n"), "default+rule.yaml");
}

double sum_max(const std::vector<sg::TestResult>& tests) {
  sg::GradeResult r;
  r.tests = tests;
  return r.max_score();
}

const sg::TestResult& named(const std::vector<sg::TestResult>& tests, const std::string& name) {
  for (const auto& t : tests)
    if (t.name == name) return t;
  throw std::runtime_error("no test " + name);
}

// A CPU-backend grading of the default suite as the pipeline plans it, every
// test run passed (the set-aside ones stay not measured).
sg::GradeResult cpu_result(const sg::Suite& suite) {
  sg::GradeResult r;
  r.submission = "alice/kernel.cu";
  r.student = "alice";
  r.suite_name = suite.name;
  r.suite_path = "testcases/default.yaml";
  r.backend = sg::BackendKind::Cpu;
  r.device = "host CPU (correctness only)";
  r.tests = sg::plan_tests(suite, sg::Shown::All, sg::kCpuNotTimed);
  r.untimed = sg::untimed_points(suite, sg::Shown::All, sg::kCpuNotTimed);
  for (auto& t : r.tests)
    if (!sg::set_aside(t)) {
      t.status = sg::Status::Passed;
      t.score = t.max_score;
      t.verdict = "passed";
    }
  return r;
}

std::string terminal(const sg::GradeResult& r) {
  std::ostringstream out;
  sg::print_summary(r, out, false);
  return out.str();
}

// The first paragraph after report.md's title.
std::string markdown_opening(const std::string& md) {
  const std::size_t at = md.find("\n\n");
  return first_line(md.substr(at + 2));
}

// The first element after report.html's (or summary.html's) <h1>.
std::string html_opening(const std::string& html) {
  const std::size_t h1 = html.find("</h1>\n");
  return first_line(html.substr(h1 + 6));
}

TEST(CpuScoringSuite, WithoutGpuIsReadAndDefaultsToNotMeasured) {
  EXPECT_EQ(sg::load_suite_file(kRoot + "/testcases/default.yaml").without_gpu, sg::WithoutGpu::NotMeasured);
  EXPECT_EQ(sg::load_suite_file(kRoot + "/testcases/smoke.yaml").without_gpu, sg::WithoutGpu::NotMeasured);
  EXPECT_EQ(default_with("to_correctness").without_gpu, sg::WithoutGpu::ToCorrectness);
  EXPECT_EQ(default_with("not_measured").without_gpu, sg::WithoutGpu::NotMeasured);
}

TEST(CpuScoringSuite, ABadRuleIsNamedWithFileLineAndTheChoices) {
  const std::string err = error_of("suite: t\nwithout_gpu: correctness\ncases:\n  - {name: a, m: 8, k: 8, n: 8, points: 1}\n");
  EXPECT_EQ(err.rfind("t.yaml:2:14: ", 0), 0u) << err;
  EXPECT_TRUE(contains(err, "without_gpu must be one of not_measured, to_correctness, got 'correctness'")) << err;

  const std::string listed = error_of("suite: t\nwithout_gpu: [to_correctness]\ncases:\n  - {name: a, m: 8, k: 8, n: 8, points: 1}\n");
  EXPECT_EQ(listed.rfind("t.yaml:2:14: ", 0), 0u) << listed;
}

// to_correctness needs an untimed correctness case worth points to take the timed cases' points.
TEST(CpuScoringSuite, ToCorrectnessWithNothingToTakeThePointsIsRefused) {
  const std::string only_timed =
      "suite: t\n"
      "without_gpu: to_correctness\n"
      "cases:\n"
      "  - {name: free, m: 8, k: 8, n: 8, points: 0}\n"
      "  - {name: p, m: 64, k: 64, n: 64, points: 1, performance: {points: 7, zero_at: 0.5, full_at: 1}}\n";
  const std::string err = error_of(only_timed);
  EXPECT_EQ(err.rfind("t.yaml:2:14: ", 0), 0u) << err;
  EXPECT_TRUE(contains(err, "to_correctness")) << err;
  EXPECT_TRUE(contains(err, "not_measured")) << err << " (the way out)";
  // Without timed cases there is nothing to give: the rule is harmless.
  EXPECT_EQ(error_of("suite: t\nwithout_gpu: to_correctness\ncases:\n  - {name: a, m: 8, k: 8, n: 8, points: 1}\n"), "");
}

TEST(CpuScoringPlan, NotMeasuredLeavesTheTimedCasesOut) {
  const sg::Suite suite = sg::load_suite_file(kRoot + "/testcases/default.yaml");
  const auto gpu = sg::plan_tests(suite, sg::Shown::All);
  const auto cpu = sg::plan_tests(suite, sg::Shown::All, sg::kCpuNotTimed);
  EXPECT_DOUBLE_EQ(sum_max(gpu), 100);
  EXPECT_DOUBLE_EQ(sum_max(cpu), 84);
  EXPECT_EQ(named(cpu, "square_256").max_score, 5) << "untimed cases keep their points";
  EXPECT_TRUE(sg::set_aside(named(cpu, "perf_2048/performance")));
  EXPECT_FALSE(sg::untimed_points(suite, sg::Shown::All, "").has_value()) << "nothing set aside on a GPU";
  const auto u = sg::untimed_points(suite, sg::Shown::All, sg::kCpuNotTimed);
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->rule, sg::WithoutGpu::NotMeasured);
  EXPECT_DOUBLE_EQ(u->points, 16);
  EXPECT_DOUBLE_EQ(u->gpu_max, 100);
  EXPECT_DOUBLE_EQ(sg::planned_max(suite, sg::Shown::All, sg::kCpuNotTimed), 84);
}

TEST(CpuScoringPlan, ToCorrectnessSharesThemInProportionAndKeepsTheGpuMaximum) {
  const sg::Suite suite = default_with("to_correctness");
  const auto gpu = sg::plan_tests(suite, sg::Shown::All);
  const auto cpu = sg::plan_tests(suite, sg::Shown::All, sg::kCpuNotTimed);
  EXPECT_EQ(sum_max(cpu), 100) << "exactly the GPU's maximum, not 99.99999";
  EXPECT_EQ(sg::planned_max(suite, sg::Shown::All, sg::kCpuNotTimed), 100);
  EXPECT_DOUBLE_EQ(sum_max(gpu), 100) << "the rule changes nothing where everything is measured";
  double correctness_gpu = 0;
  for (const auto& t : gpu)
    if (t.kind == sg::TestKind::Correctness && !contains(t.name, "perf_")) correctness_gpu += t.max_score;
  const double scale = (correctness_gpu + 16) / correctness_gpu;  // 89 / 73
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    const sg::TestResult &c = cpu[i], &g = named(gpu, cpu[i].name);
    if (sg::set_aside(c)) {
      EXPECT_EQ(c.max_score, 0) << c.name;
    } else if (c.kind == sg::TestKind::Check) {
      EXPECT_EQ(c.max_score, g.max_score) << c.name << ": checks keep their points";
    } else {
      EXPECT_NEAR(c.max_score, g.max_score * scale, 0.0100001) << c.name;
      EXPECT_NEAR(c.max_score * 100, std::round(c.max_score * 100), 1e-9) << c.name << ": in hundredths of a point";
    }
  }
  const auto u = sg::untimed_points(suite, sg::Shown::All, sg::kCpuNotTimed);
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->rule, sg::WithoutGpu::ToCorrectness);
  EXPECT_DOUBLE_EQ(u->points, 16);
  EXPECT_DOUBLE_EQ(u->gpu_max, 100);
}

// A student the batch could not grade gets the same tests and maximum as one graded.
TEST(CpuScoringPlan, AnUnfinishedResultFollowsTheSameRule) {
  const sg::Suite suite = default_with("to_correctness");
  const sg::GradeResult r = sg::batch::unfinished_result(&suite, false, "bob", "bob", sg::BackendKind::Cpu,
                                                         sg::GradeState::Timeout, "timed out");
  EXPECT_EQ(r.max_score(), 100);
  ASSERT_TRUE(r.untimed.has_value());
  EXPECT_EQ(r.untimed->rule, sg::WithoutGpu::ToCorrectness);
}

TEST(CpuScoringViews, EveryViewOpensWithTheScoreAndWhyItIsOutOf84) {
  const sg::GradeResult r = cpu_result(sg::load_suite_file(kRoot + "/testcases/default.yaml"));
  const std::string expected =
      "Score: 84 / 84 (20 of 20 tests passed, 4 not measured). CPU backend: performance not measured on this machine; "
      "the timed cases' 16 points are left out (the suite is worth 100 on a GPU).";
  EXPECT_EQ(sg::report::score_line(r), expected);
  const json results = json::parse(sg::results_json(r));
  for (const auto& [view, line] : {std::pair<const char*, std::string>{"terminal", first_line(terminal(r))},
                                   {"results.json output", first_line(results["output"].get<std::string>())},
                                   {"report.md", markdown_opening(sg::report_markdown(r))},
                                   {"report.html", html_opening(sg::report_html(r))},
                                   {"summary.html", html_opening(sg::summary_html({r, r}, "class"))}}) {
    EXPECT_TRUE(contains(line, "84 / 84") || contains(line, "out of 84")) << view << ": " << line;
    EXPECT_TRUE(contains(line, "CPU backend: performance not measured on this machine")) << view << ": " << line;
    EXPECT_TRUE(contains(line, "100 on a GPU")) << view << ": " << line;
  }
  EXPECT_EQ(results["score"].get<double>(), 84);
  EXPECT_EQ(results["extra_data"]["max_score"].get<double>(), 84);
  EXPECT_EQ(results["extra_data"]["untimed"]["rule"], "not_measured");
  EXPECT_TRUE(contains(sg::junit_xml(r), "performance not measured on this machine"));
}

TEST(CpuScoringViews, ToCorrectnessSaysWhereThePointsWent) {
  const sg::GradeResult r = cpu_result(default_with("to_correctness"));
  const std::string line = sg::report::score_line(r);
  EXPECT_EQ(line.rfind("Score: 100 / 100 (20 of 20 tests passed, 4 not measured). CPU backend: performance not "
                       "measured on this machine; the timed cases' 16 points went to the correctness cases",
                       0),
            0u)
      << line;
  EXPECT_EQ(first_line(terminal(r)), line);
  // Gradescope's score and maximum follow the rule, and agree with the tests' sums.
  const json results = json::parse(sg::results_json(r));
  double tests_score = 0, tests_max = 0;
  for (const auto& t : results["tests"]) {
    tests_score += t["score"].get<double>();
    tests_max += t.value("max_score", 0.0);
  }
  EXPECT_EQ(results["score"].get<double>(), 100);
  EXPECT_EQ(results["extra_data"]["max_score"].get<double>(), 100);
  EXPECT_NEAR(tests_score, 100, 1e-9);
  EXPECT_NEAR(tests_max, 100, 1e-9);
  EXPECT_EQ(results["extra_data"]["untimed"]["rule"], "to_correctness");
  EXPECT_EQ(first_line(results["output"].get<std::string>()), line);
  EXPECT_TRUE(contains(html_opening(sg::summary_html({r}, "class")), "Scores out of 100. CPU backend"));
}

// A grading whose tests could not run says why first, then the score, on the same line.
TEST(CpuScoringViews, AStoppedGradingSaysWhyAndTheScoreOnItsFirstLine) {
  sg::GradeResult r = cpu_result(sg::load_suite_file(kRoot + "/testcases/default.yaml"));
  r.state = sg::GradeState::CompileError;
  r.build_log = "kernel.cu:3:1: error: expected ';' before '}' token\n";
  for (auto& t : r.tests)
    if (!sg::set_aside(t)) {
      t.status = sg::Status::Failed;
      t.score = 0;
      t.verdict = "not run: the submission did not build for the CPU backend";
      t.stopped_by = "the submission did not build for the CPU backend";
    }
  const std::string expected =
      "Compile error: the submission did not build for the CPU backend. Score: 0 / 84 (0 of 20 tests passed, 4 not "
      "measured). CPU backend: performance not measured on this machine; the timed cases' 16 points are left out (the "
      "suite is worth 100 on a GPU).";
  EXPECT_EQ(sg::report::opening_line(r), expected);
  EXPECT_EQ(first_line(terminal(r)), expected);
  EXPECT_EQ(first_line(json::parse(sg::results_json(r))["output"].get<std::string>()), expected);
  const std::string md = markdown_opening(sg::report_markdown(r)), html = html_opening(sg::report_html(r));
  for (const std::string& line : {md, html}) {
    EXPECT_TRUE(contains(line, "Compile error: the submission did not build for the CPU backend")) << line;
    EXPECT_TRUE(contains(line, "Score: 0 / 84")) << line;
    EXPECT_TRUE(contains(line, "CPU backend: performance not measured on this machine")) << line;
  }
}

// On a GPU nothing was set aside: the line is the score alone.
TEST(CpuScoringViews, AGpuGradingSaysNothingOfACpu) {
  sg::GradeResult r = cpu_result(sg::load_suite_file(kRoot + "/testcases/default.yaml"));
  r.backend = sg::BackendKind::Gpu;
  r.untimed.reset();
  r.tests = sg::plan_tests(sg::load_suite_file(kRoot + "/testcases/default.yaml"), sg::Shown::All);
  for (auto& t : r.tests) t.status = sg::Status::Failed;
  r.tests[0].status = sg::Status::Passed;
  r.tests[0].score = r.tests[0].max_score;
  EXPECT_EQ(sg::report::score_line(r), "Score: 5 / 100 (1 of 24 tests passed)");
  EXPECT_EQ(first_line(terminal(r)), "Score: 5 / 100 (1 of 24 tests passed)");
  EXPECT_FALSE(contains(sg::report_markdown(r), "not measured on this machine"));
}

// A class graded on two backends says each maximum and how many have it.
TEST(CpuScoringViews, AMixedClassNamesEachMaximum) {
  const sg::GradeResult cpu = cpu_result(sg::load_suite_file(kRoot + "/testcases/default.yaml"));
  sg::GradeResult gpu = cpu;
  gpu.backend = sg::BackendKind::Gpu;
  gpu.untimed.reset();
  gpu.tests = sg::plan_tests(sg::load_suite_file(kRoot + "/testcases/default.yaml"), sg::Shown::All);
  const std::string line = sg::report::class_score_line({cpu, cpu, gpu});
  EXPECT_TRUE(contains(line, "Scores out of 84 (2 submissions), 100 (1 submission)")) << line;
  EXPECT_TRUE(contains(line, "CPU backend: performance not measured")) << line;
}

// The pipeline records the rule: a real grading on the CPU backend, a small
// suite with one timed case, its points given to correctness.
TEST(CpuScoringEndToEnd, TheReferenceScoresTheGpuMaximumWithToCorrectness) {
  const fs::path dir = fs::temp_directory_path() / ("sg-cpu-scoring-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "suite.yaml") << "suite: tiny\n"
                                       "without_gpu: to_correctness\n"
                                       "cases:\n"
                                       "  - {name: a, m: 32, k: 40, n: 24, points: 3}\n"
                                       "  - {name: b, m: 17, k: 33, n: 9, points: 1}\n"
                                       "  - {name: timed, m: 64, k: 64, n: 64, points: 1,\n"
                                       "     performance: {points: 3, zero_at: 0.5, full_at: 1}}\n";
  const sg::test::ShellRun run = sg::test::run_shell(
      sg::test::shell_quote(std::string(SG_BUILD_DIR) + "/grade") + " --backend cpu --seed 3 --quiet --suite " +
          sg::test::shell_quote((dir / "suite.yaml").string()) + " --out " + sg::test::shell_quote((dir / "out").string()) +
          " " + sg::test::shell_quote(kRoot + "/reference/kernel.cu"),
      dir / "grade.log", 300);
  ASSERT_EQ(run.code, 0) << run.output;
  const json results = json::parse(sg::test::read_file(dir / "out/results.json"));
  EXPECT_EQ(results["score"].get<double>(), 8) << results.dump(1);
  EXPECT_EQ(results["extra_data"]["max_score"].get<double>(), 8);
  EXPECT_EQ(first_line(results["output"].get<std::string>()),
            "Score: 8 / 8 (2 of 2 tests passed, 2 not measured). CPU backend: performance not measured on this "
            "machine; the timed cases' 4 points went to the correctness cases, in proportion to their points (8 in "
            "all, as on a GPU).");
  EXPECT_EQ(first_line(run.output), first_line(results["output"].get<std::string>())) << "the terminal's first line";
  std::error_code ec;
  fs::remove_all(dir, ec);
}

}  // namespace
