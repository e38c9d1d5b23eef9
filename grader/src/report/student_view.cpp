#include "report/student_view.h"

#include <cctype>

#include "report/feedback.h"

namespace sg::report {
namespace {

bool is_hidden_case(const TestResult& t) {
  return t.visibility == Visibility::Hidden && t.kind != TestKind::Check;
}

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Whether `needle` occurs in `text` with no word character either side: a
// test named "big" is not found in "bigger" or in another test's "big_k".
bool occurs_as_word(const std::string& text, const std::string& needle) {
  if (needle.empty()) return false;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    const bool starts = at == 0 || !word_char(text[at - 1]);
    const std::size_t end = at + needle.size();
    const bool ends = end == text.size() || !word_char(text[end]);
    if (starts && ends) return true;
  }
  return false;
}

}  // namespace

bool has_hidden_case(const GradeResult& r) { return first_hidden_case(r) != nullptr; }

const TestResult* first_hidden_case(const GradeResult& r) {
  for (const auto& t : r.tests)
    if (is_hidden_case(t)) return &t;
  return nullptr;
}

OutputParts split_output(const GradeResult& r) {
  OutputParts parts;
  if (!has_hidden_case(r)) {
    parts.shown = r.student_output;
    return parts;
  }
  if (!r.output_before_hidden) {
    parts.withheld = r.student_output;
    return parts;
  }
  parts.shown = *r.output_before_hidden;
  // Runners started later may have changed how the logs are joined: then all of it waits, the start again.
  const bool continues = r.student_output.compare(0, parts.shown.size(), parts.shown) == 0;
  parts.withheld = continues ? r.student_output.substr(parts.shown.size()) : r.student_output;
  return parts;
}

std::string withheld_output_note(const GradeResult& r) {
  if (r.output_before_hidden)
    return "Your program's output from the first hidden test case on is withheld until grades are published: what "
           "it printed from then on could show the hidden case's sizes. It is shown with the hidden tests then.";
  return "Your program's output is withheld until grades are published: it ran hidden test cases, and what it "
         "printed could show their sizes. It is shown with the hidden tests then.";
}

std::string withheld_output_heading(const GradeResult& r) {
  return r.output_before_hidden ? "Your program's output from the first hidden test case on:"
                                : "Your program's output (withheld from the summary until grades were published):";
}

std::string staff_view_note() {
  return "This report shows the hidden tests and everything the program printed: it is for course staff until "
         "grades are published. Before then students see results.json's view (Gradescope), which holds neither.";
}

bool names_hidden_case(const GradeResult& r, const std::string& text) {
  for (const auto& t : r.tests) {
    if (t.visibility != Visibility::Hidden) continue;
    if (occurs_as_word(text, t.name) || occurs_as_word(text, size_text(t))) return true;
  }
  return false;
}

std::string feedback_before_publication(const GradeResult& r, const TestResult& t) {
  const std::string feedback = test_feedback(r, t);
  if (t.visibility == Visibility::Hidden || !names_hidden_case(r, feedback)) return feedback;
  return std::string(status_word(t.status)) + "\nThe details of this test name a hidden test case, so they are withheld until grades are published.\n";
}

}  // namespace sg::report
