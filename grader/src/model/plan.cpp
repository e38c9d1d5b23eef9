#include "model/plan.h"

#include <algorithm>
#include <cmath>
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

bool wanted(Shown shown, Visibility v) { return shown == Shown::All || v == Visibility::Public; }

// Shares `points` among the untimed correctness tests worth points, in
// proportion to their points and in hundredths of a point: each maximum reads
// as points are written, and the total is the GPU's to the hundredth (the
// hundredths left over go to the largest remainders). False, with nothing
// changed, where no test can take them.
bool give_to_correctness(std::vector<TestResult>& tests, double points) {
  std::vector<TestResult*> takers;
  double base = 0;
  for (auto& t : tests)
    if (t.kind == TestKind::Correctness && !set_aside(t) && t.max_score > 0) {
      takers.push_back(&t);
      base += t.max_score;
    }
  if (takers.empty() || !(points > 0)) return false;
  const double scale = (base + points) / base;
  long long left = std::llround((base + points) * 100);
  std::vector<std::pair<double, std::size_t>> remainders;  // (remainder, taker), for the hundredths left over
  std::vector<long long> hundredths;
  for (std::size_t i = 0; i < takers.size(); ++i) {
    const double exact = takers[i]->max_score * scale * 100;
    hundredths.push_back(static_cast<long long>(std::floor(exact)));
    left -= hundredths.back();
    remainders.emplace_back(exact - std::floor(exact), i);
  }
  std::stable_sort(remainders.begin(), remainders.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t i = 0; left > 0 && i < remainders.size(); ++i, --left) ++hundredths[remainders[i].second];
  for (std::size_t i = 0; i < takers.size(); ++i) takers[i]->max_score = static_cast<double>(hundredths[i]) / 100;
  return true;
}

// The tests, and into `untimed` (where given) what became of the points set aside.
std::vector<TestResult> plan(const Suite& suite, Shown shown, const std::string& why_not_timed,
                             std::optional<UntimedPoints>* untimed) {
  std::vector<TestResult> tests;
  double gpu_max = 0, aside = 0;
  bool any_aside = false;
  for (const Case& c : suite.cases) {
    if (!wanted(shown, c.visibility)) continue;
    tests.push_back(planned(c.name, TestKind::Correctness, c.visibility, c.points, c.m, c.k, c.n));
    gpu_max += c.points;
    if (c.has_performance) {
      tests.push_back(planned(performance_test_name(c.name), TestKind::Performance, c.visibility,
                              c.performance.points, c.m, c.k, c.n));
      gpu_max += c.performance.points;
      // The correctness part of a timed case is as large as its timing: not run either.
      if (!why_not_timed.empty()) {
        any_aside = true;
        aside += c.points + c.performance.points;
        for (auto it = tests.end() - 2; it != tests.end(); ++it) mark_set_aside(*it, why_not_timed);
      }
    }
  }
  for (const Check& c : suite.checks)
    if (wanted(shown, c.visibility)) {
      tests.push_back(planned(c.name, TestKind::Check, c.visibility, c.points, c.m, c.k, c.n));
      gpu_max += c.points;
    }
  const bool given = any_aside && suite.without_gpu == WithoutGpu::ToCorrectness && give_to_correctness(tests, aside);
  if (untimed && any_aside)
    *untimed = UntimedPoints{given ? WithoutGpu::ToCorrectness : WithoutGpu::NotMeasured, aside, gpu_max};
  return tests;
}

}  // namespace

bool set_aside(const TestResult& t) { return t.status == Status::Skipped && !t.verdict.empty() && t.max_score == 0; }

std::string performance_test_name(const std::string& case_name) { return case_name + "/performance"; }

std::vector<TestResult> plan_tests(const Suite& suite, Shown shown, const std::string& why_not_timed) {
  return plan(suite, shown, why_not_timed, nullptr);
}

std::optional<UntimedPoints> untimed_points(const Suite& suite, Shown shown, const std::string& why_not_timed) {
  std::optional<UntimedPoints> untimed;
  plan(suite, shown, why_not_timed, &untimed);
  return untimed;
}

void plan_into(GradeResult& r, const Suite& suite, Shown shown, const std::string& why_not_timed) {
  r.untimed.reset();
  r.tests = plan(suite, shown, why_not_timed, &r.untimed);
}

double planned_max(const Suite& suite, Shown shown, const std::string& why_not_timed) {
  GradeResult r;
  r.tests = plan_tests(suite, shown, why_not_timed);
  return r.max_score();
}

}  // namespace sg
