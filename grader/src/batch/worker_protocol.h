// What `grade batch` and its `grade worker` processes (cli/grade_worker.h)
// say to each other, one JSON line each way: the batch sends a grading (the
// arguments `grade` would take and the log it writes), the worker answers
// with the grading's exit status once it is done.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace sg::batch {

struct WorkerJob {
  std::vector<std::string> args;  // as `grade` takes them, without the program's name
  std::string log_file;           // the grading's stdout and stderr (grade.log)
};

struct WorkerReply {
  int code = 0;       // `grade`'s exit status for the grading (0, 2 or 3)
  bool ends = false;  // the worker ends after it (an internal error, or what it keeps cannot serve another grading)
};

std::string encode_job(const WorkerJob& job);  // one line, with its newline
// nullopt with `why` when the line is not a job.
std::optional<WorkerJob> decode_job(const std::string& line, std::string& why);
std::string encode_reply(const WorkerReply& reply);
std::optional<WorkerReply> decode_reply(const std::string& line);

}  // namespace sg::batch
