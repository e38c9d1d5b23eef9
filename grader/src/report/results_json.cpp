// results.json in Gradescope's autograder schema
// (https://gradescope-autograders.readthedocs.io/en/latest/specs/).
#include <cmath>
#include <nlohmann/json.hpp>

#include "report/feedback.h"
#include "report/lead.h"
#include "report/score_line.h"
#include "report/shown_paths.h"
#include "report/student_view.h"
#include "report/text_clean.h"
#include "report/writers.h"

namespace sg {
namespace {

using Json = nlohmann::ordered_json;  // keeps fields in the order written, for readers

constexpr std::size_t kOutputCap = 8 * 1024;  // per captured text in the summary

// JSON has no NaN/Inf; nlohmann would write null, which loses what happened.
Json number_or_word(double v) {
  if (std::isfinite(v)) return v;
  return report::num(v, 0);
}

const char* gradescope_visibility(Visibility v) {
  // Hidden cases reveal themselves once grades are published, not before.
  return v == Visibility::Hidden ? "after_published" : "visible";
}

// Gradescope sorts by "number": correctness cases first, then performance, then checks.
int kind_group(TestKind kind) {
  switch (kind) {
    case TestKind::Correctness: return 1;
    case TestKind::Performance: return 2;
    case TestKind::Check: return 3;
  }
  return 4;
}

Json comparison_json(const Comparison& c) {
  Json first = Json::array();
  for (const auto& w : c.first_wrong) {
    first.push_back({{"row", w.row}, {"col", w.col}, {"got", number_or_word(w.got)},
                     {"expected", number_or_word(w.expected)}, {"bound", number_or_word(w.bound)}});
  }
  Json map = Json::array();
  for (const auto& row : c.tile_map) map.push_back(report::clean_line(row));
  return {{"checked", c.checked}, {"wrong", c.wrong}, {"non_finite", c.non_finite},
          {"worst_ratio", number_or_word(c.worst_ratio)}, {"first_wrong", first},
          {"tile_map", map}};
}

// Sample times to the microsecond: a list for people, not a dump of doubles.
Json rounded(const std::vector<double>& ms) {
  Json out = Json::array();
  for (double v : ms) out.push_back(std::isfinite(v) ? std::round(v * 1000) / 1000 : 0.0);
  return out;
}

Json timing_json(const Timing& t) {
  return {{"student_ms", number_or_word(t.student_ms)},
          {"student_spread", number_or_word(t.student_spread)},
          {"reference_ms", number_or_word(t.reference_ms)},
          {"naive_ms", number_or_word(t.naive_ms)},
          {"cublas_ms", number_or_word(t.cublas_ms)},
          {"speedup", number_or_word(t.speedup)},
          {"speedup_vs_naive", number_or_word(report::speedup_vs_naive(t))},
          {"percent_of_cublas", number_or_word(report::percent_of_cublas(t))},
          {"student_gflops", number_or_word(t.student_gflops)},
          {"reference_gflops", number_or_word(t.reference_gflops)},
          {"cublas_gflops", number_or_word(t.cublas_gflops)},
          {"overhead_ms", number_or_word(t.overhead_ms)},
          {"student_floor_ms", number_or_word(t.student_floor_ms)},
          {"student_floor_used", t.student_floor_used},
          {"timed_output_wrong", t.timed_output_wrong},
          {"implausible", t.implausible},
          {"implausible_reason", report::clean_line(t.implausible_reason)},
          {"samples", t.samples},
          {"samples_ms",
           {{"student_request", rounded(t.raw.student_request)},
            {"student_event", rounded(t.raw.student_event)},
            {"reference_request", rounded(t.raw.reference_request)},
            {"reference_event", rounded(t.raw.reference_event)},
            {"empty_request", rounded(t.raw.empty_request)},
            {"reference_before_event", rounded(t.raw.reference_before_event)},
            {"reference_between_event", rounded(t.raw.reference_between_event)}}}};
}

Json test_extra(const TestResult& t) {
  Json e = {{"name", report::clean_line(t.name)},
            {"kind", to_string(t.kind)},
            {"status", report::status_word(t.status)},
            {"verdict", report::clean_line(t.verdict)},
            {"m", t.m}, {"k", t.k}, {"n", t.n},
            {"seconds", number_or_word(t.seconds)}};
  Json diagnoses = Json::array();
  for (const auto& d : t.diagnoses) diagnoses.push_back({{"id", d.id}, {"text", report::clean_line(d.text)}});
  e["diagnoses"] = diagnoses;
  if (t.comparison) e["comparison"] = comparison_json(*t.comparison);
  if (report::is_performance(t)) e["measured"] = t.timing.has_value();
  if (report::not_measured(t)) e["not_measured_reason"] = report::clean_line(t.verdict);
  if (t.timing) e["timing"] = timing_json(*t.timing);
  if (t.reuse)
    e["reuse"] = {{"source", to_string(t.reuse->source)},
                  {"factor", t.reuse->factor ? number_or_word(*t.reuse->factor) : Json()},
                  {"reference", number_or_word(t.reuse->reference)},
                  {"reference_measured", t.reuse->reference_measured},
                  {"min_factor", number_or_word(t.reuse->min_factor)}};
  return e;
}

// Gradescope shows this text first: the opening line (report/score_line.h:
// why a grading stopped early, then the score), then the compiler's first
// errors and the tests not run (report/lead.h).
std::string summary_output(const GradeResult& r) {
  using report::clean_line;
  bool has_unmeasured = false;
  for (const auto& t : r.tests) has_unmeasured |= report::not_measured(t);
  std::string s = report::opening_line(r) + "\n";
  if (const auto lead = report::lead_of(r))
    s += lead->first_errors + (lead->not_run.empty() ? "" : lead->not_run + "\n");
  s += "\n";
  s += "SGEMM grader, suite " + clean_line(r.suite_name) + " (" + clean_line(r.suite_path) + ")\n";
  s += "Submission: " + clean_line(r.student) + " (" + clean_line(r.submission) + ")\n";
  s += "Backend: " + report::backend_name(r) + ", device: " + clean_line(r.device) + "\n";
  s += "Seed: " + report::seed_text(r) + "\n";
  s += "Build: " + report::build_text(r) + "\n";
  if (r.leaderboard_gflops)
    s += "Best correct throughput: " + report::num(*r.leaderboard_gflops, 1) + " GFLOP/s\n";
  if (has_unmeasured)
    s += "Tests marked \"not measured\" were not run here and are worth no points in this grading "
         "(neither passed nor failed): each says why.\n";
  if (r.state == GradeState::InternalError)
    s += "The grader itself failed; this is not a verdict on your code. Please tell the course staff.\n";
  for (const auto& n : r.notes) s += "Note: " + clean_line(n) + "\n";
  if (!r.build_log.empty() && !report::build_log_repeats_lead(r))
    s += "\nCompiler output:\n" + report::cap_text(report::clean_text(r.build_log), kOutputCap);
  // Students read this at once: output from the first hidden case on waits (report/student_view.h).
  const report::OutputParts output = report::split_output(r);
  if (!output.shown.empty())
    s += "\nYour program's output:\n" + report::cap_text(report::clean_text(output.shown), kOutputCap);
  if (!output.withheld.empty()) s += "\n" + report::withheld_output_note(r) + "\n";
  return s;
}

// A test's output field: what a student may read before publication, and on
// the first hidden case (itself shown only after publication) the output
// withheld from the summary.
std::string test_output(const GradeResult& r, const TestResult& t) {
  std::string out = (report::not_measured(t) ? "Not measured: " : "") + report::feedback_before_publication(r, t);
  if (&t != report::first_hidden_case(r)) return out;
  const std::string withheld = report::split_output(r).withheld;
  if (!withheld.empty())
    out += "\n" + report::withheld_output_heading(r) + "\n" + report::cap_text(report::clean_text(withheld), kOutputCap);
  return out;
}

}  // namespace

std::string results_json(const GradeResult& given) {
  const GradeResult r = report::as_shown(given);
  Json tests = Json::array();
  Json extra_tests = Json::array();
  int group_count[5] = {0, 0, 0, 0, 0};
  for (const auto& t : r.tests) {
    const int g = kind_group(t.kind);
    const std::string number = std::to_string(g) + "." + std::to_string(++group_count[g]);
    Json tags = Json::array({to_string(t.kind)});
    if (t.visibility == Visibility::Hidden) tags.push_back("hidden");
    Json test = {{"name", report::clean_line(t.name)}, {"number", number}, {"score", t.score}};
    // Gradescope colours a test by its status, or by score against max_score
    // when it has none; with neither it shows the test as neither passed nor
    // failed, which is what a test that was not measured is.
    if (!report::not_measured(t)) {
      test["max_score"] = t.max_score;
      test["status"] = report::gradescope_passed(t) ? "passed" : "failed";
    }
    // Plain text: student-controlled strings must not be rendered as markup.
    test["output"] = test_output(r, t);
    test["output_format"] = "text";
    test["tags"] = tags;
    test["visibility"] = gradescope_visibility(t.visibility);
    tests.push_back(std::move(test));
    extra_tests.push_back(test_extra(t));
  }

  Json root;
  root["score"] = r.score();
  root["execution_time"] = r.execution_time;
  root["output"] = summary_output(r);
  root["output_format"] = "text";
  root["test_output_format"] = "text";
  root["visibility"] = "visible";
  root["stdout_visibility"] = "hidden";
  root["tests"] = tests;
  if (r.leaderboard_gflops)
    root["leaderboard"] = Json::array(
        {{{"name", "GFLOP/s"}, {"value", number_or_word(*r.leaderboard_gflops)}, {"order", "desc"}}});
  root["extra_data"] = {
      {"student", report::clean_line(r.student)},
      {"submission", report::clean_line(r.submission)},
      {"suite", {{"name", report::clean_line(r.suite_name)}, {"path", report::clean_line(r.suite_path)}}},
      {"backend", report::backend_name(r)},
      {"device", report::clean_line(r.device)},
      {"state", to_string(r.state)},
      // A string: 64-bit seeds do not survive readers that parse numbers as doubles.
      {"seed", std::to_string(r.seed)},
      {"seed_given", r.seed_given},
      {"max_score", r.max_score()},
      // How a grading that could not time counted the timed cases' points (the suite's without_gpu).
      {"untimed", r.untimed ? Json{{"rule", to_string(r.untimed->rule)},
                                   {"points", number_or_word(r.untimed->points)},
                                   {"gpu_max", number_or_word(r.untimed->gpu_max)}}
                            : Json()},
      {"compile_time", number_or_word(r.compile_time)},
      {"gpu_exclusive_time", number_or_word(r.gpu_exclusive_time)},
      {"tests", extra_tests}};
  Json phases = Json::object();
  for (const auto& [phase, seconds] : r.phase_seconds) phases[phase] = number_or_word(seconds);
  root["extra_data"]["phase_seconds"] = phases;
  // The text above is already clean UTF-8; `replace` is the second line of defence.
  return root.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace sg
