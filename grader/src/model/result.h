// One result model for a graded submission. The judge fills it; every report
// format (results.json, junit.xml, report.md, the terminal table, the
// gradebook) is a thin writer over it.
#pragma once
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
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

// What a test grades: one case's values, one case's speed, or a whole-submission check.
enum class TestKind { Correctness, Performance, Check };

// How far a grading got. Anything but Graded means the tests were not (all) run.
enum class GradeState {
  Graded,
  CompileError,
  Rejected,           // the static checks or the link refused the submission
  InvalidSubmission,  // no single kernel.cu to grade
  Timeout,            // the grade process outlived its limit (batch)
  InternalError       // the grader itself failed (batch: the grade process crashed)
};

enum class BackendKind { Gpu, Cpu };

// Where a structure check's evidence came from: global loads counted by ncu
// on the GPU, counted by the CPU layer, or only read from the compiled code.
enum class ReuseSource { Ncu, CpuCount, Static, PmSampling };

// A likely cause of a failure. `id` is stable across submissions and sizes
// ("boundary.edge_wrong"), so class summaries can count causes; `text` is the
// sentence a student reads, with this case's numbers in it.
struct Diagnosis {
  std::string id;
  std::string text;
  bool operator==(const Diagnosis& o) const { return id == o.id && text == o.text; }
};

const char* to_string(Status s);
const char* to_string(TestKind k);
const char* to_string(GradeState s);
const char* to_string(BackendKind b);
const char* to_string(ReuseSource s);
// The inverses of to_string (the same spellings); nullopt for anything else.
std::optional<Status> parse_status(std::string_view s);
std::optional<TestKind> parse_test_kind(std::string_view s);
std::optional<GradeState> parse_grade_state(std::string_view s);
std::optional<BackendKind> parse_backend(std::string_view s);
std::optional<ReuseSource> parse_reuse_source(std::string_view s);
std::optional<WithoutGpu> parse_without_gpu(std::string_view s);

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
  std::int64_t non_finite = 0;       // of which NaN or Inf
  std::int64_t unwritten = 0;        // of which still the exact poison bits: never written
  double worst_ratio = 0;            // max |err| / bound over finite elements
  std::vector<Mismatch> first_wrong; // the first few, in row-major order
  std::vector<std::string> tile_map; // coarse map of wrong output tiles, one string per row ('#' wrong, '.' right)
};

// Every timed sample as taken, in ms: the evidence behind a Timing, kept for
// disputes and for tuning the rules in measure/timing.h.
struct TimingSamples {
  std::vector<double> student_request, student_event;      // the judge's clock; the runner's events
  std::vector<double> reference_request, reference_event;  // the same, in the baseline runner
  std::vector<double> empty_request;                       // requests that launch nothing
  // The reference's events just before the student's samples and between
  // them (the GPU's pace, measure/timing.h); empty in older results.
  std::vector<double> reference_before_event, reference_between_event;
};

// Derived timings of a performance case (milliseconds): CUDA events bounded
// below by the judge's clock around synchronous requests (measure/timing.h).
struct Timing {
  double student_ms = 0, student_spread = 0;  // median; (max-min)/median of the samples
  double reference_ms = 0, naive_ms = 0, cublas_ms = 0;
  double speedup = 0;        // reference_ms / student_ms
  double student_gflops = 0;
  double reference_gflops = 0;
  double cublas_gflops = 0;
  // Median time of a request that launches nothing (flush L2, make the
  // inputs, poison C, synchronise, digest, reply), measured on the baseline
  // runner and subtracted from every sample of both sides.
  double overhead_ms = 0;
  // The judge's floor under the student's time (its fastest quarter of
  // requests less the overhead and a slack), and whether the floor decided
  // it: the runner's median event time was below it (measure/timing.h).
  double student_floor_ms = 0;
  bool student_floor_used = false;
  bool implausible = false;  // flagged: earns no performance points
  std::string implausible_reason;  // why, in words (words/timing_report.cpp)
  // A timed sample's output failed its check (digest or Freivalds'): the
  // kernel computed something else when timed. Implies implausible.
  bool timed_output_wrong = false;
  int samples = 0;
  TimingSamples raw;
};

