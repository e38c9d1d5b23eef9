// One result model for a graded submission. The judge fills it; every report
// format (results.json, junit.xml, report.md, the terminal table, the
// gradebook) is a thin writer over it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/suite.h"

namespace sg {

enum class Status {
  Passed,   // full marks for this test
  Partial,  // some points (performance between thresholds)
  Failed,   // wrong answer, failed check, crash, timeout ...
  Skipped   // not run: not measurable on this backend, tool absent, earlier stage failed
};
const char* to_string(Status s);

// One wrong output element.
struct Mismatch {
  int row = 0, col = 0;
  float got = 0;
  double expected = 0;
  double bound = 0;  // the tolerance this element had to meet
};

// What the judge found comparing C against the FP64 oracle.
struct Comparison {
  std::int64_t checked = 0;
  std::int64_t wrong = 0;            // elements outside the bound (NaN/Inf included)
  std::int64_t non_finite = 0;       // of which NaN or Inf (e.g. never written)
  double worst_ratio = 0;            // max |err| / bound over finite elements
  std::vector<Mismatch> first_wrong; // the first few, in row-major order
  std::vector<std::string> tile_map; // coarse map of wrong output tiles, one string per row ('#' wrong, '.' right)
};

// Raw and derived timings of a performance case (milliseconds).
struct Timing {
  double student_ms = 0, student_spread = 0;  // median; (max-min)/median of the samples
  double reference_ms = 0, naive_ms = 0, cublas_ms = 0;
  double speedup = 0;        // reference_ms / student_ms
  double student_gflops = 0;
  double reference_gflops = 0;
  double cublas_gflops = 0;
  bool implausible = false;  // flagged: earns no performance points
  std::string implausible_reason;
  int samples = 0;
};

struct TestResult {
  std::string name;
  std::string kind;          // "correctness", "performance" or "check"
  Visibility visibility = Visibility::Public;
  Status status = Status::Skipped;
  double score = 0, max_score = 0;
  std::string verdict;       // one line: "passed", "wrong result: 312 of 1000 elements", "timed out after 10 s", ...
  std::string detail;        // feedback a student can act on, several lines
  std::vector<std::string> diagnoses;  // likely causes from the error pattern
  int m = 0, k = 0, n = 0;   // problem size, 0 for whole-submission checks
  std::optional<Comparison> comparison;
  std::optional<Timing> timing;
  double seconds = 0;        // wall time spent on this test
};

struct GradeResult {
  std::string submission;    // path as given
  std::string student;       // id in batch mode, else the submission's folder name
  std::string suite_name, suite_path;
  std::string backend;       // "gpu" or "cpu"
  std::string device;        // e.g. "NVIDIA H100 80GB HBM3 (sm_90)" or "CPU backend"
  std::string state = "graded";  // "graded", "compile error", "rejected", "internal error"
  std::string build_log;     // compiler output (capped)
  std::string student_output;  // what the submission printed (capped, made valid UTF-8)
  std::uint64_t seed = 0;
  bool seed_given = false;
  std::vector<TestResult> tests;
  double execution_time = 0;  // seconds, whole grading
  double compile_time = 0;    // seconds spent compiling and linking
  // Where the grading's wall time went, in order: "setup", "build",
  // "correctness", "sanitizer", "prepare" (inputs and oracle of the timed
  // cases), "gpu_wait" (waiting for exclusive use of a shared GPU),
  // "performance". For batch throughput work; reports show only the total.
  std::vector<std::pair<std::string, double>> phase_seconds;
  std::optional<double> leaderboard_gflops;  // best correct, plausible GFLOP/s

  double score() const { double s = 0; for (const auto& t : tests) s += t.score; return s; }
  double max_score() const { double s = 0; for (const auto& t : tests) s += t.max_score; return s; }
};

}  // namespace sg
