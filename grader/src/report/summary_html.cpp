// summary.html: one page over a whole class. Self-contained (inline CSS and
// SVG, nothing fetched) so it can be mailed or archived, and well-formed XML
// as well as HTML so that tools can check it. Its one small inline script only
// sorts the student table; the page reads the same without it.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "report/batch_writers.h"
#include "report/feedback.h"
#include "report/score_line.h"
#include "report/text_clean.h"

namespace sg {
namespace {

using report::num;
using report::xml_attr;
using report::xml_escape;

constexpr int kBins = 10;
constexpr std::size_t kTopDiagnoses = 20;
constexpr std::size_t kUnfoldedStudents = 12;  // a longer list of students folds into <details>
constexpr std::size_t kTopLeaders = 10;

constexpr char kStyle[] =
    "body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:70em}"
    "table{border-collapse:collapse;margin:1em 0}"
    "th,td{border:1px solid #ccc;padding:.3em .6em;text-align:left}"
    "td.num{text-align:right}th{background:#f2f2f2}"
    ".bar{fill:#4a78c2}.fail{fill:#c24a4a}svg text{font-size:12px;fill:#222}"
    ".graded{color:#1a7f37}.other{color:#b42318}.dot{fill:#2c5aa0;opacity:.75}";

double percent(const GradeResult& r) {
  return r.max_score() > 0 ? 100.0 * r.score() / r.max_score() : 0;
}

std::string overview(const std::vector<GradeResult>& results) {
  std::map<std::string, int> states;
  std::vector<double> pcts;
  for (const auto& r : results) {
    ++states[to_string(r.state)];
    if (r.max_score() > 0) pcts.push_back(percent(r));
  }
  std::string h = "<p>" + std::to_string(results.size()) + " submissions";
  for (const auto& [state, count] : states) h += ", " + std::to_string(count) + " " + xml_escape(state);
  h += ".";
  if (!pcts.empty()) {
    std::sort(pcts.begin(), pcts.end());
    double mean = 0;
    for (double p : pcts) mean += p;
    mean /= static_cast<double>(pcts.size());
    const std::size_t mid = pcts.size() / 2;
    const double median = pcts.size() % 2 ? pcts[mid] : (pcts[mid - 1] + pcts[mid]) / 2;
    h += " Mean score " + num(mean, 1) + "%, median " + num(median, 1) + "%.";
  }
  return h + "</p>\n";
}

std::string histogram(const std::vector<GradeResult>& results) {
  int bins[kBins] = {};
  int most = 0;
  for (const auto& r : results) {
    if (r.max_score() <= 0) continue;
    const int b = std::clamp(static_cast<int>(percent(r) / 10.0), 0, kBins - 1);
    most = std::max(most, ++bins[b]);
  }
  const int bar_w = 50, plot_h = 160, top = 20, width = kBins * bar_w + 20;
  std::string s = "<svg width=\"" + std::to_string(width) + "\" height=\"" +
                  std::to_string(plot_h + top + 40) +
                  "\" role=\"img\" aria-label=\"Histogram of scores in percent of the maximum\">\n";
  for (int b = 0; b < kBins; ++b) {
    const int h = most > 0 ? bins[b] * plot_h / most : 0;
    const int x = 10 + b * bar_w, y = top + plot_h - h;
    s += "<rect class=\"bar\" x=\"" + std::to_string(x + 4) + "\" y=\"" + std::to_string(y) +
         "\" width=\"" + std::to_string(bar_w - 8) + "\" height=\"" + std::to_string(h) +
         "\"><title>" + std::to_string(bins[b]) + " submissions</title></rect>\n";
    s += "<text x=\"" + std::to_string(x + bar_w / 2) + "\" y=\"" + std::to_string(y - 4) +
         "\" text-anchor=\"middle\">" + std::to_string(bins[b]) + "</text>\n";
    s += "<text x=\"" + std::to_string(x + bar_w / 2) + "\" y=\"" +
         std::to_string(top + plot_h + 16) + "\" text-anchor=\"middle\">" +
         std::to_string(b * 10) + (b == kBins - 1 ? "-100" : "-" + std::to_string(b * 10 + 9)) +
         "</text>\n";
  }
  s += "<text x=\"" + std::to_string(width / 2) + "\" y=\"" + std::to_string(top + plot_h + 34) +
       "\" text-anchor=\"middle\">score, % of maximum</text>\n";
  return s + "</svg>\n";
}

std::string failure_rates(const std::vector<GradeResult>& results) {
  const std::vector<std::string> cols = test_columns(results);
  if (cols.empty()) return "<p>No tests were run.</p>\n";
  const int label_w = 220, bar_max = 300, row_h = 22;
  std::string s = "<svg width=\"" + std::to_string(label_w + bar_max + 140) + "\" height=\"" +
                  std::to_string(static_cast<int>(cols.size()) * row_h + 10) +
                  "\" role=\"img\" aria-label=\"Share of submissions failing each test\">\n";
  for (std::size_t i = 0; i < cols.size(); ++i) {
    int ran = 0, failed = 0;
    for (const auto& r : results)
      for (const auto& t : r.tests)
        // Only a submission that reached its tests ran them (a compile error ran none).
        if (t.name == cols[i] && r.state == GradeState::Graded && !report::not_measured(t)) {
          ++ran;
          if (t.status == Status::Failed) ++failed;
          break;
        }
    const double rate = ran > 0 ? static_cast<double>(failed) / ran : 0;
    const int y = 5 + static_cast<int>(i) * row_h;
    const int w = static_cast<int>(std::lround(rate * bar_max));
    s += "<text x=\"" + std::to_string(label_w - 6) + "\" y=\"" + std::to_string(y + 15) +
         "\" text-anchor=\"end\">" + xml_escape(report::fit_width(report::clean_line(cols[i]), 30)) +
         "</text>\n";
    s += "<rect class=\"fail\" x=\"" + std::to_string(label_w) + "\" y=\"" + std::to_string(y + 3) +
         "\" width=\"" + std::to_string(w) + "\" height=\"" + std::to_string(row_h - 6) + "\"/>\n";
    s += "<text x=\"" + std::to_string(label_w + w + 6) + "\" y=\"" + std::to_string(y + 15) + "\">" +
         (ran > 0 ? num(100 * rate, 0) + "% (" + std::to_string(failed) + "/" + std::to_string(ran) + ")"
                  : std::string("not run")) +
         "</text>\n";
  }
  return s + "</svg>\n";
}

// A student's name linked to their report.html.
std::string report_link(const std::string& student) {
  const std::string href = report::url_segment(report_folder(student)) + "/report.html";
  return "<a href=\"" + xml_attr(href) + "\">" + xml_escape(student) + "</a>";
}

std::string diagnoses_table(const std::vector<GradeResult>& results) {
  // Grouped by the diagnosis's stable id: its text holds each case's sizes.
  std::map<std::string, std::vector<std::string>> who;  // the students showing each diagnosis id, in order
  std::map<std::string, std::string> example;           // the first text seen for each id
  for (const auto& r : results) {
    std::set<std::string> seen;
    for (const auto& t : r.tests)
      for (const auto& d : t.diagnoses) {
        seen.insert(d.id);
        example.emplace(d.id, report::clean_line(d.text));
      }
    for (const auto& id : seen) who[id].push_back(r.student);
  }
  if (who.empty()) return "<p>No diagnoses.</p>\n";
  std::vector<std::pair<std::string, std::vector<std::string>>> sorted(who.begin(), who.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
  if (sorted.size() > kTopDiagnoses) sorted.resize(kTopDiagnoses);
  std::string s =
      "<table id=\"diagnoses\">\n<tr><th>Diagnosis</th><th>Submissions</th><th>Example</th><th>Students</th></tr>\n";
  for (const auto& [id, students] : sorted) {
    // Every student with the diagnosis, each linked to their report; a long list folds.
    std::string links;
    for (const std::string& st : students) links += (links.empty() ? "" : ", ") + report_link(st);
    if (students.size() > kUnfoldedStudents)
      links = "<details><summary>" + std::to_string(students.size()) + " students</summary>" + links + "</details>";
    s += "<tr><td><code>" + xml_escape(id) + "</code></td><td class=\"num\">" + std::to_string(students.size()) +
         "</td><td>" + xml_escape(example[id]) + "</td><td>" + links + "</td></tr>\n";
  }
  return s + "</table>\n";
}

std::string leaderboard(const std::vector<GradeResult>& results) {
  // leaderboard_gflops is only set for correct, plausible timings; a result
  // that did not grade normally is left out whatever it holds.
  std::vector<const GradeResult*> board;
  for (const auto& r : results)
    if (r.state == GradeState::Graded && r.leaderboard_gflops && std::isfinite(*r.leaderboard_gflops) &&
        *r.leaderboard_gflops > 0)
      board.push_back(&r);
  if (board.empty()) return "<p>No correct, plausible timing (the CPU backend does not time).</p>\n";
  std::stable_sort(board.begin(), board.end(), [](const GradeResult* a, const GradeResult* b) {
    return *a->leaderboard_gflops > *b->leaderboard_gflops;
  });
  if (board.size() > kTopLeaders) board.resize(kTopLeaders);
  std::string s = "<table>\n<tr><th>Rank</th><th>Student</th><th>GFLOP/s</th></tr>\n";
  for (std::size_t i = 0; i < board.size(); ++i)
    s += "<tr><td class=\"num\">" + std::to_string(i + 1) + "</td><td>" +
         xml_escape(board[i]->student) + "</td><td class=\"num\">" +
         num(*board[i]->leaderboard_gflops, 1) + "</td></tr>\n";
  return s + "</table>\n";
}

std::string student_table(const std::vector<GradeResult>& results) {
  std::vector<const GradeResult*> rows;
  for (const auto& r : results) rows.push_back(&r);
  std::stable_sort(rows.begin(), rows.end(), [](const GradeResult* a, const GradeResult* b) {
    return a->student < b->student;
  });
  std::string s =
      "<table id=\"students\" class=\"sortable\">\n<tr><th>Student</th><th>State</th><th>Score</th><th>Max</th>"
      "<th>%</th><th>GFLOP/s</th><th>Failed tests</th></tr>\n";
  for (const GradeResult* r : rows) {
    std::string failed;
    for (const auto& t : r->tests)
      if (t.status == Status::Failed) failed += (failed.empty() ? "" : ", ") + report::clean_line(t.name);
    // data-sort: what the sorting script compares (numbers as numbers).
    s += "<tr><td data-sort=\"" + xml_attr(r->student) + "\">" + report_link(r->student) + "</td>";
    s += "<td class=\"" + std::string(r->state == GradeState::Graded ? "graded" : "other") + "\">" +
         xml_escape(to_string(r->state)) + "</td>";
    s += "<td class=\"num\">" + num(r->score(), 2) + "</td><td class=\"num\">" +
         num(r->max_score(), 2) + "</td><td class=\"num\">" + num(percent(*r), 1) + "</td>";
    s += "<td class=\"num\" data-sort=\"" + (r->leaderboard_gflops ? num(*r->leaderboard_gflops, 3) : "-1") + "\">" +
         (r->leaderboard_gflops ? num(*r->leaderboard_gflops, 1) : "") + "</td>";
    s += "<td>" + xml_escape(failed) + "</td></tr>\n";
  }
  return s + "</table>\n";
}

// The students whose report folder is not their id (report_folder: characters
// a file name cannot hold, a name the batch uses itself, or a clash), so that
// a TA looking for a folder finds it.
std::string renamed_folders(const std::vector<GradeResult>& results) {
  std::string items;
  for (const auto& r : results)
    if (const std::string folder = report_folder(r.student); folder != r.student)
      items += "<li>" + xml_escape(r.student) + " &#8594; <code>" + xml_escape(folder) + "/</code></li>\n";
  if (items.empty()) return "";
  return "<p>Report folders that are not the student's id (a character a folder name cannot hold, a name "
         "the batch uses for its own files, or two ids that would share a folder):</p>\n<ul id=\"renamed\">\n" +
         items + "</ul>\n";
}

// The best speedup over the reference among a result's timed tests (0: none).
double best_speedup(const GradeResult& r) {
  double best = 0;
  for (const auto& t : r.tests)
    if (t.timing && !t.timing->implausible && std::isfinite(t.timing->speedup)) best = std::max(best, t.timing->speedup);
  return best;
}

// Score (%) against the best speedup: one dot per timed submission.
std::string scatter(const std::vector<GradeResult>& results) {
  std::vector<std::pair<const GradeResult*, double>> dots;
  double most = 1;
  for (const auto& r : results)
    if (const double sp = best_speedup(r); sp > 0) {
      dots.emplace_back(&r, sp);
      most = std::max(most, sp);
    }
  if (dots.empty()) return "<p>No submission was timed (the CPU backend does not time).</p>\n";
  const int left = 50, top = 10, w = 400, h = 240;
  const double x_max = std::ceil(most * 1.1 * 2) / 2;  // round up to a half
  std::string s = "<svg id=\"scatter\" width=\"" + std::to_string(left + w + 20) + "\" height=\"" +
                  std::to_string(top + h + 40) + "\" role=\"img\" aria-label=\"Score against speedup\">\n";
  s += "<line x1=\"" + std::to_string(left) + "\" y1=\"" + std::to_string(top + h) + "\" x2=\"" +
       std::to_string(left + w) + "\" y2=\"" + std::to_string(top + h) + "\" stroke=\"#888\"/>\n";
  s += "<line x1=\"" + std::to_string(left) + "\" y1=\"" + std::to_string(top) + "\" x2=\"" + std::to_string(left) +
       "\" y2=\"" + std::to_string(top + h) + "\" stroke=\"#888\"/>\n";
  s += "<text x=\"" + std::to_string(left + w / 2) + "\" y=\"" + std::to_string(top + h + 32) +
       "\" text-anchor=\"middle\">best speedup over the tiled reference (0 to " + num(x_max, 1) + "x)</text>\n";
  s += "<text x=\"12\" y=\"" + std::to_string(top + h / 2) + "\" transform=\"rotate(-90 12 " +
       std::to_string(top + h / 2) + ")\" text-anchor=\"middle\">score %</text>\n";
  for (const auto& [r, sp] : dots) {
    const int x = left + static_cast<int>(std::lround(sp / x_max * w));
    const int y = top + h - static_cast<int>(std::lround(percent(*r) / 100.0 * h));
    s += "<circle class=\"dot\" cx=\"" + std::to_string(x) + "\" cy=\"" + std::to_string(y) + "\" r=\"4\"><title>" +
         xml_escape(r->student) + ": " + num(percent(*r), 1) + "%, " + num(sp, 2) + "x</title></circle>\n";
  }
  return s + "</svg>\n";
}

// Click a header to sort by that column; numbers compare as numbers.
constexpr char kSortScript[] =
    "document.querySelectorAll('table.sortable th').forEach(function(th,col){th.style.cursor='pointer';"
    "th.addEventListener('click',function(){var t=th.closest('table'),rows=Array.from(t.rows).slice(1),"
    "up=th.dataset.dir!=='asc';th.dataset.dir=up?'asc':'desc';"
    "var key=function(r){var c=r.cells[col];return c.dataset.sort!==undefined?c.dataset.sort:c.textContent;};"
    "rows.sort(function(a,b){var x=key(a),y=key(b),nx=parseFloat(x),ny=parseFloat(y);"
    "var d=(!isNaN(nx)&&!isNaN(ny))?nx-ny:x.localeCompare(y);return up?d:-d;});"
    "rows.forEach(function(r){t.tBodies[0].appendChild(r);});});});";

}  // namespace

std::string summary_html(const std::vector<GradeResult>& results, const std::string& title, const std::string& extra) {
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n";
  h += "<title>" + xml_escape(title) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
  // First what the scores are out of and, without a GPU, how they were counted (report/score_line.h).
  h += "<h1>" + xml_escape(title) + "</h1>\n";
  if (const std::string line = report::class_score_line(results); !line.empty())
    h += "<p id=\"score-basis\"><strong>" + xml_escape(line) + "</strong></p>\n";
  h += overview(results);
  h += "<h2>Scores</h2>\n" + histogram(results);
  h += "<h2>Failure rate per test</h2>\n<p>Failed among the submissions that ran the test (those that did not "
       "build, or where it was not measured, are left out).</p>\n" +
       failure_rates(results);
  h += "<h2>Most common diagnoses</h2>\n" + diagnoses_table(results);
  h += "<h2>Leaderboard</h2>\n" + leaderboard(results);
  h += "<h2>Score against speedup</h2>\n" + scatter(results);
  h += "<h2>Students</h2>\n<p>Click a column's heading to sort by it.</p>\n" + student_table(results) +
       renamed_folders(results);
  h += extra;
  // CDATA keeps the script's characters out of the XML parse.
  h += "<script>//<![CDATA[\n" + std::string(kSortScript) + "\n//]]></script>\n";
  return h + "</body>\n</html>\n";
}

}  // namespace sg
