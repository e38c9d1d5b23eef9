// Gradebooks for a learning management system, beside gradebook.csv: one row
// per person (a Gradescope group submission gives each member their row).
#pragma once
#include <string>
#include <vector>

#include "batch/roster.h"
#include "model/result.h"

namespace sg::batch {

// One person and the result they share: the gradebook's student id, and the
// name, SID and email the export's metadata gives (empty for plain folders).
struct Person {
  std::string student;  // the gradebook id (GradeResult::student)
  Submitter who;
};

// Everyone in the roster, one per member of each submission (one for a
// submission without metadata), in roster order.
std::vector<Person> people_of(const std::vector<Submission>& roster);

// members.csv: student,name,sid,email,total,max,status, one row per person.
std::string members_csv(const std::vector<Person>& people, const std::vector<GradeResult>& results);

// canvas.csv for Canvas's gradebook import: Student, ID, SIS User ID, SIS
// Login ID, Section, then one column `assignment`; a "Points Possible" row
// first. ID and Section stay empty (Canvas's own, not known here); Canvas
// matches rows by SIS User ID (the SID) or SIS Login ID (the email, or the
// folder name when there is no metadata).
std::string canvas_csv(const std::vector<Person>& people, const std::vector<GradeResult>& results,
                       const std::string& assignment);

}  // namespace sg::batch
