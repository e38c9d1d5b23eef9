// Tests of the per-submission report writers (report/writers.h) over small
// synthetic results: passed, partial, failed and skipped tests, the CPU
// backend, hidden tests, a compile error and hostile bytes in every text field.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/plan.h"
#include "words/case_report.h"
#include "report/student_view.h"
#include "report/text_clean.h"
#include "report/writers.h"

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// Bytes a submission might print: invalid UTF-8, NUL, C0 controls, ANSI colour,
// a truncated sequence, and valid non-ASCII text.
const std::string kHostileOutput = std::string("hello from the kernel\n") + "\xff\xfe bad " +
                                   std::string(1, '\0') + " nul \x01\x02 ctl \x1b[31mred\x1b[0m " +
                                   "\xc3\x28 caf\xc3\xa9 \xe2\x82";

sg::TestResult make_test(const std::string& name, const std::string& kind, sg::Status status,
                         double score, double max_score, int m, int k, int n) {
  sg::TestResult t;
  t.name = name;
  t.kind = sg::parse_test_kind(kind).value();
  t.status = status;
  t.score = score;
  t.max_score = max_score;
  t.m = m;
  t.k = k;
  t.n = n;
  t.seconds = 0.25;
  t.verdict = status == sg::Status::Passed ? "passed" : "see detail";
  return t;
}

sg::Comparison wrong_comparison() {
  sg::Comparison c;
  c.checked = 1000 * 333;
  c.wrong = 312;
  c.non_finite = 12;
  c.worst_ratio = 41.5;
  c.first_wrong.push_back({3, 17, std::nanf(""), 1.25, 2.5e-6});
  c.first_wrong.push_back({3, 18, 7.5f, -0.5, 3e-6});
  c.tile_map = {"..#", "..#", "###"};
  return c;
}

sg::Timing timing(bool implausible) {
  sg::Timing t;
  t.student_ms = 2.0;
  t.student_spread = 0.031;
  t.reference_ms = 3.0;
  t.naive_ms = 12.0;
  t.cublas_ms = 0.5;
  t.speedup = 1.5;
  t.student_gflops = 1073.7;
  t.reference_gflops = 715.8;
  t.cublas_gflops = 4295.0;
  t.samples = 15;
  t.overhead_ms = 0.041;
  t.student_floor_ms = 1.875;
  t.implausible = implausible;
  if (implausible) t.implausible_reason = "faster than cuBLAS allows";
  return t;
}

// A graded submission with every kind of outcome. On the cpu backend the
// performance cases are skipped and carry no timing.
sg::GradeResult sample(const std::string& backend) {
  const bool gpu = backend == "gpu";
  sg::GradeResult r;
  r.submission = "submissions/alice/kernel.cu";
  r.student = "alice";
  r.suite_name = "default";
  r.suite_path = "testcases/default.yaml";
  r.backend = sg::parse_backend(backend).value();
  r.device = gpu ? "NVIDIA H100 80GB HBM3 (sm_90)" : "CPU backend";
  r.seed = 18446744073709551557ull;  // larger than a double holds exactly
  r.student_output = kHostileOutput;
  r.output_before_hidden = kHostileOutput;  // all printed before its first hidden case
  r.execution_time = 12.5;
  r.compile_time = 3.25;

  r.tests.push_back(make_test("small_square", "correctness", sg::Status::Passed, 10, 10, 64, 64, 64));

  sg::TestResult odd = make_test("odd_k", "correctness", sg::Status::Failed, 0, 10, 1000, 333, 777);
  odd.verdict = "wrong result: 312 of 333000 elements";
  odd.detail = "The last K tile seems to be skipped.\nCheck the loop bound.";
  odd.comparison = wrong_comparison();
  odd.diagnoses = {{"across.k_tail", "fails only when k is not a multiple of 16 -> the last K tile"}};
  r.tests.push_back(odd);

  sg::TestResult hidden = make_test("hidden <edge> & \"case\" | 'x'", "correctness",
                                    sg::Status::Failed, 0, 5, 17, 33, 65);
  hidden.visibility = sg::Visibility::Hidden;
  hidden.verdict = "crashed: killed by SIGSEGV <11> & \"more\"";
  r.tests.push_back(hidden);

  sg::TestResult hidden_ok = make_test("hidden_rect", "correctness", sg::Status::Passed, 5, 5, 100, 50, 70);
  hidden_ok.visibility = sg::Visibility::Hidden;
  r.tests.push_back(hidden_ok);

  if (gpu) {
    sg::TestResult perf = make_test("perf_1024", "performance", sg::Status::Partial, 1.5, 2, 1024, 1024, 1024);
    perf.verdict = "speedup 1.5x (full marks at 2x)";
    perf.timing = timing(false);
    r.tests.push_back(perf);
    sg::TestResult odd_perf = make_test("perf_2048", "performance", sg::Status::Failed, 0, 2, 2048, 2048, 2048);
    odd_perf.verdict = "timing implausible";
    odd_perf.timing = timing(true);
    r.tests.push_back(odd_perf);
    r.leaderboard_gflops = 1073.7;
  } else {
    // As plan_tests sets them aside on a backend that cannot time.
    for (const char* name : {"perf_1024", "perf_2048"}) {
      sg::TestResult perf = make_test(name, "performance", sg::Status::Skipped, 0, 0, 2048, 2048, 2048);
      perf.verdict = sg::kCpuNotTimed;
      perf.detail = "worth 2 points when graded on a GPU";
      r.tests.push_back(perf);
    }
  }

  r.tests.push_back(make_test("shared_and_barrier", "check", sg::Status::Passed, 3, 3, 0, 0, 0));
  sg::TestResult san = make_test("sanitizer", "check", sg::Status::Skipped, 0, 0, 0, 0, 0);
  san.verdict = "compute-sanitizer not installed";
  r.tests.push_back(san);
  return r;
}

