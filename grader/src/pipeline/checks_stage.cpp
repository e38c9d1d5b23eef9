#include "pipeline/stages.h"

namespace sg {

bool checks_stage(Grading& g) {
  // After the cases and the timing, with the device's hold ended: a check may
  // run a tool of its own (ncu where the counters gave no count), which takes holds.
  g.run_checks(CheckStage::AfterCases);  // the sanitizer's points need a correct case
  g.run_checks(CheckStage::AfterChecks);
  return true;
}

}  // namespace sg
