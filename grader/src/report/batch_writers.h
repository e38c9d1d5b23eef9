// Writers over a whole class: the gradebook and the summary page. Like the
// per-submission writers they return text; write_batch_reports puts it on disk.
#pragma once
#include <string>
#include <vector>

#include "model/result.h"

namespace sg {

// Test names over all results, in suite order (a name missing from earlier
// results is placed where the result that has it puts it).
std::vector<std::string> test_columns(const std::vector<GradeResult>& results);

// One row per student: student, total, max, status, gflops, then the score of
// each test (empty where a result lacks it). RFC 4180 with CRLF line ends; text
// cells starting with = + - @ get a leading ' so spreadsheets do not run them.
std::string gradebook_csv(const std::vector<GradeResult>& results);

// One self-contained HTML page (inline CSS and SVG, nothing fetched; one small
// script sorts the student table): score histogram, failure rate per test,
// diagnoses grouped by id, GFLOP/s leaderboard, score against speedup, and a
// per-student table linking to `<report_folder(student)>/report.html`.
// `extra` (already HTML) goes after the table. All text is escaped.
std::string summary_html(const std::vector<GradeResult>& results, const std::string& title,
                         const std::string& extra = "");

// The folder (relative to the batch output folder) holding one student's
// reports: the id itself where it is made of [A-Za-z0-9._-] only and is none
// of the batch's own names (class_files.h), does not start with '.' and does
// not end like a suffix below. Otherwise every other character becomes '_',
// a reserved name gets '_' in front, and "-" and the first 8 hex digits of the
// id's SHA-256 go after it: two ids never share a folder. Batch mode writes
// write_reports(r, dir/report_folder(id)) so the summary's links resolve.
std::string report_folder(const std::string& student);

// Writes gradebook.csv and summary.html into `dir` (created if needed).
// Throws std::runtime_error naming the path on failure.
// `extra`: HTML for the summary page after its student table.
void write_batch_reports(const std::vector<GradeResult>& results, const std::string& dir,
                         const std::string& title, const std::string& extra = "");

}  // namespace sg
