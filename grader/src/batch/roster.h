// Who is in the class: the submissions found in a submissions folder, each
// with the student id the gradebook uses.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "batch/gradescope_export.h"

namespace sg::batch {

// A submissions folder that cannot be graded as a class (exit 2).
struct RosterError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Submission {
  std::string id;      // student id: folder name, or Gradescope SID / email
  std::string path;    // the folder (or .cu file) handed to `grade`
  std::string name;    // display name when known (Gradescope), else ""
  std::string email;   // when known
  std::string layout;  // "folder", "git", "file" or "gradescope"
  std::vector<Submitter> members;  // Gradescope: everyone who handed it in (a group has several)
};

// Finds the submissions in `dir`, sorted by id:
//  - a Gradescope "export submissions" folder (has submission_metadata.yml):
//    each submission_<n>/ folder listed there; id = SID, else email, else the folder name;
//  - otherwise each visible sub-folder is one student named by the folder (a git
//    clone is a folder with .git; `grade` finds kernel.cu inside), and each
//    visible `<id>.cu` file is a one-file submission.
// Throws RosterError naming the folder or the clash (two submissions with one id,
// or two ids that map to one report folder).
std::vector<Submission> discover_submissions(const std::string& dir);

// The submissions of shard `index` of `count` (contiguous slices of the sorted list).
std::vector<Submission> shard_slice(const std::vector<Submission>& all, int index, int count);

}  // namespace sg::batch
