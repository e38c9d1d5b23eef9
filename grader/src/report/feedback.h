// Wording and numbers shared by the writers, so that results.json, junit.xml,
// report.md and the terminal agree on what a test's outcome means.
#pragma once
#include <string>

#include "model/result.h"

namespace sg::report {

// Fixed-point with at most `max_decimals` decimals, trailing zeros trimmed
// ("12.5", "10", "0.125"); "nan", "inf", "-inf" for non-finite values.
std::string num(double v, int max_decimals);

// `significant` significant digits, e.g. for element values and bounds.
std::string sig(double v, int significant);

// "passed", "partial", "failed", "not measured".
const char* status_word(Status s);

// A test this grading did not measure and that is worth nothing here (a
// performance case on the CPU backend, a tool that is absent): neither passed
// nor failed in any view, and left out of pass counts and failure rates.
bool not_measured(const TestResult& t);

// Gradescope's pass/fail: only a test with full marks and nothing wrong passes
// (never one that was not measured).
bool gradescope_passed(const TestResult& t);

// "19.5 / 37": the points scored of those possible.
std::string score_text(const GradeResult& r);

// "4 of 20 tests passed, 4 not measured": counts over the measured tests.
std::string pass_count_text(const GradeResult& r);

// "1000x777x333" (m x k x n), or "" for whole-submission checks.
std::string size_text(const TestResult& t);

bool is_performance(const TestResult& t);

// "gpu", "cpu", or "" when the grading never chose a backend.
std::string backend_name(const GradeResult& r);

// "1234 (given with --seed)" or "1234 (fresh for this run)".
std::string seed_text(const GradeResult& r);

// One line about the build, from GradeResult::state and compile_time.
std::string build_text(const GradeResult& r);

// Plain-text feedback for one test: verdict, detail, what the comparison found
// (first wrong elements, tile map; only when `detail` is empty, since the judge
// normally describes it there), likely causes, and timing. Used as the
// Gradescope test output and the JUnit failure text.
std::string test_feedback(const GradeResult& r, const TestResult& t);

// One-line timing summary ("1.234 ms, 1.22x the reference, 812.3 GFLOP/s"),
// or "" when the test has no timing.
std::string timing_line(const Timing& tm);

// Speedup over the naive kernel and share of cuBLAS throughput (0 when unknown).
double speedup_vs_naive(const Timing& tm);
double percent_of_cublas(const Timing& tm);

}  // namespace sg::report
