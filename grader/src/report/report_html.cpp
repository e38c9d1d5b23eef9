// report.html: the student's report as one self-contained page (inline CSS
// and SVG; no script, nothing fetched), from the same GradeResult as
// report.md. Well-formed XML as well as HTML, so tools and tests can read it.
#include <algorithm>
#include <cmath>
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

using report::num;
using report::sig;
using report::xml_attr;
using report::xml_escape;

constexpr std::size_t kOutputCap = 16 * 1024;
constexpr int kCell = 18;       // pixels per tile-map cell
constexpr int kReferenceTile = 16;

constexpr char kStyle[] =
    "body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:70em}"
    "table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:.3em .6em;text-align:left}"
    "td.num{text-align:right}th{background:#f2f2f2}"
    ".passed{color:#1a7f37}.partial{color:#9a6700}.failed{color:#b42318}.not-measured{color:#777}"
    "svg text{font-size:12px;fill:#222}.wrong{fill:#d9534f}.right{fill:#5cb85c}.edge{stroke:#222;stroke-width:2;"
    "stroke-dasharray:3 2}.bar{fill:#9bb5de}.you{fill:#2c5aa0}pre{background:#f6f6f6;padding:.6em;overflow:auto}"
    "section.case{border-top:1px solid #ddd;margin-top:1.5em}"
    "#lead{border-left:4px solid #b42318;padding:.2em 1em;margin:1em 0}";

std::string status_class(const TestResult& t) {
  if (report::not_measured(t)) return "not-measured";
  switch (t.status) {
    case Status::Passed: return "passed";
    case Status::Partial: return "partial";
    case Status::Failed: return "failed";
    case Status::Skipped: return "failed";  // skipped but worth points: it cost them
  }
  return "failed";
}

std::string summary_table(const GradeResult& r) {
  std::string h = "<table id=\"summary\">\n";
  auto row = [&](const std::string& k, const std::string& v) {
    h += "<tr><th>" + xml_escape(k) + "</th><td>" + v + "</td></tr>\n";
  };
  row("Submission", xml_escape(r.submission));
  row("Suite", xml_escape(r.suite_name) + " (" + xml_escape(r.suite_path) + ")");
  row("Backend", xml_escape(report::backend_name(r)) + ", " + xml_escape(r.device));
  row("Seed", xml_escape(report::seed_text(r)));
  row("Build", xml_escape(report::build_text(r)));
  row("State", xml_escape(to_string(r.state)));
  row("Score", "<strong id=\"score\">" + report::score_text(r) + "</strong> (" +
                   xml_escape(report::pass_count_text(r)) + ")");
  if (r.leaderboard_gflops) row("Best correct GFLOP/s", num(*r.leaderboard_gflops, 1));
  return h + "</table>\n";
}

std::string tests_table(const GradeResult& r) {
  std::string h = "<table id=\"tests\">\n<tr><th>Test</th><th>Size (m x k x n)</th><th>Status</th><th>Score</th>"
                  "<th>Verdict</th></tr>\n";
  std::string folded;
  int rows = 0;
  for (const auto& t : r.tests) {
    if (report::folded(r, t)) {
      folded += (folded.empty() ? "" : ", ") + xml_escape(t.name);
      continue;
    }
    ++rows;
    const std::string cls = status_class(t);
    std::string name = xml_escape(t.name);
    if (t.visibility == Visibility::Hidden) name += " (hidden)";
    h += "<tr class=\"" + cls + "\"><td>" + name + "</td><td>" + report::size_text(t) + "</td><td class=\"" + cls +
         "\">" + report::status_word(t.status) + "</td><td class=\"num\">" +
         (report::not_measured(t) ? std::string("-") : num(t.score, 2) + " / " + num(t.max_score, 2)) + "</td><td>" +
         xml_escape(t.verdict) + "</td></tr>\n";
  }
  h = rows > 0 ? h + "</table>\n" : "";
  // The tests the grading's stop kept from running: one line, not a row each.
  if (!folded.empty())
    h += "<p id=\"not-run\">" + xml_escape(report::lead_of(r)->not_run) + " (" + folded + ").</p>\n";
  return h;
}

