// Reading a Gradescope "export submissions" folder's submission_metadata.yml.
#pragma once
#include <string>
#include <vector>

namespace sg::batch {

struct Submitter {
  std::string name, sid, email;
};

struct ExportedSubmission {
  std::string folder;                // e.g. "submission_123456"
  std::vector<Submitter> submitters;  // several for a group submission
};

// Parses the metadata text. The file maps each submission folder to a record
// whose keys are Ruby symbols written with colons, e.g.
//   submission_123456:
//     :submitters:
//     - :name: Ada Lovelace
//       :sid: '1815'
//       :email: ada@example.edu
//     :score: ...
// Keys are accepted with or without the colons. Throws RosterError naming
// `where` (and line/column) when the text is not such a mapping.
std::vector<ExportedSubmission> parse_submission_metadata(const std::string& yaml,
                                                          const std::string& where);

// The id a gradebook uses for one exported submission: the first submitter's
// SID, else email, else name; the folder name when there is no submitter.
// Group members after the first are joined with '+' (e.g. "1815+1816").
std::string exported_student_id(const ExportedSubmission& s);

}  // namespace sg::batch
