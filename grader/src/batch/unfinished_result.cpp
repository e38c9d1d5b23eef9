#include "batch/unfinished_result.h"

#include "model/plan.h"
#include "words/batch_report.h"
#include "words/case_report.h"

namespace sg::batch {

GradeResult unfinished_result(const Suite* suite, bool public_only, const std::string& student,
                              const std::string& submission, std::optional<BackendKind> backend,
                              GradeState state, const std::string& why, double max_when_no_suite) {
  GradeResult r;
  r.student = student;
  r.submission = submission;
  r.backend = backend;
  r.device = not_graded_device();
  r.state = state;
  r.build_log = why;
  if (suite) {
    r.suite_name = suite->name;
    r.suite_path = suite->path;
    const Shown shown = public_only ? Shown::PublicOnly : Shown::All;
    const std::string why_not_timed = backend == BackendKind::Cpu ? kCpuNotTimed : "";
    plan_into(r, *suite, shown, why_not_timed);
  } else {
    TestResult t;
    t.name = "grading";
    t.kind = TestKind::Check;
    t.max_score = max_when_no_suite;
    r.tests.push_back(t);
  }
  for (auto& t : r.tests)
    if (!set_aside(t)) mark_stopped(t, not_graded(why), why);
  return r;
}

}  // namespace sg::batch