// The first paragraph (report/score_line.h): why a grading whose tests could
// not run stopped (report/lead.h), then the score, what it is out of and how
// it was counted; then, for such a grading, the compiler's first errors and
// the tests not run.
std::string opening(const GradeResult& r) {
  const auto lead = report::lead_of(r);
  const report::ScoreLine line = report::score_line_of(r);
  std::string p = "<p id=\"score-line\">";
  if (lead)
    p += "<strong class=\"failed\">" + xml_escape(lead->headline) + "</strong>" +
         report::after_headline(lead->headline);
  p += "<strong>" + xml_escape(line.score) + "</strong> (" + xml_escape(line.counts) + ")" +
       (line.basis.empty() ? "" : ". " + xml_escape(line.basis) + ".") + "</p>\n";
  if (!lead) return p;
  std::string h = "<div id=\"lead\">" + p;  // one line: the first a reader sees
  if (!lead->first_errors.empty()) h += "<pre id=\"first-errors\">" + xml_escape(lead->first_errors) + "</pre>\n";
  if (!lead->not_run.empty()) h += "<p>" + xml_escape(lead->not_run) + ".</p>\n";
  return h + "</div>\n";
}

// C's output tiles as a grid of squares: red where some element is wrong. The
// last row and column are outlined when m or n is not a multiple of 16 (the
// boundary tiles); each square's title names the first wrong element in it.
std::string heat_map(const TestResult& t, const Comparison& c) {
  const int rows = static_cast<int>(c.tile_map.size());
  int cols = 0;
  for (const auto& line : c.tile_map) cols = std::max(cols, static_cast<int>(line.size()));
  if (rows == 0 || cols == 0 || t.m <= 0 || t.n <= 0) return "";
  const bool ragged_m = t.m % kReferenceTile != 0, ragged_n = t.n % kReferenceTile != 0;
  std::string s = "<svg class=\"heatmap\" width=\"" + std::to_string(cols * kCell + 2) + "\" height=\"" +
                  std::to_string(rows * kCell + 2) +
                  "\" role=\"img\" aria-label=\"Output tiles of C with wrong elements in red\">\n";
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < static_cast<int>(c.tile_map[i].size()); ++j) {
      const bool wrong = c.tile_map[i][j] == '#';
      // Element range of this cell (the map spreads C's rows and columns evenly over its cells).
      const long long r0 = 1LL * i * t.m / rows, r1 = 1LL * (i + 1) * t.m / rows;
      const long long c0 = 1LL * j * t.n / cols, c1 = 1LL * (j + 1) * t.n / cols;
      std::string title = "rows " + std::to_string(r0) + "-" + std::to_string(r1 - 1) + ", columns " +
                          std::to_string(c0) + "-" + std::to_string(c1 - 1) + (wrong ? ": wrong elements" : ": right");
      for (const auto& w : c.first_wrong)
        if (w.row >= r0 && w.row < r1 && w.col >= c0 && w.col < c1) {
          title += "; first wrong C[" + std::to_string(w.row) + "][" + std::to_string(w.col) + "] = " +
                   sig(w.got, 8) + ", expected " + sig(w.expected, 9);
          break;
        }
      const bool edge = (ragged_m && i == rows - 1) || (ragged_n && j == cols - 1);
      s += "<rect class=\"" + std::string(wrong ? "wrong" : "right") + (edge ? " edge" : "") + "\" x=\"" +
           std::to_string(1 + j * kCell) + "\" y=\"" + std::to_string(1 + i * kCell) + "\" width=\"" +
           std::to_string(kCell - 2) + "\" height=\"" + std::to_string(kCell - 2) + "\"><title>" +
           xml_escape(title) + "</title></rect>\n";
    }
  return s + "</svg>\n";
}

