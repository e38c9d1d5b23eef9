#include "model/plan.h"

#include <sstream>

namespace sg {
namespace {

TestResult planned(const std::string& name, TestKind kind, Visibility v, double max_score, int m, int k, int n) {
  TestResult t;
  t.name = name;
  t.kind = kind;
  t.visibility = v;
  t.max_score = max_score;
  t.m = m;
  t.k = k;
  t.n = n;
  return t;
}

// "7", "2.5": the points as people write them.
std::string points_text(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// Worth nothing here, and says what it is worth where it can be measured.
void mark_set_aside(TestResult& t, const std::string& why) {
  t.status = Status::Skipped;
  t.score = 0;
  t.verdict = why;
  t.detail = "worth " + points_text(t.max_score) + (t.max_score == 1 ? " point" : " points") + " when graded on a GPU";
  t.max_score = 0;
}

}  // namespace

bool set_aside(const TestResult& t) { return t.status == Status::Skipped && !t.verdict.empty() && t.max_score == 0; }

std::string performance_test_name(const std::string& case_name) { return case_name + "/performance"; }

std::vector<TestResult> plan_tests(const Suite& suite, Shown shown, const std::string& why_not_timed) {
  auto wanted = [&](Visibility v) { return shown == Shown::All || v == Visibility::Public; };
  std::vector<TestResult> tests;
  for (const Case& c : suite.cases) {
    if (!wanted(c.visibility)) continue;
    tests.push_back(planned(c.name, TestKind::Correctness, c.visibility, c.points, c.m, c.k, c.n));
    if (c.has_performance) {
      tests.push_back(planned(performance_test_name(c.name), TestKind::Performance, c.visibility,
                              c.performance.points, c.m, c.k, c.n));
      // The correctness part of a timed case is as large as its timing: not run either.
      if (!why_not_timed.empty())
        for (auto it = tests.end() - 2; it != tests.end(); ++it) mark_set_aside(*it, why_not_timed);
    }
  }
  for (const Check& c : suite.checks)
    if (wanted(c.visibility)) tests.push_back(planned(c.name, TestKind::Check, c.visibility, c.points, c.m, c.k, c.n));
  return tests;
}

}  // namespace sg
