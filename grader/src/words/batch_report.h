// A batch's words for a student whose grading did not finish (batch/ decides
// when): why, as the student's results and the journal say it.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "process/process.h"
#include "words/verdict_preambles.h"

namespace sg {

// "the grade process exited with code 3", "... timed out after 600 s and was
// killed", "... killed by signal 9 (Killed)", "... could not start: <why>".
std::string grade_process_end(const ExitInfo& end, double seconds, bool spawn_failed, const std::string& spawn_error);
// `why` and the grade log's last line, where there is one.
std::string with_last_message(const std::string& why, const std::string& last_line);
// A grade process that ended well but whose results could not be read.
std::string unusable_results(const std::string& what);
// A submission that was gone when its turn came.
std::string missing_submission(const std::string& path);
// The device's name in a result that was not graded (each test's verdict: not_graded).
std::string not_graded_device();

// The TA's console during a batch (batch/batch_run.cpp, merge_shards.cpp;
// the command's "grade batch: " prefix is theirs). A student graded again:
// its submission changed, or its results file is missing.
std::string grading_again(const std::string& student, bool changed);
// What the batch will do: `found` submissions in `folder` (of `shard`, ""
// where unsharded), `to_grade` of them now, `kept` graded before.
std::string batch_plan(std::size_t found, const std::string& folder, const std::string& shard, std::size_t to_grade,
                       std::size_t kept);
// The GPUs the batch grades on (0: the CPU backend).
std::string gpus_in_use(std::size_t gpus);
// The end of a batch: `graded` of `total` graded normally; the class files
// written in `out` (of `shards` shards, 0 where it was not a merge).
std::string batch_written(std::size_t graded, std::size_t total, const std::string& out);
std::string merge_written(std::size_t shards, std::size_t students, const std::string& out);
// Students no shard graded.
std::string students_without_result(const std::vector<std::string>& students);
// The Slurm script written: where, its shards, and the two commands that
// follow (already quoted for a shell).
std::string slurm_script_written(const std::string& script, int shards, const std::string& submit,
                                 const std::string& merge);

}  // namespace sg