std::string comparison_block(const TestResult& t, const Comparison& c) {
  std::string h = "<p>Wrong elements: <strong>" + std::to_string(c.wrong) + "</strong> of " +
                  std::to_string(c.checked);
  if (c.non_finite > 0) h += " (" + std::to_string(c.non_finite) + " NaN or Inf, " + std::to_string(c.unwritten) +
                             " never written)";
  if (std::isfinite(c.worst_ratio) && c.worst_ratio > 0)
    h += "; worst finite error " + sig(c.worst_ratio, 3) + " times its bound";
  h += ".</p>\n";
  if (!c.first_wrong.empty()) {
    h += "<table class=\"first-wrong\"><tr><th>row</th><th>col</th><th>got</th><th>expected</th><th>bound</th></tr>\n";
    for (const auto& w : c.first_wrong)
      h += "<tr><td class=\"num\">" + std::to_string(w.row) + "</td><td class=\"num\">" + std::to_string(w.col) +
           "</td><td class=\"num\">" + sig(w.got, 8) + "</td><td class=\"num\">" + sig(w.expected, 9) +
           "</td><td class=\"num\">" + sig(w.bound, 3) + "</td></tr>\n";
    h += "</table>\n";
  }
  const std::string map = heat_map(t, c);
  if (!map.empty())
    h += "<p>Output tiles of C (" + std::to_string(t.m) + " x " + std::to_string(t.n) +
         "): red where some element is wrong; outlined: the partial tiles at the edge. Hover a tile for its first "
         "wrong element.</p>\n" + map;
  return h;
}

// One horizontal bar per kernel, the student's highlighted, for time and throughput.
std::string ladder(const std::string& label, const std::string& unit,
                   const std::vector<std::pair<std::string, double>>& bars) {
  double most = 0;
  for (const auto& b : bars) most = std::max(most, b.second);
  if (most <= 0) return "";
  const int label_w = 110, bar_max = 320, row_h = 22;
  std::string s = "<svg class=\"ladder\" width=\"" + std::to_string(label_w + bar_max + 110) + "\" height=\"" +
                  std::to_string(static_cast<int>(bars.size()) * row_h + 8) + "\" role=\"img\" aria-label=\"" +
                  xml_attr(label) + "\">\n";
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const int y = 4 + static_cast<int>(i) * row_h;
    const int w = std::max(1, static_cast<int>(std::lround(bars[i].second / most * bar_max)));
    const bool you = bars[i].first == "your kernel";
    s += "<text x=\"" + std::to_string(label_w - 6) + "\" y=\"" + std::to_string(y + 15) + "\" text-anchor=\"end\">" +
         xml_escape(bars[i].first) + "</text><rect class=\"" + (you ? "you" : "bar") + "\" x=\"" +
         std::to_string(label_w) + "\" y=\"" + std::to_string(y + 3) + "\" width=\"" + std::to_string(w) +
         "\" height=\"" + std::to_string(row_h - 6) + "\"/><text x=\"" + std::to_string(label_w + w + 6) + "\" y=\"" +
         std::to_string(y + 15) + "\">" + sig(bars[i].second, 4) + " " + unit + "</text>\n";
  }
  return s + "</svg>\n";
}

std::string timing_block(const Timing& tm) {
  std::vector<std::pair<std::string, double>> ms, gflops;
  // GFLOP/s follow from the times and the size, as the judge computed them.
  const double flops_per_ms = tm.student_ms > 0 ? tm.student_gflops * tm.student_ms : 0;
  auto add = [&](const std::string& who, double t) {
    if (t <= 0) return;
    ms.emplace_back(who, t);
    if (flops_per_ms > 0) gflops.emplace_back(who, flops_per_ms / t);
  };
  add("naive", tm.naive_ms);
  add("tiled reference", tm.reference_ms);
  add("cuBLAS", tm.cublas_ms);
  add("your kernel", tm.student_ms);
  std::string h = "<p>" + xml_escape(report::timing_line(tm)) + "</p>\n";
  if (tm.implausible)
    h += "<p class=\"failed\">Timing flagged as implausible: " + xml_escape(tm.implausible_reason) +
         ". No performance points.</p>\n";
  h += "<h4>Time (ms, shorter is faster)</h4>\n" + ladder("Median time of each kernel", "ms", ms);
  h += "<h4>Throughput (GFLOP/s, longer is faster)</h4>\n" + ladder("Throughput of each kernel", "GFLOP/s", gflops);
  return h;
}

