// Spellings of the model's enums. The suite YAML uses the same words, so a
// name printed in a report can be pasted back into a suite file.
#include "model/result.h"
#include "model/suite.h"

namespace sg {

const char* to_string(Visibility v) {
  switch (v) {
    case Visibility::Public: return "public";
    case Visibility::Hidden: return "hidden";
  }
  return "unknown";
}

const char* to_string(Distribution d) {
  switch (d) {
    case Distribution::Uniform: return "uniform";
    case Distribution::Positive: return "positive";
    case Distribution::SmallInt: return "small_int";
    case Distribution::Cancel: return "cancel";
  }
  return "unknown";
}

const char* to_string(CheckKind k) {
  switch (k) {
    case CheckKind::Symbols: return "symbols";
    case CheckKind::SharedAndBarrier: return "shared_memory_and_barrier";
    case CheckKind::Sanitizer: return "sanitizer";
  }
  return "unknown";
}

const char* to_string(Status s) {
  switch (s) {
    case Status::Passed: return "passed";
    case Status::Partial: return "partial";
    case Status::Failed: return "failed";
    case Status::Skipped: return "skipped";
  }
  return "unknown";
}

}  // namespace sg
