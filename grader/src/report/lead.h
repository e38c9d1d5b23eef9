// What every view of a grading whose tests could not run opens with (a compile
// error, a rejection, a submission that could not be graded): the state and
// why, with the score line after it on the same first line
// (report/score_line.h), then the compiler's first errors on the student's own
// lines; the tests that did not run for that reason fold into one line. Built
// here once, so that results.json, report.md, report.html and the terminal say
// it in the same words and the same order.
#pragma once
#include <cstddef>
#include <optional>
#include <string>

#include "model/result.h"

namespace sg::report {

struct Lead {
  // "Compile error: the submission did not build for the CPU backend",
  // "Rejected: uses `system` (processes: ...)": the state, then why.
  std::string headline;
  // The compiler's first errors in kernel.cu, each with the lines it quotes
  // (capped); "" when the log holds none.
  std::string first_errors;
  // "18 tests (84 points) not run: the submission did not compile"; "" when
  // no test was kept from running.
  std::string not_run;
};

// The lead of a grading that stopped early; nullopt for one that was graded.
std::optional<Lead> lead_of(const GradeResult& r);

// Whether `t` is one of the tests the lead's not-run line stands for (views
// leave them out of their tables).
bool folded(const GradeResult& r, const TestResult& t);

// Whether the build log holds only what the lead already says (a submission
// that could not be graded): then no view shows it again.
bool build_log_repeats_lead(const GradeResult& r);

// The first errors of a compiler log on kernel.cu's own lines, each followed
// by the source lines the compiler quotes; the first error lines of any kind
// where none is the submission's.
std::string first_compiler_errors(const std::string& log);

// A clean one-line note within `width` columns: a note that must be cut loses
// its preamble ("not run: ", "not measured: ") before any of its verdict.
std::string note_within(const std::string& note, std::size_t width);

}  // namespace sg::report
