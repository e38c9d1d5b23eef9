#include "words/batch_report.h"

#include <cmath>
#include <cstring>

#include <fmt/format.h>

namespace sg {

std::string grade_process_end(const ExitInfo& end, double seconds, bool spawn_failed, const std::string& spawn_error) {
  std::string how;
  if (spawn_failed) {
    how = "could not start: " + spawn_error;
  } else if (end.timed_out) {
    how = fmt::format("timed out after {} s and was killed", std::llround(seconds));
  } else if (end.exited) {
    how = fmt::format("exited with code {}", end.code);
  } else {
    const char* name = ::strsignal(end.signal);
    how = fmt::format("killed by signal {}", end.signal) + (name ? std::string(" (") + name + ")" : "");
  }
  return "the grade process " + how;
}

std::string with_last_message(const std::string& why, const std::string& last_line) {
  return last_line.empty() ? why : why + "; its last message: " + last_line;
}

std::string unusable_results(const std::string& what) {
  return "grade exited normally but left no usable results: " + what;
}

std::string missing_submission(const std::string& path) { return "the submission " + path + " does not exist"; }

std::string not_graded_device() { return "not graded"; }

std::string grading_again(const std::string& student, bool changed) {
  return student + ": " +
         (changed ? "the submission changed since it was graded" : "its grade-result.json is missing") +
         "; grading again";
}

std::string batch_plan(std::size_t found, const std::string& folder, const std::string& shard, std::size_t to_grade,
                       std::size_t kept) {
  return fmt::format("{} submission{} in {}{}: {} to grade, {} already graded (journal)", found, found == 1 ? "" : "s",
                     folder, shard.empty() ? "" : ", shard " + shard, to_grade, kept);
}

std::string gpus_in_use(std::size_t gpus) {
  if (gpus == 0) return "no GPU in use: grading on the CPU backend";
  return fmt::format("{} GPU{} in use", gpus, gpus == 1 ? "" : "s");
}

std::string batch_written(std::size_t graded, std::size_t total, const std::string& out) {
  return fmt::format("{} of {} submissions graded normally; wrote {}/gradebook.csv and {}/summary.html", graded, total,
                     out, out);
}

std::string merge_written(std::size_t shards, std::size_t students, const std::string& out) {
  return fmt::format("{} shards, {} students; wrote {}/gradebook.csv and {}/summary.html", shards, students, out, out);
}

std::string students_without_result(const std::vector<std::string>& students) {
  std::string list;
  for (const auto& m : students) list += (list.empty() ? "" : ", ") + m;
  return fmt::format("{} students have no result in any shard: {}", students.size(), list);
}

std::string slurm_script_written(const std::string& script, int shards, const std::string& submit,
                                 const std::string& merge) {
  return fmt::format("wrote {} ({} shards)\n  submit:  sbatch {}\n  then:    {}", script, shards, submit, merge);
}

}  // namespace sg
