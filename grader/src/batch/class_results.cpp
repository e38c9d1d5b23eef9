#include "batch/class_results.h"

#include <exception>

#include "batch/unfinished_result.h"
#include "model/result_codec.h"
#include "report/batch_writers.h"

namespace sg::batch {

bool is_synthesised_state(const std::string& status) {
  return status == "timeout" || status == "internal error" || status == "not graded";
}

std::vector<GradeResult> class_results(const std::string& out_dir, const std::vector<ClassMember>& members,
                                       const std::map<std::string, JournalEntry>& latest,
                                       const Suite* suite, const BatchSettings& settings,
                                       std::vector<std::string>& notes) {
  std::vector<GradeResult> out;
  for (const auto& m : members) {
    const auto it = latest.find(m.student);
    const std::string dir = out_dir + "/" + report_folder(m.student);
    if (it == latest.end()) {
      notes.push_back(m.student + ": no result (grading never finished)");
      out.push_back(unfinished_result(suite, settings.public_only, m.student, m.submission,
                                      settings.backend, GradeState::InternalError,
                                      "grading never finished for this submission"));
      continue;
    }
    const JournalEntry& e = it->second;
    if (is_synthesised_state(e.status)) {
      out.push_back(unfinished_result(suite, settings.public_only, m.student, m.submission,
                                      settings.backend,
                                      parse_grade_state(e.status).value_or(GradeState::InternalError),
                                      e.detail.empty() ? e.status : e.detail, e.max));
      continue;
    }
    try {
      GradeResult r = read_result_file(dir);
      r.student = m.student;  // the roster's id is what the gradebook keys on
      out.push_back(std::move(r));
    } catch (const std::exception& ex) {
      notes.push_back(m.student + ": " + ex.what());
      out.push_back(unfinished_result(suite, settings.public_only, m.student, m.submission,
                                      settings.backend, GradeState::InternalError,
                                      std::string("results unreadable: ") + ex.what(), e.max));
    }
  }
  return out;
}

}  // namespace sg::batch
