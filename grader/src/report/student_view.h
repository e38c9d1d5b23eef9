// What a student may read before grades are published, for the fields they
// see then: results.json's top-level output and its visible tests' output.
// (report.md, report.html and junit.xml are the staff's views: they list the
// hidden tests in full.) Two rules, each closing one way a hidden case's shape
// reaches those fields:
// - the runner is one process, so what it printed from the first hidden case
//   on may carry that case's shape: it waits for publication;
// - a visible test's words (a check naming the cases it saw) must not name a
//   hidden case: such a test's text waits for publication too.
#pragma once
#include <string>

#include "model/result.h"

namespace sg::report {

// Whether the grading planned a correctness or performance case that is
// hidden: its runner was (or would have been) given that case's shape.
bool has_hidden_case(const GradeResult& r);

// The first hidden case in the result's order, or nullptr: where the withheld
// output is shown once grades are published.
const TestResult* first_hidden_case(const GradeResult& r);

// The submission's output split where its runner was given the first hidden
// case: what a student may read before publication, and what waits for it.
// Where the grading did not record that point, all of it waits.
struct OutputParts {
  std::string shown;     // printed before the first hidden case
  std::string withheld;  // printed from the first hidden case on
};
OutputParts split_output(const GradeResult& r);

// The sentence telling the student that output was withheld, and why; and
// the heading of the withheld part where it is shown after publication.
std::string withheld_output_note(const GradeResult& r);
std::string withheld_output_heading(const GradeResult& r);

// The sentence report.md and report.html open with where the grading had
// hidden cases: they show those in full, so they are not for students before
// grades are published.
std::string staff_view_note();

// Whether `text` names a hidden test of `r`: its name as a word, or its shape
// as the judge writes it ("555x333x777", report::size_text).
bool names_hidden_case(const GradeResult& r, const std::string& text);

// test_feedback as a student may read it before publication: a visible
// test's feedback that names a hidden case is replaced by its status and a
// sentence saying why its details wait. A hidden test's is unchanged (it is
// itself shown only after publication).
std::string feedback_before_publication(const GradeResult& r, const TestResult& t);

}  // namespace sg::report
