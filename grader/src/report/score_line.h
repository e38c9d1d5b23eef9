// The line every view of a grading opens with: the score, what it is out of,
// and, where the backend could not time the performance cases, that it could
// not and how their points were counted (GradeResult::untimed, the suite's
// without_gpu); after why, where the grading stopped early. Built here once so
// that the terminal, report.md, report.html, results.json and the class's
// summary say it in the same words.
#pragma once
#include <string>
#include <vector>

#include "model/result.h"

namespace sg::report {

struct ScoreLine {
  std::string score;   // "Score: 84 / 84"
  std::string counts;  // "18 of 18 tests passed, 4 not measured"
  // "CPU backend: performance not measured on this machine; the timed cases'
  // 16 points are left out (the suite is worth 100 on a GPU)"; "" where every
  // test could be measured.
  std::string basis;
};

ScoreLine score_line_of(const GradeResult& r);

// The line as plain text: "Score: 84 / 84 (18 of 18 tests passed, 4 not
// measured). CPU backend: performance not measured on this machine; ...".
std::string score_line(const GradeResult& r);

// A grading whose tests could not run says why first, on the same line
// (report/lead.h): its headline, then this, then the score line.
std::string after_headline(const std::string& headline);

// The first line of results.json's output and of the terminal summary: the
// lead's headline where the grading stopped early, then the score line.
std::string opening_line(const GradeResult& r);

// The same for a class: "Scores out of 84. CPU backend: ..." ("" for no
// results). Where the maxima differ (a class graded on two backends), each
// with how many submissions have it.
std::string class_score_line(const std::vector<GradeResult>& results);

}  // namespace sg::report