std::string case_sections(const GradeResult& r) {
  std::string h;
  for (const auto& t : r.tests) {
    const bool failing = t.status == Status::Failed && !report::folded(r, t) &&
                         (t.comparison || !t.diagnoses.empty() || !t.detail.empty());
    if (!failing && !t.timing) continue;
    h += "<section class=\"case\" id=\"" + xml_attr(report::url_segment(t.name)) + "\">\n<h3>" + xml_escape(t.name);
    if (!report::size_text(t).empty()) h += " (" + report::size_text(t) + ")";
    h += "</h3>\n<p class=\"" + status_class(t) + "\"><strong>" + xml_escape(t.verdict) + "</strong></p>\n";
    if (t.comparison && t.comparison->wrong > 0) h += comparison_block(t, *t.comparison);
    if (!t.diagnoses.empty()) {
      h += "<h4>Likely causes</h4>\n<ul class=\"diagnoses\">\n";
      for (const auto& d : t.diagnoses)
        h += "<li data-id=\"" + xml_attr(d.id) + "\">" + xml_escape(d.text) + "</li>\n";
      h += "</ul>\n";
    }
    std::string detail = t.detail;
    if (t.comparison) {
      // The judge's detail opens with the comparison as text, shown above as a table and a map: say it once.
      const std::string same = describe_comparison(*t.comparison, t.m, t.n);
      if (detail.compare(0, same.size(), same) == 0) detail.erase(0, same.size());
    }
    if (!detail.empty()) h += "<h4>Evidence from the grader</h4>\n<pre>" + xml_escape(detail) + "</pre>\n";
    if (t.timing) h += timing_block(*t.timing);
    h += "</section>\n";
  }
  return h;
}

}  // namespace

std::string report_html(const GradeResult& given) {
  const GradeResult r = report::as_shown(given);
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>SGEMM report: " +
                  xml_escape(r.student) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
  h += "<h1>SGEMM grading report: " + xml_escape(r.student) + "</h1>\n" + opening(r);
  if (r.state == GradeState::InternalError)
    h += "<p class=\"failed\">The grader itself failed on this submission; the score is not a verdict on the "
         "code.</p>\n";
  if (report::has_hidden_case(r)) h += "<p id=\"staff-view\">" + xml_escape(report::staff_view_note()) + "</p>\n";
  h += summary_table(r) + "<h2>Tests</h2>\n" + tests_table(r);
  const std::string cases = case_sections(r);
  if (!cases.empty()) h += "<h2>Failing and timed cases</h2>\n" + cases;
  if (!r.notes.empty()) {
    h += "<h2>Notes</h2>\n<ul id=\"notes\">\n";
    for (const auto& n : r.notes) h += "<li>" + xml_escape(report::clean_text(n)) + "</li>\n";
    h += "</ul>\n";
  }
  if (!r.build_log.empty() && !report::build_log_repeats_lead(r))
    h += "<h2>" + std::string(r.state == GradeState::CompileError ? "Compile error" : "Compiler output") +
         "</h2>\n<pre id=\"build-log\">" + xml_escape(report::cap_text(report::clean_text(r.build_log), kOutputCap)) +
         "</pre>\n";
  if (!r.student_output.empty())
    h += "<h2>Program output</h2>\n<pre>" +
         xml_escape(report::cap_text(report::clean_text(r.student_output), kOutputCap)) + "</pre>\n";
  return h + "</body>\n</html>\n";
}

}  // namespace sg
