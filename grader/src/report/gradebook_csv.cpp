// gradebook.csv: one row per student, one column per test.
#include <cmath>

#include "report/batch_writers.h"
#include "report/feedback.h"
#include "report/text_clean.h"

namespace sg {
namespace {

std::string text_cell(const std::string& raw) { return report::csv_text_cell(raw); }

std::string number_cell(double v) { return std::isfinite(v) ? report::num(v, 3) : ""; }

}  // namespace

std::string gradebook_csv(const std::vector<GradeResult>& results) {
  const std::vector<std::string> cols = test_columns(results);
  std::string csv = "student,total,max,status,gflops";
  for (const auto& c : cols) csv += "," + text_cell(c);
  csv += "\r\n";
  for (const auto& r : results) {
    csv += text_cell(r.student) + "," + number_cell(r.score()) + "," + number_cell(r.max_score()) +
           "," + text_cell(to_string(r.state)) + "," +
           (r.leaderboard_gflops ? number_cell(*r.leaderboard_gflops) : std::string());
    for (const auto& c : cols) {
      csv += ",";
      for (const auto& t : r.tests) {
        if (t.name != c) continue;
        if (!report::not_measured(t)) csv += number_cell(t.score);  // blank: nothing was measured
        break;
      }
    }
    csv += "\r\n";
  }
  return csv;
}

}  // namespace sg
