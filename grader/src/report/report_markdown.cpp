// report.md: the human-readable report for students and TAs.
#include <string>

#include "words/case_report.h"
#include "report/feedback.h"
#include "report/lead.h"
#include "report/score_line.h"
#include "report/shown_paths.h"
#include "report/student_view.h"
#include "report/text_clean.h"
#include "report/writers.h"

namespace sg {
namespace {

using report::md_cell;
using report::num;
using report::sig;

constexpr std::size_t kOutputCap = 16 * 1024;

std::string row(std::initializer_list<std::string> cells) {
  std::string s = "|";
  for (const auto& c : cells) s += " " + c + " |";
  return s + "\n";
}

// The first paragraph (report/score_line.h): why a grading whose tests could
// not run stopped (report/lead.h), then the score, what it is out of and how
// it was counted; then the compiler's first errors and the tests not run.
void opening(const GradeResult& r, std::string& md) {
  const auto lead = report::lead_of(r);
  const report::ScoreLine line = report::score_line_of(r);
  if (lead) md += "**" + md_cell(lead->headline) + "**" + report::after_headline(lead->headline);
  md += "**" + md_cell(line.score) + "** (" + md_cell(line.counts) + ")" +
        (line.basis.empty() ? "" : ". " + md_cell(line.basis) + ".") + "\n";
  // A fence may interrupt a paragraph: the errors follow at once.
  if (lead && !lead->first_errors.empty()) md += report::md_fence(lead->first_errors);
  md += "\n";
  if (lead && !lead->not_run.empty()) md += md_cell(lead->not_run) + ".\n\n";
}

void header(const GradeResult& r, std::string& md) {
  md += "# SGEMM grading report: " + md_cell(r.student) + "\n\n";
  opening(r, md);
  md += row({"", ""}) + "|---|---|\n";
  md += row({"Submission", md_cell(r.submission)});
  md += row({"Suite", md_cell(r.suite_name) + " (" + md_cell(r.suite_path) + ")"});
  md += row({"Backend", md_cell(report::backend_name(r))});
  md += row({"Device", md_cell(r.device)});
  if (!r.sandbox.empty()) md += row({"Sandbox", md_cell(r.sandbox)});
  md += row({"Seed", report::seed_text(r)});
  md += row({"Build", md_cell(report::build_text(r))});
  md += row({"State", md_cell(to_string(r.state))});
  md += row({"Score", "**" + report::score_text(r) + "**"});
  if (r.leaderboard_gflops) md += row({"Best correct GFLOP/s", num(*r.leaderboard_gflops, 1)});
  md += row({"Grading time", num(r.execution_time, 1) + " s"});
  md += "\n";
  if (r.state == GradeState::InternalError)
    md += "> The grader itself failed on this submission; the score is not a verdict on the code.\n\n";
  if (report::has_hidden_case(r)) md += "> " + report::staff_view_note() + "\n\n";
}

void test_table(const GradeResult& r, std::string& md) {
  md += "## Tests\n\n";
  if (r.tests.empty()) {
    md += "No test was run.\n\n";
    return;
  }
  std::string folded;
  bool any_row = false;
  for (const auto& t : r.tests) {
    if (report::folded(r, t)) {
      folded += (folded.empty() ? "" : ", ") + md_cell(t.name);
      continue;
    }
    if (!any_row) {
      md += row({"Test", "Size (m x k x n)", "Status", "Score", "Verdict", "GFLOP/s", "Speedup"});
      md += "|---|---|---|---:|---|---:|---:|\n";
      any_row = true;
    }
    std::string name = md_cell(t.name);
    if (t.visibility == Visibility::Hidden) name += " (hidden)";
    std::string gflops = "", speedup = "";
    if (t.timing) {
      gflops = num(t.timing->student_gflops, 1);
      speedup = num(t.timing->speedup, 2) + "x";
    }
    const bool measured = !report::not_measured(t);
    md += row({name, report::size_text(t), report::status_word(t.status),
               measured ? num(t.score, 2) + " / " + num(t.max_score, 2) : "-", md_cell(t.verdict), gflops, speedup});
  }
  if (any_row) md += "\n";
  // The tests the grading's stop kept from running: one line, not a row each.
  if (!folded.empty()) md += md_cell(report::lead_of(r)->not_run) + " (" + folded + ").\n\n";
}

void comparison_section(const Comparison& c, std::string& md) {
  if (c.wrong <= 0) return;
  md += "- Wrong elements: **" + std::to_string(c.wrong) + "** of " + std::to_string(c.checked);
  if (c.non_finite > 0) md += " (" + std::to_string(c.non_finite) + " NaN or Inf, e.g. never written)";
  md += "\n- Worst finite error: " + sig(c.worst_ratio, 3) + " times its bound\n\n";
  if (!c.first_wrong.empty()) {
    md += "First wrong elements (row-major order):\n\n";
    md += row({"row", "col", "got", "expected", "bound"}) + "|---:|---:|---:|---:|---:|\n";
    for (const auto& w : c.first_wrong)
      md += row({std::to_string(w.row), std::to_string(w.col), sig(w.got, 8), sig(w.expected, 9),
                 sig(w.bound, 3)});
    md += "\n";
  }
  if (!c.tile_map.empty()) {
    std::string map;
    for (const auto& line : c.tile_map) map += line + "\n";
    md += "Output tiles with wrong elements (`#`) and without (`.`):\n\n" + report::md_fence(map);
    md += "\n";
  }
}

void failure_sections(const GradeResult& r, std::string& md) {
  bool any = false;
  for (const auto& t : r.tests) {
    if (t.status != Status::Failed || report::folded(r, t)) continue;
    if (!any) md += "## Failing tests\n\n";
    any = true;
    md += "### " + md_cell(t.name);
    if (!report::size_text(t).empty()) md += " (" + report::size_text(t) + ")";
    md += "\n\n**" + md_cell(t.verdict.empty() ? "failed" : t.verdict) + "**\n\n";
    std::string detail = t.detail;
    if (t.comparison) {
      comparison_section(*t.comparison, md);
      // The judge's detail opens with the same evidence as text: say it once.
      const std::string same = describe_comparison(*t.comparison, t.m, t.n);
      if (detail.compare(0, same.size(), same) == 0) detail.erase(0, same.size());
    }
    if (!t.diagnoses.empty()) {
      md += "Likely causes:\n\n";
      for (const auto& d : t.diagnoses) md += "- " + md_cell(d.text) + "\n";
      md += "\n";
    }
    if (!detail.empty()) md += "Details from the grader:\n\n" + report::md_fence(detail) + "\n";
  }
}

void performance_section(const GradeResult& r, std::string& md) {
  bool any_unmeasured = false, any_timed = false;
  for (const auto& t : r.tests) {
    any_unmeasured = any_unmeasured || (report::is_performance(t) && report::not_measured(t));
    any_timed = any_timed || t.timing.has_value();
  }
  if (!any_unmeasured && !any_timed) return;
  md += "## Performance\n\n";
  for (const auto& t : r.tests)
    if (report::is_performance(t) && report::not_measured(t)) {
      md += "Performance cases were not measured: " + md_cell(t.verdict) + ".\n\n";
      break;
    }
  if (!any_timed) return;
  md += "Median of the timed launches; spread is (max - min) / median. Speedup is reference "
        "time over student time.\n\n";
  // One line on how the times were taken: CUDA events, bounded by the judge's clock.
  for (const auto& t : r.tests)
    if (t.timing && t.timing->overhead_ms > 0) {
      md += "Timed by CUDA events around each launch, never below the grader's own clock (" + md_cell(t.name) +
            ": at least " + num(t.timing->student_floor_ms, 3) + " ms, the fastest quarter of requests less their overhead); the "
            "reference and naive kernels ran in the grader's own runner, and every timed output was checked.\n\n";
      break;
    }
  for (const auto& t : r.tests)
    if (t.timing && t.timing->student_floor_used)
      md += md_cell(t.name) + ": the runner's own event times were below the grader's clock; the grader's " +
            num(t.timing->student_floor_ms, 3) + " ms was used.\n\n";
  md += row({"Test", "Median ms", "Spread", "Samples", "Reference ms", "Speedup vs reference",
             "vs naive", "% of cuBLAS", "GFLOP/s", "Plausible"});
  md += "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
  for (const auto& t : r.tests) {
    if (!t.timing) continue;
    const Timing& tm = *t.timing;
    const double naive = report::speedup_vs_naive(tm), cublas = report::percent_of_cublas(tm);
    md += row({md_cell(t.name), sig(tm.student_ms, 4), num(100 * tm.student_spread, 1) + "%",
               std::to_string(tm.samples), sig(tm.reference_ms, 4), num(tm.speedup, 2) + "x",
               naive > 0 ? num(naive, 2) + "x" : "", cublas > 0 ? num(cublas, 1) + "%" : "",
               num(tm.student_gflops, 1),
               tm.implausible ? "**implausible**: " + md_cell(tm.implausible_reason) : "yes"});
  }
  md += "\n";
  for (const auto& t : r.tests)
    if (t.timing && t.timing->implausible)
      md += "- " + md_cell(t.name) + ": timing flagged as implausible (" +
            md_cell(t.timing->implausible_reason) + "); no performance points.\n";
  md += "\n";
}

void text_sections(const GradeResult& r, std::string& md) {
  if (!r.notes.empty()) {
    md += "## Notes\n\n";
    for (const auto& n : r.notes) md += "- " + md_cell(n) + "\n";
    md += "\n";
  }
  if (!r.build_log.empty() && !report::build_log_repeats_lead(r)) {
    md += r.state == GradeState::CompileError ? "## Compile error\n\n" : "## Compiler output\n\n";
    md += report::md_fence(report::cap_text(report::clean_text(r.build_log), kOutputCap)) + "\n";
  }
  if (!r.student_output.empty()) {
    md += "## Program output\n\nWhat the submission printed (capped):\n\n";
    md += report::md_fence(report::cap_text(report::clean_text(r.student_output), kOutputCap)) +
          "\n";
  }
}

}  // namespace

std::string report_markdown(const GradeResult& given) {
  const GradeResult r = report::as_shown(given);
  std::string md;
  header(r, md);
  test_table(r, md);
  failure_sections(r, md);
  performance_section(r, md);
  text_sections(r, md);
  return md;
}

}  // namespace sg
