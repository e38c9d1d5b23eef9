// junit.xml for CI systems: one <testsuite> per graded submission.
#include <string>

#include "report/feedback.h"
#include "report/score_line.h"
#include "report/text_clean.h"
#include "report/writers.h"

namespace sg {
namespace {

constexpr std::size_t kStreamCap = 64 * 1024;

std::string attr(const char* name, const std::string& value) {
  return std::string(" ") + name + "=\"" + report::xml_attr(value) + "\"";
}

std::string seconds(double s) { return report::num(s > 0 ? s : 0, 3); }

// Partial performance scores are not CI failures: the code ran and was right;
// the points are in the output. Failed tests fail, skipped ones skip.
bool is_failure(const TestResult& t) { return t.status == Status::Failed; }

std::string property(const char* name, const std::string& value) {
  return "      <property" + attr("name", name) + attr("value", value) + "/>\n";
}

}  // namespace

std::string junit_xml(const GradeResult& r) {
  // A submission that never reached its tests (compile error, rejected, ...)
  // must not look green in CI, so it gets a failing "submission" case.
  const bool state_case = r.state != GradeState::Graded;
  const std::string state = to_string(r.state);
  int tests = static_cast<int>(r.tests.size()) + (state_case ? 1 : 0);
  int failures = state_case ? 1 : 0, skipped = 0;
  double time = 0;
  for (const auto& t : r.tests) {
    if (is_failure(t)) ++failures;
    if (t.status == Status::Skipped) ++skipped;
    time += t.seconds > 0 ? t.seconds : 0;
  }
  const double total_time = r.execution_time > 0 ? r.execution_time : time;
  const std::string suite = r.suite_name.empty() ? std::string("sgemm") : r.suite_name;
  const std::string counts = attr("tests", std::to_string(tests)) +
                             attr("failures", std::to_string(failures)) + attr("errors", "0");
  // Jenkins' and Ant's schemas allow `skipped` on <testsuite> only, and Ant's
  // wants `hostname`, `id`, `package` and `timestamp` there as well.
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x += "<testsuites" + attr("name", "sgemm-grader") + counts + attr("time", seconds(total_time)) + ">\n";
  x += "  <testsuite" + attr("name", suite + ": " + r.student) + counts + attr("skipped", std::to_string(skipped)) +
       attr("time", seconds(total_time)) + ">\n";
  x += "    <properties>\n";
  x += property("student", r.student) + property("submission", r.submission) +
       property("suite", r.suite_path) + property("backend", report::backend_name(r)) +
       property("device", r.device) + property("state", state) +
       property("seed", report::seed_text(r)) + property("score", report::num(r.score(), 3)) +
       property("max_score", report::num(r.max_score(), 3)) + property("score_line", report::score_line(r));
  x += "    </properties>\n";

  if (state_case) {
    x += "    <testcase" + attr("classname", suite + ".submission") + attr("name", "submission") +
         attr("time", seconds(r.compile_time)) + ">\n";
    x += "      <failure" + attr("message", state) + attr("type", state) + ">" +
         report::xml_escape("state: " + state + "\nbuild: " + report::build_text(r) + "\n" +
                            report::cap_text(report::clean_text(r.build_log), kStreamCap)) +
         "</failure>\n";
    x += "    </testcase>\n";
  }
  for (const auto& t : r.tests) {
    const std::string kind = to_string(t.kind);
    x += "    <testcase" + attr("classname", suite + "." + kind) + attr("name", t.name) +
         attr("time", seconds(t.seconds)) + ">\n";
    const std::string message = t.verdict.empty() ? report::status_word(t.status) : t.verdict;
    if (is_failure(t)) {
      x += "      <failure" + attr("message", message) + attr("type", "failed") + ">" +
           report::xml_escape(report::test_feedback(r, t)) + "</failure>\n";
    } else if (t.status == Status::Skipped) {
      x += "      <skipped" + attr("message", message) + "/>\n";
    }
    x += "      <system-out>" +
         report::xml_escape("score " + report::num(t.score, 3) + " / " +
                            report::num(t.max_score, 3) + "\n" + report::test_feedback(r, t)) +
         "</system-out>\n";
    x += "    </testcase>\n";
  }
  if (!r.student_output.empty())
    x += "    <system-out>" +
         report::xml_escape(report::cap_text(report::clean_text(r.student_output), kStreamCap)) +
         "</system-out>\n";
  if (!r.build_log.empty())
    x += "    <system-err>" +
         report::xml_escape(report::cap_text(report::clean_text(r.build_log), kStreamCap)) +
         "</system-err>\n";
  x += "  </testsuite>\n</testsuites>\n";
  return x;
}

}  // namespace sg
