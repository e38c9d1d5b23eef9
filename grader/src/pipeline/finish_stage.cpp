#include <algorithm>

#include "pipeline/stages.h"
#include "process/process.h"

namespace sg {
namespace {

// Failures across sizes (e.g. every case with m not a multiple of 16) go on
// each failed case whose output no hypothesis reproduced.
void diagnose_across_cases(Grading& g) {
  std::vector<Diagnosis> across = diagnose_across(g.outcomes);
  if (across.empty()) return;
  for (auto& t : g.r.tests) {
    if (t.kind != TestKind::Correctness || t.status != Status::Failed || !t.comparison) continue;
    // A case whose output a hypothesis reproduced already says what is wrong.
    if (std::find(g.cases_reproduced.begin(), g.cases_reproduced.end(), t.name) != g.cases_reproduced.end()) continue;
    for (const auto& d : across) t.diagnoses.push_back(d);
  }
}

}  // namespace

void finish_stage(Grading& g) {
  g.r.student_output = g.session->captured_output(kStudentOutputCap);
  g.session.reset();
  kill_all_descendants();
  diagnose_across_cases(g);
}

}  // namespace sg
