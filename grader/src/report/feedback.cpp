#include "report/feedback.h"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "report/text_clean.h"

namespace sg::report {
namespace {

std::string non_finite(double v) {
  if (std::isnan(v)) return "nan";
  return v > 0 ? "inf" : "-inf";
}

std::string pad(const std::string& s, std::size_t width) {
  const std::size_t w = display_width(s);
  return w >= width ? s + " " : s + std::string(width - w, ' ');
}

void append_comparison(const Comparison& c, std::string& out) {
  if (c.wrong <= 0) return;
  out += "Wrong elements: " + std::to_string(c.wrong) + " of " + std::to_string(c.checked);
  if (c.non_finite > 0) out += " (" + std::to_string(c.non_finite) + " NaN or Inf)";
  if (c.worst_ratio > 0) out += "; worst finite error " + sig(c.worst_ratio, 3) + " times its bound";
  out += "\n";
  if (!c.first_wrong.empty()) {
    out += "First wrong elements:\n";
    out += "  " + pad("row", 8) + pad("col", 8) + pad("got", 16) + pad("expected", 16) + "bound\n";
    for (const auto& w : c.first_wrong) {
      out += "  " + pad(std::to_string(w.row), 8) + pad(std::to_string(w.col), 8) +
             pad(sig(w.got, 8), 16) + pad(sig(w.expected, 9), 16) + sig(w.bound, 3) + "\n";
    }
  }
  if (!c.tile_map.empty()) {
    out += "Output tiles with wrong elements (#) and without (.):\n";
    for (const auto& row : c.tile_map) out += "  " + row + "\n";
  }
}

}  // namespace

std::string num(double v, int max_decimals) {
  if (!std::isfinite(v)) return non_finite(v);
  std::string s = fmt::format("{:.{}f}", v, max_decimals);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

std::string sig(double v, int significant) {
  if (!std::isfinite(v)) return non_finite(v);
  return fmt::format("{:.{}g}", v, significant);
}

const char* status_word(Status s) {
  switch (s) {
    case Status::Passed: return "passed";
    case Status::Partial: return "partial";
    case Status::Failed: return "failed";
    case Status::Skipped: return "not measured";
  }
  return "unknown";
}

bool not_measured(const TestResult& t) { return t.status == Status::Skipped && t.max_score == 0; }

bool gradescope_passed(const TestResult& t) {
  // Gradescope itself calls a test passed when score >= max_score; a failed or
  // skipped test that cost the student points must never show as passed.
  if (t.status == Status::Failed || t.status == Status::Skipped) return false;
  return t.score >= t.max_score;
}

std::string score_text(const GradeResult& r) { return num(r.score(), 2) + " / " + num(r.max_score(), 2); }

std::string pass_count_text(const GradeResult& r) {
  int passed = 0, measured = 0, unmeasured = 0;
  for (const auto& t : r.tests) {
    if (not_measured(t)) {
      ++unmeasured;
      continue;
    }
    ++measured;
    if (gradescope_passed(t)) ++passed;
  }
  std::string s = std::to_string(passed) + " of " + std::to_string(measured) + (measured == 1 ? " test" : " tests") +
                  " passed";
  if (unmeasured > 0) s += ", " + std::to_string(unmeasured) + " not measured";
  return s;
}

std::string size_text(const TestResult& t) {
  if (t.m <= 0 && t.k <= 0 && t.n <= 0) return "";
  return std::to_string(t.m) + "x" + std::to_string(t.k) + "x" + std::to_string(t.n);
}

bool is_performance(const TestResult& t) { return t.kind == TestKind::Performance; }

std::string backend_name(const GradeResult& r) { return r.backend ? to_string(*r.backend) : ""; }

std::string seed_text(const GradeResult& r) {
  return std::to_string(r.seed) + (r.seed_given ? " (given with --seed)" : " (fresh for this run)");
}

std::string build_text(const GradeResult& r) {
  if (r.state == GradeState::CompileError) return "failed: compile error (see the compiler output)";
  if (r.state == GradeState::InvalidSubmission) return "not attempted";
  if (r.compile_time > 0) return "ok (" + num(r.compile_time, 1) + " s)";
  if (r.state == GradeState::InternalError) return "unknown (the grader stopped with an internal error)";
  return "ok";
}

double speedup_vs_naive(const Timing& tm) {
  return (tm.student_ms > 0 && tm.naive_ms > 0) ? tm.naive_ms / tm.student_ms : 0;
}

double percent_of_cublas(const Timing& tm) {
  return (tm.student_ms > 0 && tm.cublas_ms > 0) ? 100.0 * tm.cublas_ms / tm.student_ms : 0;
}

std::string timing_line(const Timing& tm) {
  std::string s = "median " + sig(tm.student_ms, 4) + " ms (spread " +
                  num(100.0 * tm.student_spread, 1) + "%, " + std::to_string(tm.samples) +
                  " samples)";
  if (tm.reference_ms > 0)
    s += ", reference " + sig(tm.reference_ms, 4) + " ms, speedup " + num(tm.speedup, 2) + "x";
  if (speedup_vs_naive(tm) > 0) s += ", " + num(speedup_vs_naive(tm), 2) + "x the naive kernel";
  if (tm.student_gflops > 0) s += ", " + num(tm.student_gflops, 1) + " GFLOP/s";
  if (percent_of_cublas(tm) > 0) s += ", " + num(percent_of_cublas(tm), 1) + "% of cuBLAS";
  return s;
}

std::string test_feedback(const GradeResult&, const TestResult& t) {
  std::string out = clean_text(t.verdict.empty() ? status_word(t.status) : t.verdict);
  out += "\n";
  if (!t.detail.empty()) {
    out += clean_text(t.detail);
    if (out.back() != '\n') out += "\n";
  }
  // The judge usually describes the comparison in `detail`; say it here only
  // when it did not, so the student never reads the same list twice.
  if (t.comparison && t.detail.empty()) append_comparison(*t.comparison, out);
  if (!t.diagnoses.empty()) {
    out += "Likely causes:\n";
    for (const auto& d : t.diagnoses) out += "  - " + clean_line(d.text) + "\n";
  }
  if (t.timing) {
    out += "Timing: " + timing_line(*t.timing) + "\n";
    if (t.timing->implausible)
      out += "Timing flagged as implausible: " + clean_line(t.timing->implausible_reason) +
             ". No performance points.\n";
  } else if (out.find("not measured") != std::string::npos) {
    // the verdict already says so
  } else if (is_performance(t)) {
    out += "Timing: not measured.\n";
  }
  return out;
}

}  // namespace sg::report