sg::GradeResult compile_error() {
  sg::GradeResult r = sample("cpu");
  r.state = sg::GradeState::CompileError;
  r.build_log = "kernel.cu(12): error: identifier \"tileA\" is undefined\n\x01\xff 1 error detected";
  r.student_output.clear();
  r.compile_time = 1.5;
  for (auto& t : r.tests) {
    if (t.status == sg::Status::Skipped && t.max_score == 0) continue;  // not measured either way
    t.status = sg::Status::Failed;
    t.score = 0;
    t.verdict = "not run: compile error";
    t.stopped_by = "compile error";
    t.comparison.reset();
    t.timing.reset();
    t.diagnoses.clear();
  }
  return r;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// A fresh, empty folder under the system's temporary folder.
std::string temp_dir() {
  std::string pattern = (fs::temp_directory_path() / "sg_report_test_XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + pattern);
  return pattern;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs a python3 script over a file and returns what it printed (a JSON
// document). The exit status is checked by the caller through `rc`.
std::string run_python(const std::string& script, const std::string& file, int& rc) {
  const std::string dir = temp_dir();
  const std::string script_path = dir + "/check.py";
  std::ofstream(script_path) << script;
  const std::string cmd = "python3 '" + script_path + "' '" + file + "' 2>&1";
  std::FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) throw std::runtime_error("popen failed for: " + cmd);
  std::string out;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int status = pclose(p);
  rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  fs::remove_all(dir);
  return out;
}

// Parses a JUnit file with Python's ElementTree (an independent XML parser)
// and reports what it found.
const char kJUnitScript[] = R"PY(
import sys, json, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
out = {"root": root.tag, "attrs": root.attrib, "suites": []}
for s in root.findall("testsuite"):
    cases = []
    for c in s.findall("testcase"):
        f = c.find("failure")
        cases.append({"name": c.get("name"), "classname": c.get("classname"), "time": c.get("time"),
                      "failure": None if f is None else f.get("message"),
                      "failure_text": None if f is None else (f.text or ""),
                      "skipped": c.find("skipped") is not None})
    out["suites"].append({"attrs": s.attrib, "cases": cases,
                          "props": {p.get("name"): p.get("value") for p in s.iter("property")},
                          "out": "".join(x.text or "" for x in s.findall("system-out")),
                          "err": "".join(x.text or "" for x in s.findall("system-err"))})
print(json.dumps(out))
)PY";

json parse_junit(const std::string& xml) {
  const std::string dir = temp_dir();
  const std::string path = dir + "/junit.xml";
  std::ofstream(path, std::ios::binary) << xml;
  int rc = 0;
  const std::string out = run_python(kJUnitScript, path, rc);
  fs::remove_all(dir);
  EXPECT_EQ(rc, 0) << "python3 could not parse the JUnit XML:\n" << out;
  if (rc != 0) return json();
  return json::parse(out);
}

// ---------------------------------------------------------------- results.json

const std::set<std::string> kVisibilities = {"hidden", "after_due_date", "after_published", "visible"};
const std::set<std::string> kFormats = {"text", "html", "simple_format", "md", "ansi"};

// Field names and types from Gradescope's autograder specification.
void expect_gradescope_schema(const json& j) {
  ASSERT_TRUE(j.is_object());
  ASSERT_TRUE(j.contains("score") && j["score"].is_number());
  ASSERT_TRUE(j.contains("execution_time") && j["execution_time"].is_number());
  ASSERT_TRUE(j.contains("output") && j["output"].is_string());
  ASSERT_TRUE(j.contains("output_format") && kFormats.count(j["output_format"].get<std::string>()));
  ASSERT_TRUE(j.contains("visibility") && kVisibilities.count(j["visibility"].get<std::string>()));
  ASSERT_TRUE(j.contains("stdout_visibility") &&
              kVisibilities.count(j["stdout_visibility"].get<std::string>()));
  ASSERT_TRUE(j.contains("extra_data") && j["extra_data"].is_object());
  ASSERT_TRUE(j.contains("tests") && j["tests"].is_array());
  double sum = 0;
  std::set<std::string> numbers;
  for (const auto& t : j["tests"]) {
    ASSERT_TRUE(t.is_object());
    ASSERT_TRUE(t.contains("name") && t["name"].is_string());
    ASSERT_TRUE(t.contains("score") && t["score"].is_number()) << t["name"];
    ASSERT_TRUE(t.contains("output") && t["output"].is_string()) << t["name"];
    ASSERT_TRUE(t.contains("visibility") && t["visibility"].is_string()) << t["name"];
    ASSERT_TRUE(t.contains("number") && t["number"].is_string()) << t["name"];
    EXPECT_TRUE(kVisibilities.count(t["visibility"].get<std::string>())) << t["visibility"];
    // A test that was not measured has neither status nor max_score, so that
    // Gradescope shows it as neither passed nor failed; its output says why.
    ASSERT_EQ(t.contains("status"), t.contains("max_score")) << t["name"];
    if (!t.contains("status")) {
      EXPECT_EQ(t["score"].get<double>(), 0) << t["name"];
      EXPECT_EQ(t["output"].get<std::string>().rfind("Not measured: ", 0), 0u) << t["output"];
    } else {
      ASSERT_TRUE(t["max_score"].is_number()) << t["name"];
      const std::string status = t["status"];
      EXPECT_TRUE(status == "passed" || status == "failed") << status;
      EXPECT_LE(t["score"].get<double>(), t["max_score"].get<double>()) << t["name"];
    }
    EXPECT_TRUE(std::regex_match(t["number"].get<std::string>(), std::regex("[0-9]+\\.[0-9]+")));
    EXPECT_TRUE(numbers.insert(t["number"].get<std::string>()).second) << "duplicate number";
    if (t.contains("output_format")) {
      EXPECT_TRUE(kFormats.count(t["output_format"].get<std::string>()));
    }
    if (t.contains("tags")) {
      ASSERT_TRUE(t["tags"].is_array());
      for (const auto& tag : t["tags"]) EXPECT_TRUE(tag.is_string());
    }
    sum += t["score"].get<double>();
  }
  EXPECT_NEAR(sum, j["score"].get<double>(), 1e-9);
  if (j.contains("leaderboard")) {
    ASSERT_TRUE(j["leaderboard"].is_array());
    for (const auto& e : j["leaderboard"]) {
      ASSERT_TRUE(e.contains("name") && e["name"].is_string());
      ASSERT_TRUE(e.contains("value") && (e["value"].is_number() || e["value"].is_string()));
      if (e.contains("order")) {
        const std::string order = e["order"];
        EXPECT_TRUE(order == "asc" || order == "desc") << order;
      }
    }
  }
}

const json* find_test(const json& tests, const std::string& name) {
  for (const auto& t : tests)
    if (t.contains("name") && t["name"] == name) return &t;
  return nullptr;
}

TEST(ResultsJson, FollowsGradescopeSchemaOnBothBackends) {
  for (const std::string backend : {"gpu", "cpu"}) {
    SCOPED_TRACE(backend);
    const sg::GradeResult r = sample(backend);
    const json j = json::parse(sg::results_json(r));
    expect_gradescope_schema(j);
    EXPECT_EQ(j["tests"].size(), r.tests.size());
    EXPECT_DOUBLE_EQ(j["score"].get<double>(), r.score());
    EXPECT_DOUBLE_EQ(j["execution_time"].get<double>(), r.execution_time);
    EXPECT_EQ(j["visibility"], "visible");
    EXPECT_EQ(j["stdout_visibility"], "hidden");
  }
}

TEST(ResultsJson, MapsStatusVisibilityAndOrder) {
  const sg::GradeResult r = sample("gpu");
  const json j = json::parse(sg::results_json(r));
  const json& tests = j["tests"];
  ASSERT_EQ(tests.size(), r.tests.size());
  // Partial marks are not a pass (Gradescope's own rule: score < max_score);
  // a skipped check worth nothing was not measured: neither passed nor failed ("").
  const std::vector<std::string> expected = {"passed", "failed", "failed", "passed",
                                             "failed", "failed", "passed", ""};
  ASSERT_EQ(expected.size(), r.tests.size());
  for (std::size_t i = 0; i < r.tests.size(); ++i) {
    const sg::TestResult& t = r.tests[i];
    EXPECT_EQ(tests[i]["name"], t.name);
    EXPECT_EQ(tests[i].value("status", ""), expected[i]) << t.name;
    EXPECT_EQ(tests[i]["visibility"],
              t.visibility == sg::Visibility::Hidden ? "after_published" : "visible") << t.name;
    EXPECT_DOUBLE_EQ(tests[i]["score"].get<double>(), t.score);
    if (!expected[i].empty()) {
      EXPECT_DOUBLE_EQ(tests[i]["max_score"].get<double>(), t.max_score);
    }
  }
  // Correctness cases are numbered before performance cases, checks last.
  EXPECT_EQ((*find_test(tests, "small_square"))["number"], "1.1");
  EXPECT_EQ((*find_test(tests, "hidden_rect"))["number"], "1.4");
  EXPECT_EQ((*find_test(tests, "perf_1024"))["number"], "2.1");
  EXPECT_EQ((*find_test(tests, "sanitizer"))["number"], "3.2");
}

TEST(ResultsJson, TestOutputHoldsVerdictDetailDiagnosesAndTiming) {
  const json j = json::parse(sg::results_json(sample("gpu")));
  const std::string odd = (*find_test(j["tests"], "odd_k"))["output"];
  EXPECT_TRUE(contains(odd, "wrong result: 312 of 333000 elements"));
  EXPECT_TRUE(contains(odd, "Check the loop bound."));
  EXPECT_TRUE(contains(odd, "the last K tile"));
  EXPECT_FALSE(contains(odd, "..#\n")) << "the judge's detail describes the comparison:\n" << odd;
  const std::string perf = (*find_test(j["tests"], "perf_1024"))["output"];
  EXPECT_TRUE(contains(perf, "speedup 1.5x")) << perf;
  EXPECT_TRUE(contains(perf, "1073.7 GFLOP/s")) << perf;
  const std::string bad = (*find_test(j["tests"], "perf_2048"))["output"];
  EXPECT_TRUE(contains(bad, "implausible: faster than cuBLAS allows")) << bad;
}

TEST(ResultsJson, TestOutputDescribesTheComparisonWhenTheDetailDoesNot) {
  sg::GradeResult r = sample("gpu");
  r.tests[1].detail.clear();
  const json j = json::parse(sg::results_json(r));
  const std::string odd = (*find_test(j["tests"], "odd_k"))["output"];
  EXPECT_TRUE(contains(odd, "Wrong elements: 312 of 333000 (12 NaN or Inf)")) << odd;
  EXPECT_TRUE(contains(odd, "41.5 times its bound")) << odd;
  EXPECT_TRUE(contains(odd, "  ..#\n  ..#\n  ###\n")) << "tile map missing:\n" << odd;
  EXPECT_TRUE(std::regex_search(odd, std::regex("3 +17 +nan +1.25 +2.5e-06"))) << odd;
  EXPECT_TRUE(std::regex_search(odd, std::regex("3 +18 +7.5 +-0.5 +3e-06"))) << odd;
}

TEST(ResultsJson, ExtraDataIsMachineReadable) {
  const sg::GradeResult r = sample("gpu");
  const json j = json::parse(sg::results_json(r));
  const json& e = j["extra_data"];
  EXPECT_EQ(e["backend"], "gpu");
  EXPECT_EQ(e["device"], r.device);
  EXPECT_EQ(e["state"], "graded");
  EXPECT_EQ(e["seed"], std::to_string(r.seed));  // exact, unlike a double
  ASSERT_EQ(e["tests"].size(), r.tests.size());
  const json& odd = e["tests"][1];
  EXPECT_EQ(odd["name"], "odd_k");
  EXPECT_EQ(odd["comparison"]["wrong"], 312);
  EXPECT_EQ(odd["comparison"]["non_finite"], 12);
  EXPECT_EQ(odd["comparison"]["first_wrong"][0]["got"], "nan");
  EXPECT_DOUBLE_EQ(odd["comparison"]["first_wrong"][1]["got"].get<double>(), 7.5);
  EXPECT_EQ(odd["comparison"]["tile_map"].size(), 3u);
  const json& perf = e["tests"][4];
  EXPECT_EQ(perf["name"], "perf_1024");
  EXPECT_EQ(perf["measured"], true);
  EXPECT_DOUBLE_EQ(perf["timing"]["speedup"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(perf["timing"]["speedup_vs_naive"].get<double>(), 6.0);
  EXPECT_DOUBLE_EQ(perf["timing"]["percent_of_cublas"].get<double>(), 25.0);
  ASSERT_TRUE(j.contains("leaderboard"));
  ASSERT_EQ(j["leaderboard"].size(), 1u);
  EXPECT_EQ(j["leaderboard"][0]["name"], "GFLOP/s");
  EXPECT_DOUBLE_EQ(j["leaderboard"][0]["value"].get<double>(), 1073.7);
  EXPECT_EQ(j["leaderboard"][0]["order"], "desc");
}

TEST(ResultsJson, CpuBackendSaysPerformanceIsNotMeasured) {
  const sg::GradeResult r = sample("cpu");
  const json j = json::parse(sg::results_json(r));
  EXPECT_FALSE(j.contains("leaderboard"));
  int unmeasured = 0;
  for (std::size_t i = 0; i < r.tests.size(); ++i) {
    if (r.tests[i].kind != sg::TestKind::Performance) {
      EXPECT_FALSE(j["extra_data"]["tests"][i].contains("measured")) << r.tests[i].name;
      continue;
    }
    ++unmeasured;
    EXPECT_EQ(j["extra_data"]["tests"][i]["measured"], false);
    EXPECT_FALSE(j["tests"][i].contains("status")) << "neither passed nor failed";
    EXPECT_FALSE(j["tests"][i].contains("max_score"));
    const std::string out = j["tests"][i]["output"];
    EXPECT_EQ(out.rfind("Not measured: not measured on the CPU backend (performance cases need a GPU)\n", 0), 0u)
        << out;
    EXPECT_TRUE(contains(out, "worth 2 points when graded on a GPU")) << out;
    // The verdict already says so: not repeated.
    EXPECT_FALSE(contains(out, "Timing: not measured")) << out;
  }
  EXPECT_EQ(unmeasured, 2);
  const std::string summary = j["output"];
  EXPECT_TRUE(contains(summary, "(3 of 5 tests passed, 3 not measured)")) << summary;
  EXPECT_TRUE(contains(summary, "neither passed nor failed")) << summary;
}

TEST(ResultsJson, SummaryNamesBackendDeviceSeedBuildAndOutput) {
  const sg::GradeResult r = sample("gpu");
  const std::string out = json::parse(sg::results_json(r))["output"];
  EXPECT_TRUE(contains(out, "Backend: gpu"));
  EXPECT_TRUE(contains(out, r.device));
  EXPECT_TRUE(contains(out, std::to_string(r.seed)));
  EXPECT_TRUE(contains(out, "Build: ok"));
  EXPECT_TRUE(contains(out, "hello from the kernel"));
}

TEST(ResultsJson, ArbitraryBytesGiveValidJson) {
  sg::GradeResult r = sample("cpu");
  r.tests[0].name = std::string("name \xff\xc0\x80 ") + '\0' + " end";
  r.tests[0].detail = std::string("\x00\x1f\x7f\xed\xa0\x80", 6);  // NUL, controls, a surrogate
  r.build_log = "\xf8\x88\x80\x80\x80 warning";
  const std::string text = sg::results_json(r);
  json j;
  ASSERT_NO_THROW(j = json::parse(text)) << "results.json is not valid JSON/UTF-8";
  expect_gradescope_schema(j);
  const std::string out = j["output"];
  EXPECT_TRUE(contains(out, "caf\xc3\xa9")) << "valid UTF-8 must survive";
  EXPECT_TRUE(contains(out, "\xEF\xBF\xBD")) << "invalid bytes become U+FFFD";
  EXPECT_TRUE(contains(out, "red"));
  for (char c : out) {
    const auto u = static_cast<unsigned char>(c);
    EXPECT_TRUE(u >= 0x20 || c == '\n' || c == '\t') << "control byte " << int(u) << " kept";
  }
  EXPECT_TRUE(contains(j["tests"][0]["name"], "end"));
}

// What the runner printed from the first hidden case on waits for publication:
// the summary (shown at once) stops where that case started and says why;
// the rest is on the first hidden case, itself shown only after publication.
TEST(ResultsJson, OutputFromTheFirstHiddenCaseOnWaitsForPublication) {
  sg::GradeResult r = sample("cpu");
  r.student_output = "public case\nARGS m=17 n=65 k=33\n";
  r.output_before_hidden = "public case\n";
  json j = json::parse(sg::results_json(r));
  std::string summary = j["output"];
  EXPECT_TRUE(contains(summary, "public case")) << summary;
  EXPECT_FALSE(contains(summary, "m=17")) << summary;
  EXPECT_TRUE(contains(summary, "from the first hidden test case on is withheld until grades are published")) << summary;
  for (const auto& t : j["tests"]) {
    const std::string out = t["output"];
    if (t["visibility"] == "visible") {
      EXPECT_FALSE(contains(out, "m=17")) << t["name"] << ": " << out;
    }
  }
  const json* first_hidden = find_test(j["tests"], r.tests[2].name);
  ASSERT_NE(first_hidden, nullptr);
  EXPECT_EQ((*first_hidden)["visibility"], "after_published");
  EXPECT_TRUE(contains((*first_hidden)["output"], "ARGS m=17 n=65 k=33")) << (*first_hidden)["output"];
  EXPECT_FALSE(contains((*find_test(j["tests"], "hidden_rect"))["output"], "ARGS")) << "shown once";

  // Where the grading did not record where the hidden cases began, all of it waits.
  r.output_before_hidden.reset();
  j = json::parse(sg::results_json(r));
  summary = j["output"];
  EXPECT_FALSE(contains(summary, "public case")) << summary;
  EXPECT_TRUE(contains(summary, "Your program's output is withheld until grades are published")) << summary;
  EXPECT_TRUE(contains((*find_test(j["tests"], r.tests[2].name))["output"], "public case\nARGS m=17"));
  // report.md and report.html show hidden tests in full, and say whose they are.
  EXPECT_TRUE(contains(sg::report_markdown(r), "for course staff until grades are published"));
  EXPECT_TRUE(contains(sg::report_html(r), "<p id=\"staff-view\">"));

  // Without hidden cases nothing is withheld.
  r.tests.erase(r.tests.begin() + 2, r.tests.begin() + 4);
  ASSERT_FALSE(sg::report::has_hidden_case(r));
  summary = json::parse(sg::results_json(r))["output"];
  EXPECT_TRUE(contains(summary, "public case\nARGS m=17 n=65 k=33")) << summary;
  EXPECT_FALSE(contains(summary, "withheld")) << summary;
  EXPECT_FALSE(contains(sg::report_markdown(r), "for course staff"));
}

// A visible test whose words name a hidden case (a check listing the cases it
// saw) keeps its status; its details wait for publication.
TEST(ResultsJson, VisibleTestNamingAHiddenCaseWaitsForPublication) {
  sg::GradeResult r = sample("cpu");
  sg::TestResult& san = r.tests.back();
  san.status = sg::Status::Failed;
  san.max_score = 2;
  san.verdict = "no points: out-of-bounds accesses in 1 correctness case (hidden_rect; see their details)";
  sg::TestResult& visible = r.tests[0];
  visible.detail = "checked after the case at 100x50x70";
  const json j = json::parse(sg::results_json(r));
  for (const char* name : {"sanitizer", "small_square"}) {
    const std::string out = (*find_test(j["tests"], name))["output"];
    EXPECT_FALSE(contains(out, "hidden_rect")) << out;
    EXPECT_FALSE(contains(out, "100x50x70")) << out;
    EXPECT_TRUE(contains(out, "withheld until grades are published")) << out;
  }
  EXPECT_EQ((*find_test(j["tests"], "sanitizer"))["status"], "failed");
  EXPECT_TRUE(contains((*find_test(j["tests"], "odd_k"))["output"], "Check the loop bound")) << "other tests keep theirs";
  // Names match as words, shapes as the judge writes them.
  EXPECT_TRUE(sg::report::names_hidden_case(r, "(hidden_rect;"));
  EXPECT_FALSE(sg::report::names_hidden_case(r, "hidden_rectangle and my_hidden_rect"));
  EXPECT_TRUE(sg::report::names_hidden_case(r, "at 17x33x65."));
  EXPECT_FALSE(sg::report::names_hidden_case(r, "at 117x33x65 and 17x33x650"));
}

TEST(ResultsJson, CompileErrorScoresZeroAndShowsTheLog) {
  const sg::GradeResult r = compile_error();
  const json j = json::parse(sg::results_json(r));
  expect_gradescope_schema(j);
  EXPECT_EQ(j["score"].get<double>(), 0.0);
  EXPECT_EQ(j["extra_data"]["state"], "compile error");
  const std::string out = j["output"];
  EXPECT_TRUE(contains(out, "compile error"));
  EXPECT_TRUE(contains(out, "identifier \"tileA\" is undefined"));
  // Every test that could have run failed; those not measured on this backend
  // stay so, and out of the maximum, as for a submission that built.
  int unmeasured = 0;
  for (const auto& t : j["tests"]) {
    if (!t.contains("status")) {
      ++unmeasured;
      continue;
    }
    EXPECT_EQ(t["status"], "failed") << t["name"];
  }
  EXPECT_EQ(unmeasured, 3);
  EXPECT_EQ(j["extra_data"]["max_score"].get<double>(), sample("cpu").max_score());
}

TEST(TextClean, RandomBytesBecomeValidUtf8WithoutControls) {
  std::mt19937 gen(12345);
  // Bias towards the bytes that make UTF-8 and escapes interesting.
  static const char kBytes[] = "\x00\x01\x1b[m]\a\\\r\n\t\x7f\x80\x9f\xbf\xc0\xc2\xc3\xdf\xe0"
                               "\xed\xef\xf0\xf4\xf5\xfe\xff\xa0\xbe\x8f";
  const std::string pool = std::string(kBytes, sizeof kBytes - 1) + "ab<&";
  for (int round = 0; round < 3000; ++round) {
    std::string raw(gen() % 40, ' ');
    for (char& c : raw) c = gen() % 4 ? pool[gen() % pool.size()] : static_cast<char>(gen());
    const std::string clean = sg::report::clean_text(raw);
    // dump() without an error handler throws on invalid UTF-8.
    ASSERT_NO_THROW((void)json(clean).dump()) << "round " << round;
    for (char c : clean) {
      const auto u = static_cast<unsigned char>(c);
      ASSERT_TRUE(u >= 0x20 || c == '\n' || c == '\t') << "control " << int(u) << " in round " << round;
      ASSERT_NE(u, 0x7F);
    }
    ASSERT_EQ(clean.find("\xC2\x80"), std::string::npos);  // no C1 controls (XML 1.0 discourages)
    ASSERT_EQ(clean.find("\xEF\xBF\xBE"), std::string::npos);  // U+FFFE is not a character
  }
  EXPECT_EQ(sg::report::clean_text("caf\xc3\xa9 \xe2\x82\xac ok"), "caf\xc3\xa9 \xe2\x82\xac ok");
  EXPECT_EQ(sg::report::clean_text("a\r\nb\rc"), "a\nb\nc");
  EXPECT_EQ(sg::report::clean_text("\x1b[1;31mred\x1b[0m"), "red");
  EXPECT_EQ(sg::report::clean_text("\xed\xa0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
  EXPECT_EQ(sg::report::cap_text("\xc3\xa9\xc3\xa9", 3), "\xc3\xa9\n[... 2 more bytes not shown]\n");
}

// ------------------------------------------------------------------ junit.xml

TEST(JUnitXml, IsWellFormedWithConsistentCounts) {
  for (const std::string backend : {"gpu", "cpu"}) {
    SCOPED_TRACE(backend);
    const sg::GradeResult r = sample(backend);
    const json j = parse_junit(sg::junit_xml(r));
    ASSERT_FALSE(j.is_null());
    EXPECT_EQ(j["root"], "testsuites");
    ASSERT_EQ(j["suites"].size(), 1u);
    const json& s = j["suites"][0];
    int failed = 0, skipped = 0;
    for (const auto& t : r.tests) {
      failed += t.status == sg::Status::Failed;
      skipped += t.status == sg::Status::Skipped;
    }
    int failure_elems = 0, skipped_elems = 0;
    for (const auto& c : s["cases"]) {
      failure_elems += !c["failure"].is_null();
      skipped_elems += c["skipped"].get<bool>();
    }
    EXPECT_EQ(s["cases"].size(), r.tests.size());
    EXPECT_EQ(failure_elems, failed);
    EXPECT_EQ(skipped_elems, skipped);
    for (const json* a : {&s["attrs"], &j["attrs"]}) {
      EXPECT_EQ((*a)["tests"], std::to_string(r.tests.size()));
      EXPECT_EQ((*a)["failures"], std::to_string(failed));
      EXPECT_TRUE(a->contains("time"));
    }
    EXPECT_EQ(s["attrs"]["skipped"], std::to_string(skipped));
    EXPECT_FALSE(j["attrs"].contains("skipped")) << "not allowed on <testsuites> by Jenkins' schema";
    EXPECT_EQ(s["props"]["backend"], backend);
  }
}

TEST(JUnitXml, EscapesMarkupAndDropsIllegalCharacters) {
  const sg::GradeResult r = sample("gpu");
  const json j = parse_junit(sg::junit_xml(r));
  ASSERT_FALSE(j.is_null());
  const json& cases = j["suites"][0]["cases"];
  ASSERT_EQ(cases.size(), r.tests.size());
  for (std::size_t i = 0; i < r.tests.size(); ++i) EXPECT_EQ(cases[i]["name"], r.tests[i].name);
  EXPECT_EQ(cases[2]["failure"], r.tests[2].verdict);  // <, &, " survive a round trip
  EXPECT_TRUE(contains(cases[1]["failure_text"], "the last K tile"));
  const std::string out = j["suites"][0]["out"];
  EXPECT_TRUE(contains(out, "hello from the kernel"));
  EXPECT_TRUE(contains(out, "caf\xc3\xa9"));
  EXPECT_FALSE(contains(out, std::string(1, '\0')));
}

TEST(JUnitXml, CompileErrorFailsTheSubmission) {
  const sg::GradeResult r = compile_error();
  const json j = parse_junit(sg::junit_xml(r));
  ASSERT_FALSE(j.is_null());
  const json& s = j["suites"][0];
  // The extra "submission" case fails, with every test that could not run;
  // those not measured on this backend are skipped either way.
  int failed = 0, skipped = 0;
  for (const auto& t : r.tests) {
    failed += t.status == sg::Status::Failed;
    skipped += t.status == sg::Status::Skipped;
  }
  EXPECT_EQ(skipped, 3);
  EXPECT_EQ(s["attrs"]["tests"], std::to_string(r.tests.size() + 1));
  EXPECT_EQ(s["attrs"]["failures"], std::to_string(1 + failed));
  EXPECT_EQ(s["attrs"]["skipped"], std::to_string(skipped));
  EXPECT_EQ(s["cases"][0]["name"], "submission");
  EXPECT_EQ(s["cases"][0]["failure"], "compile error");
  EXPECT_TRUE(contains(s["cases"][0]["failure_text"], "identifier \"tileA\" is undefined"));
  EXPECT_TRUE(contains(s["err"], "identifier \"tileA\" is undefined"));
}

// Attributes each element may carry: those both Jenkins' JUnit schema
// (xunit-plugin junit-10.xsd) and Ant's XMLJUnitResultFormatter output allow.
// Jenkins rejects `skipped` on <testsuites>; on <testsuite> it is allowed.
const std::map<std::string, std::set<std::string>>& junit_attributes() {
  static const std::map<std::string, std::set<std::string>> allowed = {
      {"testsuites", {"name", "time", "tests", "failures", "disabled", "errors"}},
      {"testsuite", {"name", "tests", "failures", "errors", "time", "disabled", "skipped", "timestamp", "hostname",
                     "id", "package"}},
      {"properties", {}},
      {"property", {"name", "value"}},
      {"testcase", {"name", "assertions", "time", "classname", "status"}},
      {"skipped", {"message"}},
      {"failure", {"message", "type"}},
      {"error", {"message", "type"}},
      {"system-out", {}},
      {"system-err", {}}};
  return allowed;
}

TEST(JUnitXml, AttributesAreThoseJenkinsAndAntAccept) {
  for (const sg::GradeResult& r : {sample("gpu"), sample("cpu"), compile_error()}) {
    const std::string xml = sg::junit_xml(r);
    const std::regex tag("<([A-Za-z][A-Za-z0-9-]*)((?:\\s+[A-Za-z_:][A-Za-z0-9_.:-]*=\"[^\"]*\")*)\\s*/?>");
    const std::regex attribute("([A-Za-z_:][A-Za-z0-9_.:-]*)=\"");
    int elements = 0;
    for (auto it = std::sregex_iterator(xml.begin(), xml.end(), tag); it != std::sregex_iterator(); ++it) {
      const std::string element = (*it)[1];
      ++elements;
      const auto allowed = junit_attributes().find(element);
      ASSERT_NE(allowed, junit_attributes().end()) << "element <" << element << "> is in no JUnit schema";
      const std::string attrs = (*it)[2];
      std::set<std::string> seen;
      for (auto a = std::sregex_iterator(attrs.begin(), attrs.end(), attribute); a != std::sregex_iterator(); ++a) {
        const std::string name = (*a)[1];
        EXPECT_TRUE(allowed->second.count(name)) << "<" << element << " " << name << "=...> is not allowed";
        EXPECT_TRUE(seen.insert(name).second) << "duplicate " << name << " on <" << element << ">";
      }
      if (element == "testsuite" || element == "testcase") {
        EXPECT_TRUE(seen.count("name")) << element;
      }
      if (element == "testsuite") {
        EXPECT_TRUE(seen.count("tests"));
      }
    }
    EXPECT_GT(elements, 10);
    // And well-formed, by a real XML parser where one is installed.
    if (std::system("command -v xmllint >/dev/null 2>&1") == 0) {
      const std::string dir = temp_dir();
      std::ofstream(dir + "/junit.xml") << xml;
      EXPECT_EQ(std::system(("xmllint --noout '" + dir + "/junit.xml'").c_str()), 0) << xml;
      std::filesystem::remove_all(dir);
    }
  }
}

// ------------------------------------------------------------------ report.md

// The line of a Markdown table whose first cell starts with `first`.
std::string table_row(const std::string& md, const std::string& first) {
  std::istringstream in(md);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("| " + first, 0) == 0) return line;
  return "";
}

int unescaped_pipes(const std::string& line) {
  int n = 0;
  for (std::size_t i = 0; i < line.size(); ++i) n += line[i] == '|' && (i == 0 || line[i - 1] != '\\');
  return n;
}

TEST(ReportMarkdown, HeaderAndTestTable) {
  const sg::GradeResult r = sample("gpu");
  const std::string md = sg::report_markdown(r);
  EXPECT_EQ(md.rfind("# ", 0), 0u) << "starts with a title";
  EXPECT_TRUE(contains(table_row(md, "Submission"), r.submission));
  EXPECT_TRUE(contains(table_row(md, "Suite"), "default"));
  EXPECT_TRUE(contains(table_row(md, "Backend"), "gpu"));
  EXPECT_TRUE(contains(table_row(md, "Device"), r.device));
  EXPECT_TRUE(contains(table_row(md, "Score"), "19.5 / 37"));
  // Every test has a row with the same number of cells as the header.
  const int cells = unescaped_pipes(table_row(md, "Test |"));
  ASSERT_GT(cells, 5);
  for (const auto& t : r.tests) {
    const std::string first = t.name.substr(0, 6);
    const std::string row = table_row(md, first);
    ASSERT_FALSE(row.empty()) << "no row for " << t.name;
    EXPECT_EQ(unescaped_pipes(row), cells) << row;
  }
  const std::string perf = table_row(md, "perf_1024");
  EXPECT_TRUE(contains(perf, "1024x1024x1024"));
  EXPECT_TRUE(contains(perf, "1073.7"));
  EXPECT_TRUE(contains(perf, "1.5x"));
  // The hostile name: Markdown's punctuation backslash-escaped, no raw HTML.
  const std::string hidden = table_row(md, "hidden \\<edge> \\& \"case\" \\| 'x'");
  EXPECT_FALSE(hidden.empty()) << md;
  EXPECT_TRUE(contains(hidden, "(hidden)"));
  EXPECT_FALSE(std::regex_search(md, std::regex("[^\\\\]<edge>"))) << "raw HTML";
}

TEST(ReportMarkdown, FailingTestSectionShowsTheEvidence) {
  const std::string md = sg::report_markdown(sample("gpu"));
  const std::size_t at = md.find("### odd_k");
  ASSERT_NE(at, std::string::npos) << md;
  const std::string section = md.substr(at, md.find("### ", at + 4) - at);
  EXPECT_TRUE(contains(section, "wrong result: 312 of 333000 elements"));
  EXPECT_TRUE(contains(section, "**312** of 333000"));
  EXPECT_TRUE(contains(section, "41.5 times its bound"));
  const std::string first = table_row(section, "3 | 17");
  EXPECT_TRUE(contains(first, "nan")) << section;
  EXPECT_TRUE(contains(first, "1.25"));
  EXPECT_TRUE(contains(table_row(section, "3 | 18"), "| 7.5 | -0.5 |"));
  EXPECT_TRUE(contains(section, "```text\n..#\n..#\n###\n```")) << section;
  EXPECT_TRUE(contains(section, "- fails only when k is not a multiple of 16 -> the last K tile"));
  EXPECT_FALSE(contains(md, "### small_square")) << "passed tests get no failure section";
}

TEST(ReportMarkdown, PerformanceSection) {
  const std::string md = sg::report_markdown(sample("gpu"));
  ASSERT_TRUE(contains(md, "## Performance"));
  const std::string row = table_row(md.substr(md.find("## Performance")), "perf_1024");
  for (const char* cell : {"| 2 |", "| 3.1% |", "| 15 |", "| 3 |", "| 1.5x |", "| 6x |", "| 25% |", "| yes |"})
    EXPECT_TRUE(contains(row, cell)) << cell << " missing in " << row;
  EXPECT_TRUE(contains(md, "faster than cuBLAS allows"));
  EXPECT_TRUE(contains(md, "Timed by CUDA events around each launch, never below the grader's own clock")) << md;
  EXPECT_TRUE(contains(md, "at least 1.875 ms")) << md;
  EXPECT_FALSE(contains(md, "event times were below")) << md;
  sg::GradeResult floored = sample("gpu");
  for (auto& t : floored.tests)
    if (t.timing) t.timing->student_floor_used = true;
  EXPECT_TRUE(contains(sg::report_markdown(floored), "the runner's own event times were below the grader's clock; "
                                                     "the grader's 1.875 ms was used"));

  const std::string cpu = sg::report_markdown(sample("cpu"));
  EXPECT_TRUE(contains(cpu, "not measured on the CPU backend"));
  const std::string unmeasured = table_row(cpu, "perf_1024");
  EXPECT_TRUE(contains(unmeasured, "| not measured | - |")) << unmeasured;
}

TEST(ReportMarkdown, EachFactOnceEscapedAndPlainNumbers) {
  sg::GradeResult r = sample("gpu");
  sg::TestResult& odd = r.tests[1];
  // The judge's detail opens with the comparison as text, as record_comparison writes it.
  odd.detail = sg::describe_comparison(*odd.comparison, odd.m, odd.n) + "load B[t*n + col] only when t*16 + ty < k\n";
  odd.diagnoses = {{"index.b", "B[t*n + col] reads past <k> & stays _wrong_"}};
  const std::string md = sg::report_markdown(r);
  const std::size_t at = md.find("### odd_k");
  ASSERT_NE(at, std::string::npos) << md;
  const std::string section = md.substr(at, md.find("### ", at + 4) - at);
  // The elements and the tile map once each: as tables and a map, not again as text.
  EXPECT_FALSE(contains(section, "first wrong elements (row, col)")) << section;
  EXPECT_FALSE(contains(section, "wrong output tiles")) << section;
  EXPECT_EQ(section.find("..#\n..#\n###"), section.rfind("..#\n..#\n###")) << section;
  EXPECT_TRUE(contains(section, "load B[t*n + col] only when")) << "the rest of the detail stays:\n" << section;
  // Markdown text keeps its characters: escaped, never turned into emphasis or HTML.
  EXPECT_TRUE(contains(section, "- B\\[t\\*n + col\\] reads past \\<k> \\& stays \\_wrong\\_")) << section;
  EXPECT_FALSE(contains(md, "&lt;"));
  // No heading without content; points as people write them.
  for (const sg::GradeResult& x : {r, sample("cpu"), compile_error()}) {
    const std::string text = sg::report_markdown(x);
    std::istringstream in(text);
    std::string line, previous_heading;
    bool body = true;
    std::size_t previous_level = 0;
    while (std::getline(in, line)) {
      if (line.rfind("#", 0) == 0) {
        const std::size_t level = line.find_first_not_of('#');
        // A heading holds text, or sections of its own.
        EXPECT_TRUE(body || level > previous_level) << "empty section: " << previous_heading;
        previous_heading = line;
        previous_level = level;
        body = false;
      } else if (!line.empty()) {
        body = true;
      }
    }
    EXPECT_TRUE(body) << "empty last section: " << previous_heading;
    EXPECT_FALSE(std::regex_search(text, std::regex("[0-9]\\.[0-9]*000000"))) << text;
  }
}

TEST(ReportMarkdown, BuildLogAndCappedStudentOutput) {
  const std::string md = sg::report_markdown(compile_error());
  ASSERT_TRUE(contains(md, "## Compile error"));
  EXPECT_TRUE(contains(md, "identifier \"tileA\" is undefined"));

  sg::GradeResult r = sample("cpu");
  r.student_output = "```` not a fence\n" + std::string(200 * 1024, 'x');
  const std::string big = sg::report_markdown(r);
  EXPECT_LT(big.size(), 64u * 1024) << "student output must be capped";
  EXPECT_TRUE(contains(big, "more bytes not shown"));
  EXPECT_TRUE(contains(big, "`````text\n```` not a fence")) << "fence must outgrow the content's";

  const std::string hostile = sg::report_markdown(sample("cpu"));
  EXPECT_TRUE(contains(hostile, "hello from the kernel"));
  EXPECT_FALSE(contains(hostile, std::string(1, '\0')));
  EXPECT_FALSE(contains(hostile, "\x1b"));
}

// -------------------------------------------------------- terminal summary

TEST(TerminalSummary, PlainTableWithoutColour) {
  const sg::GradeResult r = sample("gpu");
  std::ostringstream out;
  sg::print_summary(r, out, false);
  const std::string s = out.str();
  EXPECT_FALSE(contains(s, "\x1b")) << "no ANSI codes without colour";
  for (const auto& t : r.tests) EXPECT_TRUE(contains(s, t.name.substr(0, 10))) << t.name;
  EXPECT_TRUE(contains(s, "Total"));
  EXPECT_TRUE(contains(s, "19.5/37"));
  EXPECT_TRUE(contains(s, "FAIL"));
  EXPECT_TRUE(contains(s, "PART"));
  EXPECT_TRUE(contains(s, "----")) << "not measured: neither PASS nor FAIL";
  EXPECT_TRUE(contains(s, "3 of 7 tests passed, 1 not measured")) << s;
  EXPECT_TRUE(contains(s, "wrong result: 312"));

  std::ostringstream cpu;
  sg::print_summary(sample("cpu"), cpu, false);
  EXPECT_TRUE(contains(cpu.str(), "not measured on the CPU backend"));
}

TEST(TerminalSummary, ColourOnlyWhenAsked) {
  std::ostringstream out;
  sg::print_summary(sample("gpu"), out, true);
  const std::string s = out.str();
  EXPECT_TRUE(contains(s, "\x1b[31mFAIL\x1b[0m"));
  EXPECT_TRUE(contains(s, "\x1b[32mPASS\x1b[0m"));
}

// Sets or clears NO_COLOR for one scope.
class NoColorEnv {
 public:
  explicit NoColorEnv(const char* value) {
    if (const char* old = std::getenv("NO_COLOR")) old_ = old;
    if (value) setenv("NO_COLOR", value, 1);
    else unsetenv("NO_COLOR");
  }
  ~NoColorEnv() {
    if (old_) setenv("NO_COLOR", old_->c_str(), 1);
    else unsetenv("NO_COLOR");
  }

 private:
  std::optional<std::string> old_;
};

TEST(TerminalSummary, UseColorNeedsATtyAndNoNoColor) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  {
    NoColorEnv env(nullptr);
    EXPECT_FALSE(sg::use_color(fds[1])) << "a pipe is not a terminal";
  }
  close(fds[0]);
  close(fds[1]);

  const int master = posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) {
    if (master >= 0) close(master);
    GTEST_SKIP() << "no pseudo-terminal available to test the TTY case";
  }
  const int tty = open(ptsname(master), O_RDWR | O_NOCTTY);
  ASSERT_GE(tty, 0);
  {
    NoColorEnv env(nullptr);
    EXPECT_TRUE(sg::use_color(tty));
  }
  {
    NoColorEnv env("");
    EXPECT_TRUE(sg::use_color(tty)) << "an empty NO_COLOR does not count";
  }
  {
    NoColorEnv env("1");
    EXPECT_FALSE(sg::use_color(tty));
  }
  close(tty);
  close(master);
}

// ------------------------------------------------------------- write_reports

TEST(WriteReports, WritesTheThreeFiles) {
  const sg::GradeResult r = sample("gpu");
  const std::string root = temp_dir();
  const std::string dir = root + "/out/alice";
  sg::write_reports(r, dir);
  EXPECT_EQ(read_file(dir + "/results.json"), sg::results_json(r));
  EXPECT_EQ(read_file(dir + "/junit.xml"), sg::junit_xml(r));
  EXPECT_EQ(read_file(dir + "/report.md"), sg::report_markdown(r));
  EXPECT_FALSE(fs::exists(dir + "/results.json.tmp"));
  // Writing again replaces the reports.
  sg::GradeResult again = r;
  again.tests.pop_back();
  sg::write_reports(again, dir);
  EXPECT_EQ(read_file(dir + "/results.json"), sg::results_json(again));
  fs::remove_all(root);
}

TEST(WriteReports, FailureNamesThePath) {
  const std::string root = temp_dir();
  std::ofstream(root + "/file") << "x";
  try {
    sg::write_reports(sample("cpu"), root + "/file/sub");
    ADD_FAILURE() << "expected an exception for a folder under a file";
  } catch (const std::runtime_error& e) {
    EXPECT_TRUE(contains(e.what(), root + "/file/sub")) << e.what();
  }
  // results.json taken by a folder: the report itself cannot be written.
  fs::create_directories(root + "/out/results.json");
  try {
    sg::write_reports(sample("cpu"), root + "/out");
    ADD_FAILURE() << "expected an exception when results.json is a folder";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("cannot write " + root + "/out/results.json: ", 0), 0u)
        << e.what();
  }
  fs::remove_all(root);
}

}  // namespace

// ------------------------------------------------------------------ report.html

TEST(ReportHtml, SelfContainedPageWithHeatMapAndTimingCharts) {
  const sg::GradeResult r = sample("gpu");
  const std::string html = sg::report_html(r);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  // Nothing fetched, nothing run: readable offline and without script.
  for (const char* banned : {"<script", "http://", "https://", "<link", "<img", "<iframe"})
    EXPECT_FALSE(contains(html, banned)) << banned;
  EXPECT_TRUE(contains(html, "<strong id=\"score\">19.5 / 37</strong>")) << html;
  for (const auto& t : r.tests) EXPECT_TRUE(contains(html, sg::report::xml_escape(t.name))) << t.name;
  EXPECT_FALSE(contains(html, "<edge>")) << "names are escaped";
  // The heat map: one square per tile-map cell, wrong ones red, with the first wrong element in a title.
  const std::size_t map_at = html.find("<svg class=\"heatmap\"");
  ASSERT_NE(map_at, std::string::npos) << html;
  const std::string map = html.substr(map_at, html.find("</svg>", map_at) - map_at);
  int cells = 0, wrong = 0;
  for (std::size_t at = map.find("<rect"); at != std::string::npos; at = map.find("<rect", at + 1)) ++cells;
  for (std::size_t at = map.find("class=\"wrong"); at != std::string::npos; at = map.find("class=\"wrong", at + 1))
    ++wrong;
  EXPECT_EQ(cells, 9);
  EXPECT_EQ(wrong, 5);  // ..# ..# ###
  EXPECT_TRUE(contains(map, "first wrong C[3][17] = nan, expected 1.25")) << map;
  EXPECT_TRUE(contains(map, "edge")) << "m = 1000 and n = 777 leave partial tiles at the edge";
  // The diagnosis with its id, the timing ladder with every kernel.
  EXPECT_TRUE(contains(html, "<li data-id=\"across.k_tail\">")) << html;
  for (const char* kernel : {">naive<", ">tiled reference<", ">cuBLAS<", ">your kernel<"})
    EXPECT_TRUE(contains(html, kernel)) << kernel;
  EXPECT_TRUE(contains(html, "implausible")) << "perf_2048's flag is shown";
  // The judge's text form of the comparison is not shown again below the table and map.
  sg::GradeResult judged = r;
  sg::TestResult& odd = judged.tests[1];
  odd.detail = sg::describe_comparison(*odd.comparison, odd.m, odd.n) + "the output changed between two runs\n";
  const std::string once = sg::report_html(judged);
  EXPECT_FALSE(contains(once, "first wrong elements (row, col)")) << once;
  EXPECT_TRUE(contains(once, "the output changed between two runs")) << once;
  // Well-formed XML, by a real parser where one is installed.
  if (std::system("command -v xmllint >/dev/null 2>&1") == 0) {
    const std::string dir = temp_dir();
    for (const sg::GradeResult& x : {r, sample("cpu"), compile_error()}) {
      std::ofstream(dir + "/report.html") << sg::report_html(x);
      EXPECT_EQ(std::system(("xmllint --noout '" + dir + "/report.html'").c_str()), 0);
    }
    std::filesystem::remove_all(dir);
  }
}
