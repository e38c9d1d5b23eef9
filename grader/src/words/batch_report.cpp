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

std::string not_graded(const std::string& why) { return "not graded: " + why; }

std::string not_graded_device() { return "not graded"; }

}  // namespace sg
