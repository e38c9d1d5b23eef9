#include "model/plan.h"

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

}  // namespace

std::string performance_test_name(const std::string& case_name) { return case_name + "/performance"; }

std::vector<TestResult> plan_tests(const Suite& suite, Shown shown) {
  auto wanted = [&](Visibility v) { return shown == Shown::All || v == Visibility::Public; };
  std::vector<TestResult> tests;
  for (const Case& c : suite.cases) {
    if (!wanted(c.visibility)) continue;
    tests.push_back(planned(c.name, TestKind::Correctness, c.visibility, c.points, c.m, c.k, c.n));
    if (c.has_performance)
      tests.push_back(planned(performance_test_name(c.name), TestKind::Performance, c.visibility,
                              c.performance.points, c.m, c.k, c.n));
  }
  for (const Check& c : suite.checks)
    if (wanted(c.visibility)) tests.push_back(planned(c.name, TestKind::Check, c.visibility, c.points, c.m, c.k, c.n));
  return tests;
}

}  // namespace sg
