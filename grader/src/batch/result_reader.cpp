#include "batch/result_reader.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "model/plan.h"
#include "pipeline/case_report.h"

namespace sg::batch {
namespace {

using Json = nlohmann::json;

// results.json writes non-finite numbers as words ("nan", "inf", "-inf").
double number(const Json& j, const char* key, double fallback = 0) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (it->is_number()) return it->get<double>();
  if (it->is_string()) {
    const std::string s = it->get<std::string>();
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() && *end == '\0') return v;
  }
  return fallback;
}

std::string text(const Json& j, const char* key) {
  const auto it = j.find(key);
  return (it != j.end() && it->is_string()) ? it->get<std::string>() : std::string();
}

int integer(const Json& j, const char* key) { return static_cast<int>(number(j, key, 0)); }

Status status_from_word(const std::string& w) {
  if (w == "passed") return Status::Passed;
  if (w == "partial") return Status::Partial;
  if (w == "skipped") return Status::Skipped;
  return Status::Failed;
}

Comparison comparison_from(const Json& j) {
  Comparison c;
  c.checked = static_cast<std::int64_t>(number(j, "checked"));
  c.wrong = static_cast<std::int64_t>(number(j, "wrong"));
  c.non_finite = static_cast<std::int64_t>(number(j, "non_finite"));
  c.worst_ratio = number(j, "worst_ratio");
  for (const auto& w : j.value("first_wrong", Json::array())) {
    Mismatch m;
    m.row = integer(w, "row");
    m.col = integer(w, "col");
    m.got = static_cast<float>(number(w, "got", std::numeric_limits<double>::quiet_NaN()));
    m.expected = number(w, "expected");
    m.bound = number(w, "bound");
    c.first_wrong.push_back(m);
  }
  for (const auto& row : j.value("tile_map", Json::array()))
    if (row.is_string()) c.tile_map.push_back(row.get<std::string>());
  return c;
}

Timing timing_from(const Json& j) {
  Timing t;
  t.student_ms = number(j, "student_ms");
  t.student_spread = number(j, "student_spread");
  t.reference_ms = number(j, "reference_ms");
  t.naive_ms = number(j, "naive_ms");
  t.cublas_ms = number(j, "cublas_ms");
  t.speedup = number(j, "speedup");
  t.student_gflops = number(j, "student_gflops");
  t.reference_gflops = number(j, "reference_gflops");
  t.cublas_gflops = number(j, "cublas_gflops");
  t.implausible = j.value("implausible", false);
  t.implausible_reason = text(j, "implausible_reason");
  t.samples = integer(j, "samples");
  return t;
}

// The extra_data record of test `i`, matched by name (the order normally agrees).
const Json* extra_for(const Json& extra_tests, std::size_t i, const std::string& name) {
  if (!extra_tests.is_array()) return nullptr;
  if (i < extra_tests.size() && text(extra_tests[i], "name") == name) return &extra_tests[i];
  for (const auto& e : extra_tests)
    if (text(e, "name") == name) return &e;
  return nullptr;
}

}  // namespace

GradeResult parse_results_json(const std::string& json_text, const std::string& where) {
  const Json root = Json::parse(json_text, nullptr, false);
  if (root.is_discarded() || !root.is_object())
    throw std::runtime_error(where + ": not a JSON object (results.json cut short or damaged?)");
  const auto tests_it = root.find("tests");
  if (tests_it == root.end() || !tests_it->is_array())
    throw std::runtime_error(where + ": no \"tests\" list");
  const Json extra = root.value("extra_data", Json::object());
  if (!extra.is_object()) throw std::runtime_error(where + ": \"extra_data\" is not an object");
  const Json extra_tests = extra.value("tests", Json::array());

  GradeResult r;
  r.student = text(extra, "student");
  r.submission = text(extra, "submission");
  const Json suite = extra.value("suite", Json::object());
  if (suite.is_object()) {
    r.suite_name = text(suite, "name");
    r.suite_path = text(suite, "path");
  }
  r.backend = parse_backend(text(extra, "backend"));
  r.device = text(extra, "device");
  const std::string state = text(extra, "state");
  r.state = state.empty() ? GradeState::Graded : parse_grade_state(state).value_or(GradeState::InternalError);
  r.seed = std::strtoull(text(extra, "seed").c_str(), nullptr, 10);
  r.seed_given = extra.value("seed_given", false);
  r.compile_time = number(extra, "compile_time");
  r.execution_time = number(root, "execution_time");

  std::size_t i = 0;
  for (const auto& jt : *tests_it) {
    if (!jt.is_object()) throw std::runtime_error(where + ": tests[" + std::to_string(i) + "] is not an object");
    TestResult t;
    t.name = text(jt, "name");
    t.score = number(jt, "score");
    t.max_score = number(jt, "max_score");
    t.visibility = text(jt, "visibility") == "after_published" ? Visibility::Hidden : Visibility::Public;
    t.status = text(jt, "status") == "passed" ? Status::Passed : Status::Failed;
    if (const Json* e = extra_for(extra_tests, i, t.name)) {
      t.kind = parse_test_kind(text(*e, "kind")).value_or(TestKind::Check);
      if (e->contains("status")) t.status = status_from_word(text(*e, "status"));
      t.verdict = text(*e, "verdict");
      t.m = integer(*e, "m");
      t.k = integer(*e, "k");
      t.n = integer(*e, "n");
      t.seconds = number(*e, "seconds");
      for (const auto& d : e->value("diagnoses", Json::array()))
        if (d.is_object()) t.diagnoses.push_back({text(d, "id"), text(d, "text")});
      if (e->contains("comparison") && (*e)["comparison"].is_object())
        t.comparison = comparison_from((*e)["comparison"]);
      if (e->contains("timing") && (*e)["timing"].is_object()) t.timing = timing_from((*e)["timing"]);
    }
    r.tests.push_back(std::move(t));
    ++i;
  }
  const auto lb = root.find("leaderboard");
  if (lb != root.end() && lb->is_array())
    for (const auto& entry : *lb)
      if (entry.is_object() && text(entry, "name") == "GFLOP/s") {
        const double v = number(entry, "value", std::numeric_limits<double>::quiet_NaN());
        if (std::isfinite(v)) r.leaderboard_gflops = v;
      }
  return r;
}

GradeResult read_results_file(const std::string& dir) {
  const std::string path = dir + "/results.json";
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream s;
  s << in.rdbuf();
  return parse_results_json(s.str(), path);
}

GradeResult unfinished_result(const Suite* suite, bool public_only, const std::string& student,
                              const std::string& submission, std::optional<BackendKind> backend,
                              GradeState state, const std::string& why, double max_when_no_suite) {
  GradeResult r;
  r.student = student;
  r.submission = submission;
  r.backend = backend;
  r.device = "not graded";
  r.state = state;
  r.build_log = why;
  if (suite) {
    r.suite_name = suite->name;
    r.suite_path = suite->path;
    r.tests = plan_tests(*suite, public_only ? Shown::PublicOnly : Shown::All);
  } else {
    TestResult t;
    t.name = "grading";
    t.kind = TestKind::Check;
    t.max_score = max_when_no_suite;
    r.tests.push_back(t);
  }
  for (auto& t : r.tests) mark_not_run(t, "not graded: " + why);
  return r;
}

}  // namespace sg::batch
