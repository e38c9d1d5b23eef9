// Rebuilding a GradeResult from a student's results.json (as written by
// report/results_json.cpp), so the class-wide writers (gradebook, summary)
// work on what the separate grade processes produced.
#pragma once
#include <string>

#include "model/result.h"
#include "model/suite.h"

namespace sg::batch {

// Parses results.json text. Restores what the batch writers read: the state,
// backend, device, seed, timings and every test's name, kind, visibility,
// status, score, max score, verdict, size, diagnoses, comparison and timing.
// `detail` stays empty (results.json holds it only merged into the feedback).
// Throws std::runtime_error naming `where` when the text is not such a file.
GradeResult parse_results_json(const std::string& text, const std::string& where);

// Reads and parses `<dir>/results.json`.
GradeResult read_results_file(const std::string& dir);

// A result for a submission whose grade process produced no usable
// results.json (timed out, crashed): every test of the suite (when given) not
// run with `why`, score 0, the given state ("timeout", "internal error", ...).
// Without a suite the result has one test "grading" worth `max_when_no_suite`.
GradeResult unfinished_result(const Suite* suite, bool public_only, const std::string& student,
                              const std::string& submission, std::optional<BackendKind> backend,
                              GradeState state, const std::string& why, double max_when_no_suite = 0);

}  // namespace sg::batch
