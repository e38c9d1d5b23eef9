// The class's GradeResults for the gradebook and summary: each student's
// grade-result.json where the journal says it was graded, a synthesised result
// (score 0, the reason) where grading timed out, crashed or never happened.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "batch/batch_files.h"
#include "batch/journal.h"
#include "model/result.h"
#include "model/suite.h"

namespace sg::batch {

struct ClassMember {
  std::string student;
  std::string submission;
};

// States a batch writes itself when a grade process gave no usable result.
bool is_synthesised_state(const std::string& status);

// One result per member, in the members' order. `notes` gets a line for each
// student whose results could not be read. `out_dir` holds report_folder(id)/.
std::vector<GradeResult> class_results(const std::string& out_dir, const std::vector<ClassMember>& members,
                                       const std::map<std::string, JournalEntry>& latest,
                                       const Suite* suite, const BatchSettings& settings,
                                       std::vector<std::string>& notes);

}  // namespace sg::batch
