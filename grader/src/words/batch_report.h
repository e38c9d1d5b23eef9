// A batch's words for a student whose grading did not finish (batch/ decides
// when): why, as the student's results and the journal say it.
#pragma once
#include <string>

#include "process/process.h"

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
// Each test's verdict, and the device's name, in a result that was not graded.
std::string not_graded(const std::string& why);
std::string not_graded_device();

}  // namespace sg