// Data reuse of the structure check: how many times each value loaded from
// global memory is used, as naive loads / the kernel's loads (naive 1).
struct Reuse {
  ReuseSource source = ReuseSource::Static;
  std::optional<double> factor;  // unset when not measured (source Static)
  double reference = 0;          // the 16x16 tiled reference's factor
  bool reference_measured = false;  // false: computed from its tile size
  double loads = 0;              // the kernel's warp-level global loads (measured)
  double naive_loads = 0;        // a naive kernel's at the same shape
  double min_factor = 0;         // the suite's threshold
};

struct TestResult {
  std::string name;
  TestKind kind = TestKind::Correctness;
  Visibility visibility = Visibility::Public;
  Status status = Status::Skipped;
  double score = 0, max_score = 0;
  std::string verdict;       // one line: "passed", "wrong result: 312 of 1000 elements", "timed out after 10 s", ...
  std::string detail;        // feedback a student can act on, several lines
  // Set where a stopped grading kept this test from running (its verdict
  // then says so, "not run: <why>"): the why, for the views' lead line.
  std::string stopped_by;
  std::vector<Diagnosis> diagnoses;  // likely causes from the error pattern, most specific first
  int m = 0, k = 0, n = 0;   // problem size, 0 for whole-submission checks
  std::optional<Comparison> comparison;
  std::optional<Timing> timing;
  std::optional<Reuse> reuse;  // structure checks (m, k, n: the measured shape)
  double seconds = 0;        // wall time spent on this test
};

// What a grading that could not time the performance cases did with their
// points (the suite's without_gpu rule), so that every view says it beside the
// score instead of leaving a reader to wonder why the maximum is not the suite's.
struct UntimedPoints {
  WithoutGpu rule = WithoutGpu::NotMeasured;  // the rule applied (not_measured where nothing could take them)
  double points = 0;   // what the set-aside tests are worth on a GPU
  double gpu_max = 0;  // what this grading's tests are worth on a GPU
};

struct GradeResult {
  std::string submission;    // path as given
  std::string student;       // id in batch mode, else the submission's folder name
  std::string suite_name, suite_path;
  std::optional<BackendKind> backend;  // unset when grading never got as far as choosing one
  std::string device;        // e.g. "NVIDIA H100 80GB HBM3 (sm_90)" or "CPU backend"
  std::string sandbox;       // "sandbox: ..." (process/sandbox.h): what contained the student's code
  // Set where the backend could not time the performance cases (model/plan.h).
  std::optional<UntimedPoints> untimed;
  GradeState state = GradeState::Graded;
  std::string build_log;     // compiler output (capped)
  std::vector<std::string> notes;  // remarks that cost no points (style), shown in every report
  std::string student_output;  // what the submission printed (capped, made valid UTF-8)
  // What it had printed when its runner was given the first hidden case
  // (student_output's beginning then), where the grading recorded it. The
  // runner is one process: what it prints from then on may carry that case's
  // shape, so views students read before publication stop here (report/student_view.h).
  std::optional<std::string> output_before_hidden;
  std::uint64_t seed = 0;
  bool seed_given = false;
  std::vector<TestResult> tests;
  double execution_time = 0;  // seconds, whole grading
  double compile_time = 0;    // seconds spent compiling and linking
  // Seconds the grading had the GPU to itself (timed samples, ncu): what
  // bounds gradings per minute when a batch shares one GPU.
  double gpu_exclusive_time = 0;
  // Where the grading's wall time went, in order: "setup", "build",
  // "sanitizer", "correctness", "prepare" (the performance cases' checks),
  // "performance" (with any wait for the GPU to itself), "checks" (those
  // that need the cases' results). For batch throughput work; reports show
  // only the total.
  std::vector<std::pair<std::string, double>> phase_seconds;
  std::optional<double> leaderboard_gflops;  // best correct, plausible GFLOP/s

  // Sums cleared of binary rounding (to a millionth of a point), so that points
  // shared in hundredths (without_gpu: to_correctness) add up to 100, not 99.99999999999999.
  double score() const { double s = 0; for (const auto& t : tests) s += t.score; return points_sum(s); }
  double max_score() const { double s = 0; for (const auto& t : tests) s += t.max_score; return points_sum(s); }
  static double points_sum(double s) { return std::isfinite(s) ? std::round(s * 1e6) / 1e6 : s; }
};

}  // namespace sg
