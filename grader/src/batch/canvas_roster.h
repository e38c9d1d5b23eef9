// A Canvas course's roster, read from its gradebook export (Grades > Export):
// the columns Canvas matches an imported gradebook on, for each student.
#pragma once
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace sg::batch {

// A roster that cannot be used (exit 2, before any grading): names the file
// and what is wrong.
struct CanvasRosterError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct CanvasStudent {
  std::string name;          // Student, e.g. "Lovelace, Ada"
  std::string id;            // ID: Canvas's own user id
  std::string sis_user_id;   // SIS User ID
  std::string sis_login_id;  // SIS Login ID (a login name or an e-mail address)
  std::string section;       // Section ("" where the export has no such column)
  int line = 0;              // where the student's row starts in the file
};

struct CanvasRoster {
  std::string path;
  std::vector<CanvasStudent> students;  // in the file's order
};

// The columns a roster must have (Section is optional: a hand-made roster may
// lack it). Headings match without regard to case or surrounding blanks.
inline constexpr const char* kRosterColumns[] = {"Student", "ID", "SIS User ID", "SIS Login ID"};

// Reads a Canvas gradebook export. Its "Points Possible" row and rows that
// name no one (Canvas's row of posting policies) are skipped; every other
// column (the assignments) is ignored. `path` names the file in messages.
CanvasRoster parse_canvas_roster(std::string_view text, const std::string& path);

// The same from a file; throws CanvasRosterError for a file that cannot be read.
CanvasRoster read_canvas_roster(const std::string& path);

}  // namespace sg::batch
