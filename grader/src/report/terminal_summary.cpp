// The compact table printed at the end of a grading run.
#include <unistd.h>

#include <algorithm>
#include <optional>
#include <cstdlib>
#include <ostream>
#include <sstream>
#include <vector>

#include "report/feedback.h"
#include "report/lead.h"
#include "report/score_line.h"
#include "report/shown_paths.h"
#include "report/text_clean.h"
#include "report/writers.h"

namespace sg {
namespace {

constexpr std::size_t kNameMax = 32;
constexpr std::size_t kNoteMax = 70;

const char* label(Status s) {
  switch (s) {
    case Status::Passed: return "PASS";
    case Status::Partial: return "PART";
    case Status::Failed: return "FAIL";
    case Status::Skipped: return "----";  // not measured: neither passed nor failed
  }
  return "????";
}

const char* colour(Status s) {
  switch (s) {
    case Status::Passed: return "\x1b[32m";   // green
    case Status::Partial: return "\x1b[33m";  // yellow
    case Status::Failed: return "\x1b[31m";   // red
    case Status::Skipped: return "\x1b[2m";   // dim
  }
  return "";
}

std::string pad(const std::string& s, std::size_t width) {
  const std::size_t w = report::display_width(s);
  return w >= width ? s : s + std::string(width - w, ' ');
}

std::string note(const TestResult& t) {
  if (t.timing && t.status != Status::Failed) {
    std::string s = report::num(t.timing->speedup, 2) + "x reference, " +
                    report::num(t.timing->student_gflops, 1) + " GFLOP/s";
    if (t.timing->implausible) s += ", implausible";
    return s;
  }
  if (t.status == Status::Passed) return "";
  return report::note_within(report::clean_line(t.verdict), kNoteMax);
}

// The first line (report/score_line.h): why a grading whose tests could not
// run stopped (report/lead.h), then the score, what it is out of and, on a
// backend that could not time, how that was counted. Never cut.
void print_opening(const GradeResult& r, const std::optional<report::Lead>& lead, std::ostream& out, bool color) {
  const report::ScoreLine line = report::score_line_of(r);
  const std::string bold = color ? "\x1b[1m" : "", red = color ? colour(Status::Failed) : "",
                    reset = color ? "\x1b[0m" : "";
  if (lead) out << red << lead->headline << reset << report::after_headline(lead->headline);
  out << bold << line.score << reset << " (" << line.counts << ")";
  if (!line.basis.empty()) out << ". " << line.basis << ".";
  out << "\n";
}

// Then the compiler's first errors and the tests the stop kept from running.
void print_lead(const std::optional<report::Lead>& lead, std::ostream& out) {
  if (!lead) return;
  std::istringstream errors(lead->first_errors);
  for (std::string line; std::getline(errors, line);) out << "  " << line << "\n";
  if (!lead->not_run.empty()) out << lead->not_run << "\n";
}

}  // namespace

void print_summary(const GradeResult& given, std::ostream& out, bool color) {
  const GradeResult r = report::as_shown(given);
  const std::string bold = color ? "\x1b[1m" : "", reset = color ? "\x1b[0m" : "";
  const auto lead = report::lead_of(r);
  print_opening(r, lead, out, color);
  print_lead(lead, out);
  out << "SGEMM grader: " << report::clean_line(r.student) << " (suite " << report::clean_line(r.suite_name) << ", "
      << report::backend_name(r) << " backend, " << report::clean_line(r.device) << ")\n";
  if (!r.sandbox.empty()) out << report::clean_line(r.sandbox) << "\n";

  // The tests the lead's not-run line stands for get no row of their own.
  std::vector<const TestResult*> shown;
  for (const auto& t : r.tests)
    if (!report::folded(r, t)) shown.push_back(&t);
  std::size_t name_w = 4;
  std::vector<std::string> names;
  for (const TestResult* t : shown) {
    names.push_back(report::fit_width(report::clean_line(t->name), kNameMax));
    name_w = std::max(name_w, report::display_width(names.back()));
  }
  std::vector<std::string> scores;
  std::size_t score_w = 5;
  for (const TestResult* t : shown) {
    scores.push_back(report::not_measured(*t) ? "-" : report::num(t->score, 2) + "/" + report::num(t->max_score, 2));
    score_w = std::max(score_w, scores.back().size());
  }
  const std::string total = report::num(r.score(), 2) + "/" + report::num(r.max_score(), 2);
  score_w = std::max(score_w, total.size());

  if (!shown.empty()) out << "  " << pad("Test", name_w) << "  Status  " << pad("Score", score_w) << "  Note\n";
  for (std::size_t i = 0; i < shown.size(); ++i) {
    const TestResult& t = *shown[i];
    out << "  " << pad(names[i], name_w) << "  " << (color ? colour(t.status) : "") << label(t.status)
        << reset << "    " << pad(scores[i], score_w) << "  " << note(t) << "\n";
  }
  out << "  " << bold << pad("Total", name_w) << "          " << pad(total, score_w) << reset << "  "
      << report::pass_count_text(r) << "\n";
  out << "  graded in " << report::num(r.execution_time, 1) << " s (compile and link " << report::num(r.compile_time, 1)
      << " s)\n";
}

bool use_color(int fd) {
  const char* no_color = std::getenv("NO_COLOR");
  return isatty(fd) == 1 && (no_color == nullptr || no_color[0] == '\0');
}

}  // namespace sg
