#include "report/lead.h"

#include <cctype>
#include <sstream>
#include <string_view>
#include <vector>

#include "report/feedback.h"
#include "report/shown_paths.h"
#include "report/text_clean.h"
#include "words/verdict_preambles.h"

namespace sg::report {
namespace {

constexpr int kMaxErrors = 3;          // errors the lead shows; the full log follows in each view
constexpr int kMaxQuotedLines = 3;     // source lines quoted under each error
constexpr std::size_t kLineWidth = 200;

bool starts_with(std::string_view s, std::string_view head) { return s.substr(0, head.size()) == head; }

template <std::size_t N>
std::string_view without_preamble(std::string_view verdict, const std::string_view (&preambles)[N]) {
  for (std::string_view p : preambles)
    if (starts_with(verdict, p)) return verdict.substr(p.size());
  return verdict;
}

// Why every folded test did not run: the first of a stopped grading's tests
// (not set aside) that the stop kept from running (TestResult::stopped_by).
const std::string* stop_reason(const GradeResult& r) {
  if (r.state == GradeState::Graded) return nullptr;
  for (const auto& t : r.tests)
    if (!not_measured(t) && t.status != Status::Passed && !t.stopped_by.empty()) return &t.stopped_by;
  return nullptr;
}

// Why the grading stopped, without the state's own word ("rejected: uses ..." is "uses ...").
std::string reason(const GradeResult& r) {
  const std::string state = to_string(r.state);
  std::string why;
  if (const std::string* v = stop_reason(r)) {
    why = *v;
  } else if (r.state != GradeState::CompileError) {
    why = r.build_log.substr(0, r.build_log.find('\n'));
  }
  if (why == state) return "";
  if (starts_with(why, state + ": ")) why.erase(0, state.size() + 2);
  return why;
}

// What the not-run line says of the tests, by why they did not run.
const char* not_run_cause(GradeState s) {
  switch (s) {
    case GradeState::Graded: return "";
    case GradeState::CompileError: return "the submission did not compile";
    case GradeState::Rejected: return "the submission was rejected";
    case GradeState::InvalidSubmission: return "the submission could not be graded";
    case GradeState::Timeout: return "the grading ran out of time";
    case GradeState::InternalError: return "the grading could not go on";
  }
  return "";
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// "kernel.cu:19:27: error: ..." (g++) or "kernel.cu(19): error: ..." (nvcc).
bool own_error(const std::string& line) {
  if (!starts_with(line, kCompiledName) || line.size() < kCompiledName.size() + 2) return false;
  const char sep = line[kCompiledName.size()], digit = line[kCompiledName.size() + 1];
  return (sep == ':' || sep == '(') && std::isdigit(static_cast<unsigned char>(digit)) &&
         line.find("error") != std::string::npos;
}

// A source line quoted under an error: indented, and not the next file of an include chain.
bool quoted(const std::string& line) {
  const std::size_t text = line.find_first_not_of(" \t");
  return text != std::string::npos && text > 0 && !starts_with(std::string_view(line).substr(text), "from ");
}

}  // namespace

std::optional<Lead> lead_of(const GradeResult& r) {
  if (r.state == GradeState::Graded) return std::nullopt;
  Lead lead;
  std::string state = to_string(r.state);
  state[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(state[0])));
  const std::string why = reason(r);
  lead.headline = clean_line(why.empty() ? state : state + ": " + why);
  if (!build_log_repeats_lead(r)) lead.first_errors = first_compiler_errors(r.build_log);
  int count = 0;
  double points = 0;
  for (const auto& t : r.tests)
    if (folded(r, t)) {
      ++count;
      points += t.max_score;
    }
  if (count > 0)
    lead.not_run = std::to_string(count) + (count == 1 ? " test (" : " tests (") + num(points, 2) +
                   (points == 1 ? " point) not run: " : " points) not run: ") + not_run_cause(r.state);
  return lead;
}

bool folded(const GradeResult& r, const TestResult& t) {
  const std::string* v = stop_reason(r);
  return v != nullptr && !not_measured(t) && t.status != Status::Passed && t.stopped_by == *v;
}

bool build_log_repeats_lead(const GradeResult& r) {
  if (r.state == GradeState::Graded || r.build_log.empty()) return false;
  const std::string* v = stop_reason(r);
  std::string log = r.build_log;
  while (!log.empty() && std::isspace(static_cast<unsigned char>(log.back()))) log.pop_back();
  return log.find('\n') == std::string::npos &&
         ((v != nullptr && *v == log) || r.state == GradeState::InvalidSubmission);
}

std::string first_compiler_errors(const std::string& log) {
  const std::vector<std::string> lines = lines_of(clean_text(log));
  std::string out;
  int shown = 0, own = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!own_error(lines[i])) continue;
    if (++own > kMaxErrors) continue;
    out += fit_width(lines[i], kLineWidth) + "\n";
    for (std::size_t j = i + 1, q = 0; j < lines.size() && q < kMaxQuotedLines && quoted(lines[j]); ++j, ++q)
      out += fit_width(lines[j], kLineWidth) + "\n";
    ++shown;
  }
  if (own > shown) out += "(" + std::to_string(own - shown) + " more in the compiler's output)\n";
  if (own > 0) return out;
  for (const auto& line : lines)
    if (line.find("error") != std::string::npos && shown++ < kMaxErrors) out += fit_width(line, kLineWidth) + "\n";
  return out;
}

std::string note_within(const std::string& note, std::size_t width) {
  if (display_width(note) <= width) return note;
  // A stopped grading's and a case not timed: words to shorten, never read as data.
  return fit_width(std::string(without_preamble(note, kVerdictPreambles)), width);
}

}  // namespace sg::report
