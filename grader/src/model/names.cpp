// Spellings of the model's enums. The suite YAML uses the same words, so a
// name printed in a report can be pasted back into a suite file.
#include "model/check_kinds.h"
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
  const auto i = static_cast<std::size_t>(k);
  return i < kCheckKindCount ? kCheckKinds[i].word : "unknown";
}

std::optional<CheckKind> parse_check_kind(std::string_view word) {
  for (const CheckKindRow& row : kCheckKinds)
    if (word == row.word) return row.kind;
  return std::nullopt;
}

const char* to_string(WithoutGpu w) {
  const int i = static_cast<int>(w);
  return i >= 0 && i <= static_cast<int>(WithoutGpu::Last) ? kWithoutGpuNames[i] : "unknown";
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

const char* to_string(TestKind k) {
  switch (k) {
    case TestKind::Correctness: return "correctness";
    case TestKind::Performance: return "performance";
    case TestKind::Check: return "check";
  }
  return "unknown";
}

const char* to_string(GradeState s) {
  switch (s) {
    case GradeState::Graded: return "graded";
    case GradeState::CompileError: return "compile error";
    case GradeState::Rejected: return "rejected";
    case GradeState::InvalidSubmission: return "invalid submission";
    case GradeState::Timeout: return "timeout";
    case GradeState::InternalError: return "internal error";
  }
  return "unknown";
}

const char* to_string(BackendKind b) {
  switch (b) {
    case BackendKind::Gpu: return "gpu";
    case BackendKind::Cpu: return "cpu";
  }
  return "unknown";
}

namespace {
// Finds the value whose to_string is `s` among the enum's values first..last.
template <typename E>
std::optional<E> parse_enum(std::string_view s, E first, E last) {
  for (int v = static_cast<int>(first); v <= static_cast<int>(last); ++v)
    if (s == to_string(static_cast<E>(v))) return static_cast<E>(v);
  return std::nullopt;
}
}  // namespace

std::optional<Status> parse_status(std::string_view s) { return parse_enum(s, Status::Passed, Status::Skipped); }
std::optional<TestKind> parse_test_kind(std::string_view s) {
  return parse_enum(s, TestKind::Correctness, TestKind::Check);
}
std::optional<GradeState> parse_grade_state(std::string_view s) {
  return parse_enum(s, GradeState::Graded, GradeState::InternalError);
}
const char* to_string(ReuseSource s) {
  switch (s) {
    case ReuseSource::Ncu: return "ncu";
    case ReuseSource::CpuCount: return "cpu-count";
    case ReuseSource::Static: return "static";
    case ReuseSource::PmSampling: return "pm-sampling";
  }
  return "unknown";
}

std::optional<ReuseSource> parse_reuse_source(std::string_view s) {
  return parse_enum(s, ReuseSource::Ncu, ReuseSource::PmSampling);
}

std::optional<BackendKind> parse_backend(std::string_view s) {
  return parse_enum(s, BackendKind::Gpu, BackendKind::Cpu);
}

std::optional<WithoutGpu> parse_without_gpu(std::string_view s) {
  return parse_enum(s, WithoutGpu::NotMeasured, WithoutGpu::Last);
}

}  // namespace sg
