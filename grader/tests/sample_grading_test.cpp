// End to end: every sample submission under grader/samples/ is graded by the
// real `grade` binary and its results.json is held to the sample's
// expect.yaml (state, tests that must fail or pass, the score range those
// lists imply with the suite's points (sample_expect.h), words the feedback
// must mention, the first hint a student reads). GPU backend where a device
// exists; the CPU backend everywhere but for the samples marked
// cpu_not_graded. Real students' kernels (grader/samples/real/) are graded once
// grader/tools/real_corpus.sh has materialised them; samples marked
// known_unfair (cpu_known_unfair: CPU backend only) are skipped with the reason.
// SG_SAMPLE_SUITE=FILE grades them against another suite than
// testcases/default.yaml: the expected ranges follow its points.
#include <unistd.h>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_guard.h"
#include "model/plan.h"
#include "process/sandbox.h"
#include "sample_expect.h"
#include "suite/suite_loader.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Sample {
  std::string name;    // group/name
  fs::path dir;
  fs::path submission;
};

// Names the sample in GoogleTest's messages instead of dumping its bytes.
void PrintTo(const Sample& s, std::ostream* os) { *os << s.name; }

std::vector<Sample> all_samples() {
  std::vector<Sample> out;
  const fs::path root = fs::path(SG_SOURCE_ROOT) / "grader/samples";
  std::error_code ec;
  for (auto& group : fs::directory_iterator(root, ec)) {
    if (!group.is_directory()) continue;
    for (auto& s : fs::directory_iterator(group.path())) {
      if (!fs::exists(s.path() / "expect.yaml")) continue;
      Sample x;
      x.name = group.path().filename().string() + "/" + s.path().filename().string();
      x.dir = s.path();
      YAML::Node e = YAML::LoadFile((s.path() / "expect.yaml").string());
      x.submission = e["source"] ? fs::weakly_canonical(s.path() / e["source"].as<std::string>())
                                 : s.path() / "kernel.cu";
      out.push_back(x);
    }
  }
  std::sort(out.begin(), out.end(), [](const Sample& a, const Sample& b) { return a.name < b.name; });
  return out;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Processes still running from this grading's private work folders (runners, their children).
std::vector<std::string> leftover_runners(const std::string& work_root) {
  std::vector<std::string> found;
  for (int round = 0; round < 20; ++round) {
    found.clear();
    std::error_code ec;
    for (auto& e : fs::directory_iterator("/proc", ec)) {
      const std::string pid = e.path().filename().string();
      if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
      std::string cmd = slurp(e.path() / "cmdline");
      for (char& c : cmd)
        if (c == '\0') c = ' ';
      if (cmd.find(work_root) != std::string::npos) found.push_back(pid + ": " + cmd);
    }
    if (found.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the kernel may still be reaping
  }
  return found;
}

// SG_SAMPLE_SUITE, or "": grade's own default, testcases/default.yaml.
std::string suite_override() {
  const char* s = std::getenv("SG_SAMPLE_SUITE");
  return s && *s ? std::string(s) : std::string();
}

// The suite the samples are graded against and their ranges derived from.
std::string sample_suite() {
  const std::string s = suite_override();
  return s.empty() ? std::string(SG_SOURCE_ROOT) + "/testcases/default.yaml" : s;
}

// Runs build/grade on the sample; returns its exit code, fills results.json.
int run_grade(const Sample& s, const std::string& backend, json& results, std::string& log) {
  const fs::path out = fs::path(SG_BUILD_DIR) / "test-grades" / backend / s.name;
  fs::remove_all(out);
  fs::create_directories(out);
  fs::create_directories(out / "tmp");
  // SG_TEST_GPU_LOCK: shards of this test run side by side on one GPU share
  // the batch's lock, so that no shard's timing overlaps another's launches.
  const char* lock = std::getenv("SG_TEST_GPU_LOCK");
  const std::string lock_option = lock && *lock && backend == "gpu" ? " --gpu-lock '" + std::string(lock) + "'" : "";
  const std::string suite_option = suite_override().empty() ? "" : " --suite '" + suite_override() + "'";
  const std::string cmd = "TMPDIR='" + (out / "tmp").string() + "' timeout -k 10 600 '" + std::string(SG_BUILD_DIR) +
                          "/grade' --quiet --seed 12345 --backend " + backend + lock_option + suite_option + " --out '" +
                          out.string() + "' '" + s.submission.string() + "' >'" +
                          (out / "stdout.txt").string() + "' 2>'" + (out / "stderr.txt").string() + "' </dev/null";
  int rc = std::system(cmd.c_str());
  rc = WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
  log = slurp(out / "stdout.txt") + slurp(out / "stderr.txt");
  if (fs::exists(out / "results.json")) results = json::parse(slurp(out / "results.json"), nullptr, false);
  return rc;
}

// What a score outside its range is made of, first in the failure message (a
// CI log keeps only part of the output): each test that lost points, its
// status and the first lines of its output, then the grade log's last lines.
std::string lost_points(const json& r, const std::string& log) {
  std::ostringstream out;
  out << "lost points:\n";
  for (const json& t : r.value("tests", json::array())) {
    const double score = t.value("score", 0.0), max = t.value("max_score", 0.0);
    if (!t.contains("status") || score >= max - 1e-9) continue;
    std::istringstream output(t.value("output", ""));
    out << "  " << t.value("name", "?") << " " << t.value("status", "?") << " " << score << "/" << max << ":";
    std::string line;
    for (int n = 0; n < 4 && std::getline(output, line); ++n) out << "\n    " << line;
    out << "\n";
  }
  const std::size_t tail = log.size() > 3000 ? log.size() - 3000 : 0;
  out << "grade's output (end):\n" << log.substr(tail) << "\n";
  return out.str();
}

void check_expectations(const Sample& s, const std::string& backend) {
  YAML::Node e = YAML::LoadFile((s.dir / "expect.yaml").string());
  if (backend == "cpu" && e["cpu_not_graded"])
    GTEST_SKIP() << s.name << " not graded on the CPU backend: " << e["cpu_not_graded"].as<std::string>();
  // The expectation says what a fair grader gives; until the grader does, the mark says why not.
  if (e["known_unfair"]) GTEST_SKIP() << s.name << " known unfair: " << e["known_unfair"].as<std::string>();
  if (backend == "cpu" && e["cpu_known_unfair"])
    GTEST_SKIP() << s.name << " known unfair on the CPU backend: " << e["cpu_known_unfair"].as<std::string>();
  // An attack that only the sandbox and a user per grading keep from the test itself.
  if (e["unsafe_unsandboxed"] && (::geteuid() != 0 || !sg::probe_sandbox().available()))
    GTEST_SKIP() << s.name << " needs the sandbox and root here: " << e["unsafe_unsandboxed"].as<std::string>();
  // An attack on the disk that only a grading's own tmpfs quotas keep from the test machine.
  if (e["needs_disk_quota"] && (::geteuid() != 0 || std::system("unshare -m true >/dev/null 2>&1") != 0))
    GTEST_SKIP() << s.name << " needs the grader to mount its quotas (root): "
                 << e["needs_disk_quota"].as<std::string>();
  if (!fs::exists(s.submission))
    GTEST_SKIP() << s.name << ": " << s.submission.string() << " is not materialised (run grader/tools/real_corpus.sh)";
  json r;
  std::string log;
  const int rc = run_grade(s, backend, r, log);
  ASSERT_EQ(rc, 0) << "grade failed on " << s.name << ":\n" << log;
  ASSERT_TRUE(r.is_object()) << "no valid results.json for " << s.name << "\n" << log;

  const json& extra = r["extra_data"];
  const std::string state = extra.value("state", "");
  EXPECT_EQ(state, e["state"].as<std::string>("graded")) << s.name;
  // One maximum for every submission on a backend, whether it built or not.
  const sg::Suite suite = sg::load_suite_file(sample_suite());
  const std::vector<sg::TestResult> planned =
      sg::plan_tests(suite, sg::Shown::All, backend == "cpu" ? sg::kCpuNotTimed : "");
  double maximum = 0;
  for (const auto& t : planned) maximum += t.max_score;
  EXPECT_DOUBLE_EQ(extra["max_score"].get<double>(), maximum) << s.name;
  // The range the lists imply with the suite's points (sample_expect.h).
  const sg_samples::ScoreRange want = sg_samples::expected_score_range(e, planned, backend == "cpu");
  const double score = r["score"].get<double>();
  EXPECT_GE(score, want.lo - 1e-6) << s.name << " scored " << score << ", expected [" << want.lo << ", " << want.hi
                                   << "]\n" << lost_points(r, log) << r.dump(1).substr(0, 6000);
  EXPECT_LE(score, want.hi + 1e-6) << s.name << " scored " << score << ", expected [" << want.lo << ", " << want.hi
                                   << "]\n" << lost_points(r, log) << r.dump(1).substr(0, 6000);

  auto test_named = [&](const std::string& name) -> const json* {
    for (const json& t : r["tests"])
      if (t["name"] == name) return &t;
    return nullptr;
  };
  // Tests not measured on this backend (e.g. performance on the CPU) are not
  // held to pass/fail lists: they have no status (neither passed nor failed).
  auto skipped_here = [&](const json& t) { return !t.contains("status"); };
  for (const auto& n : e["must_fail"]) {
    const json* t = test_named(n.as<std::string>());
    if (!t) continue;  // not part of this run (e.g. hidden)
    if (backend == "cpu" && skipped_here(*t)) continue;
    EXPECT_EQ((*t)["status"], "failed") << s.name << ": " << n.as<std::string>() << " should fail\n" << t->dump(1);
    EXPECT_LT((*t)["score"].get<double>(), (*t)["max_score"].get<double>() + 1e-9);
  }
  // Undefined behaviour the CPU backend always shows and a GPU only sometimes:
  // failed on the CPU backend, either way on a GPU.
  if (backend == "cpu")
    for (const auto& n : e["cpu_stricter"]["tests"]) {
      const json* t = test_named(n.as<std::string>());
      if (!t) continue;
      EXPECT_EQ((*t)["status"], "failed") << s.name << ": " << n.as<std::string>()
                                          << " should fail on the CPU backend (cpu_stricter)\n" << t->dump(1);
    }
  for (const auto& n : e["must_pass"]) {
    const json* t = test_named(n.as<std::string>());
    if (!t) continue;
    if (backend == "cpu" && skipped_here(*t)) continue;
    EXPECT_EQ((*t)["status"], "passed") << s.name << ": " << n.as<std::string>() << " should pass\n" << t->dump(1);
  }
  const std::string everything = lower(r.dump());
  for (const auto& m : e["mentions"]) {
    if (backend == "cpu" && e["cpu_mentions"]) break;
    EXPECT_NE(everything.find(lower(m.as<std::string>())), std::string::npos)
        << s.name << ": results should mention \"" << m.as<std::string>() << "\"";
  }
  if (backend == "cpu") {
    for (const auto& m : e["cpu_mentions"])
      EXPECT_NE(everything.find(lower(m.as<std::string>())), std::string::npos)
          << s.name << ": results should mention \"" << m.as<std::string>() << "\"";
  }
  // The first diagnosis a student reads (tests in suite order) names the actual bug.
  // A hint known to point the wrong way today is reported, not failed, until the grader is fixed.
  std::string hint_unfair = e["hint_known_unfair"] ? e["hint_known_unfair"].as<std::string>() : "";
  if (hint_unfair.empty() && backend == "cpu" && e["cpu_hint_known_unfair"])
    hint_unfair = e["cpu_hint_known_unfair"].as<std::string>();
  if (hint_unfair.empty() && backend == "gpu" && e["gpu_hint_known_unfair"])
    hint_unfair = e["gpu_hint_known_unfair"].as<std::string>();
  if (!hint_unfair.empty()) {
    std::cout << "[ NOTE     ] " << s.name << ": first hint not checked (known unfair): " << hint_unfair << "\n";
  } else if (e["first_hint"] || e["first_hint_id"]) {
    // The first test (suite order) with a diagnosis, or failed without one: then its verdict is the hint.
    std::string text, id;
    bool found = false;
    for (const json& t : extra["tests"]) {
      if (t.contains("diagnoses") && !t["diagnoses"].empty()) {
        text = t["diagnoses"][0].value("text", "");
        id = t["diagnoses"][0].value("id", "");
      } else if (t.value("status", "") == "failed") {
        text = t.value("verdict", "");
      } else {
        continue;
      }
      found = true;
      break;
    }
    // A kernel with two bugs may show either first (first_hint_or: {id, mentions}), e.g.
    // when a race decides on the GPU whether the other bug is seen first.
    const YAML::Node alt = e["first_hint_or"];
    bool alt_matches = false;
    if (found && alt && alt["id"].as<std::string>() == id) {
      alt_matches = true;
      for (const auto& w : alt["mentions"])
        EXPECT_NE(lower(text).find(lower(w.as<std::string>())), std::string::npos)
            << s.name << ": the first hint [" << id << "] should mention \"" << w.as<std::string>() << "\"; it is "
            << text;
    }
    if (!found) {
      ADD_FAILURE() << s.name << ": no hint at all; the first hint should name the bug";
    } else if (!alt_matches) {
      for (const auto& w : e["first_hint"])
        EXPECT_NE(lower(text).find(lower(w.as<std::string>())), std::string::npos)
            << s.name << ": the first hint should mention \"" << w.as<std::string>() << "\"; it is [" << id << "] "
            << text;
      if (e["first_hint_id"]) {
        bool any = false;
        for (const auto& want : e["first_hint_id"]) any = any || want.as<std::string>() == id;
        EXPECT_TRUE(any) << s.name << ": the first hint is [" << id << "] " << text;
      }
    }
  }
  EXPECT_GT(r["tests"].size(), 0u);
  // Nothing the submission started may outlive the grading.
  const fs::path out = fs::path(SG_BUILD_DIR) / "test-grades" / backend / s.name;
  const std::vector<std::string> left = leftover_runners((out / "tmp").string());
  EXPECT_TRUE(left.empty()) << s.name << " left processes behind: " << left.front();
}

class SampleGrading : public testing::TestWithParam<Sample> {};

TEST_P(SampleGrading, GpuBackendVerdict) {
  SG_REQUIRE_GPU();
  check_expectations(GetParam(), "gpu");
}

TEST_P(SampleGrading, CpuBackendVerdict) { check_expectations(GetParam(), "cpu"); }

std::string sample_test_name(const testing::TestParamInfo<Sample>& info) {
  std::string n = info.param.name;
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Samples, SampleGrading, testing::ValuesIn(all_samples()), sample_test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(SampleGrading);

// The range an expect.yaml implies (sample_expect.h), over a small suite: 22
// points on a GPU (a 2, b 3, c 5, p 1 + p/performance 7, structure 4), 14 on
// the CPU backend (p and p/performance set aside).
std::string tiny_suite(double points_of_a) {
  std::ostringstream y;
  y << "suite: tiny\ndescription: three cases, a timed one, a check\ncases:\n"
    << "  - {name: a, m: 16, k: 16, n: 16, points: " << points_of_a << "}\n"
    << "  - {name: b, m: 16, k: 16, n: 16, points: 3}\n"
    << "  - {name: c, m: 16, k: 16, n: 16, points: 5}\n"
    << "  - {name: p, m: 64, k: 64, n: 64, points: 1, performance: {points: 7, zero_at: 0.75, full_at: 0.95}}\n"
    << "checks:\n  - {name: structure, kind: shared_memory_and_barrier, points: 4}\n";
  return y.str();
}

sg_samples::ScoreRange range_for(const std::string& expect, double points_of_a, bool cpu) {
  const sg::Suite suite = sg::load_suite_string(tiny_suite(points_of_a), "tiny.yaml");
  return sg_samples::expected_score_range(YAML::Load(expect), sg::plan_tests(suite, sg::Shown::All,
                                                                              cpu ? sg::kCpuNotTimed : ""),
                                          cpu);
}

TEST(SampleScoreRange, LowerBoundMustPassUpperBoundAllButMustFail) {
  const std::string e =
      "state: graded\nmust_pass: [a, p]\nmust_fail: [b, structure]\n"
      "cpu_stricter: {reason: a race, tests: [c]}\n";
  // GPU: a + p = 3; 22 - b - structure = 15 (c and p/performance open, cpu_stricter either way).
  const sg_samples::ScoreRange gpu = range_for(e, 2, false);
  EXPECT_DOUBLE_EQ(gpu.lo, 3);
  EXPECT_DOUBLE_EQ(gpu.hi, 15);
  // CPU: p counts nothing there; c fails (cpu_stricter): a single value, a's 2.
  const sg_samples::ScoreRange cpu = range_for(e, 2, true);
  EXPECT_DOUBLE_EQ(cpu.lo, 2);
  EXPECT_DOUBLE_EQ(cpu.hi, 2);
  // No lists: anything from 0 to everything the backend grades.
  EXPECT_DOUBLE_EQ(range_for("state: graded\n", 2, false).hi, 22);
  EXPECT_DOUBLE_EQ(range_for("state: graded\n", 2, true).hi, 14);
  EXPECT_DOUBLE_EQ(range_for("state: graded\n", 2, true).lo, 0);
}

TEST(SampleScoreRange, FollowsTheSuitesPoints) {
  // The same expectations with a worth 6 instead of 2: both bounds move by 4
  // where a is passed, the upper bound alone where it is open, nothing where it fails.
  const std::string passes = "state: graded\nmust_pass: [a]\nmust_fail: [b]\n";
  EXPECT_DOUBLE_EQ(range_for(passes, 6, false).lo, 6);
  EXPECT_DOUBLE_EQ(range_for(passes, 6, false).hi, 23);
  EXPECT_DOUBLE_EQ(range_for(passes, 6, true).lo, 6);
  EXPECT_DOUBLE_EQ(range_for(passes, 6, true).hi, 15);
  const std::string fails = "state: graded\nmust_fail: [a, b, c, p, p/performance, structure]\n";
  EXPECT_DOUBLE_EQ(range_for(fails, 6, false).hi, 0);
  EXPECT_DOUBLE_EQ(range_for(fails, 6, true).hi, 0);
}

TEST(SampleScoreRange, NotGradedIsZeroAndFractionsNarrowTheGpuRange) {
  const std::string all = "must_pass: [a, b, c, p, p/performance, structure]\n";
  for (const char* state : {"compile error", "rejected"}) {
    const sg_samples::ScoreRange r = range_for("state: " + std::string(state) + "\n" + all, 2, false);
    EXPECT_DOUBLE_EQ(r.lo, 0) << state;
    EXPECT_DOUBLE_EQ(r.hi, 0) << state;
  }
  EXPECT_DOUBLE_EQ(range_for("state: graded\n" + all, 2, false).lo, 22);
  // gpu_score_fraction: [0.5, 0.6] of 22 over must_pass [a] (2 .. 22): [11, 13.2] on a GPU only.
  const std::string f = "state: graded\nmust_pass: [a]\ngpu_score_fraction: [0.5, 0.6]\n";
  EXPECT_DOUBLE_EQ(range_for(f, 2, false).lo, 11);
  EXPECT_NEAR(range_for(f, 2, false).hi, 13.2, 1e-12);
  EXPECT_DOUBLE_EQ(range_for(f, 2, true).lo, 2);
  EXPECT_DOUBLE_EQ(range_for(f, 2, true).hi, 14);
  // A list's bound tighter than the fraction's stays.
  EXPECT_DOUBLE_EQ(range_for("state: graded\nmust_fail: [a, b, c, p, structure]\ngpu_score_fraction: [0, 0.75]\n",
                             2, false).hi, 7);
}

}  // namespace
