// Gradebooks for a learning management system, beside gradebook.csv: one row
// per person (a Gradescope group submission gives each member their row).
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "batch/batch_options.h"
#include "batch/canvas_roster.h"
#include "batch/roster.h"
#include "model/result.h"
#include "model/suite.h"

namespace sg::batch {

// One person and the result they share: the gradebook's student id, and the
// name, SID and email the export's metadata gives (empty for plain folders).
struct Person {
  std::string student;  // the gradebook id (GradeResult::student)
  Submitter who;
};

// "201+202 (Pair One)": the gradebook id, and the name where known.
std::string person_label(const Person& p);

// Everyone in the roster, one per member of each submission (one for a
// submission without metadata), in roster order.
std::vector<Person> people_of(const std::vector<Submission>& roster);

// members.csv: student,name,sid,email,total,max,status, one row per person.
std::string members_csv(const std::vector<Person>& people, const std::vector<GradeResult>& results);

// What canvas.csv says besides the scores.
struct CanvasSettings {
  // The assignment column's heading. Canvas imports into the existing
  // assignment whose heading in its own export this is ("SGEMM (123456)");
  // any other heading makes a new assignment.
  std::string column;
  double points_possible = 0;              // the "Points Possible" row
  const CanvasRoster* roster = nullptr;    // the course's students, where given
};

// The settings from the command line: the column from --canvas-column, else
// `title`; the points from --points-possible, else what `suite` is worth on
// `backend` (its maximum less, or with, the timed cases' points: model/plan.h;
// 0 without a suite).
CanvasSettings canvas_settings(const BatchOptions& o, const Suite* suite, BackendKind backend,
                               const std::string& title, const CanvasRoster* roster);

struct CanvasExport {
  // Student, ID, SIS User ID, SIS Login ID, Section, then the assignment
  // column; a "Points Possible" row first. With a roster: one row per roster
  // student in its order, their Canvas columns as the roster has them, the
  // score of the submission matched to them (batch/roster_match.h) or empty
  // (Canvas then keeps the grade it has). Without: one row per person, ID and
  // Section empty, SIS User ID the SID and SIS Login ID the e-mail (or the
  // folder name where there is no metadata).
  std::string csv;
  std::string summary_html;           // the section summary.html shows after its tables
  std::vector<std::string> warnings;  // for the batch's log, one line each
};

CanvasExport canvas_export(const std::vector<Person>& people, const std::vector<GradeResult>& results,
                           const CanvasSettings& settings);

// The options of canvas.csv in `o` as a shell command line takes them (" --export
// canvas --roster /abs/roster.csv ..."), for the merge a Slurm batch ends with;
// "" without --export canvas.
std::string canvas_options(const BatchOptions& o);

// Writes members.csv (where the submissions have Gradescope metadata) and,
// with `canvas`, canvas.csv into `dir`, its warnings to `log` after `who`
// ("grade batch: warning: ..."). Returns the HTML summary.html shows for them.
std::string write_lms_exports(const std::string& dir, const std::vector<Submission>& submissions,
                              const std::vector<GradeResult>& results, const CanvasSettings* canvas,
                              std::FILE* log, const char* who);

}  // namespace sg::batch
