#include "cli/grade_worker.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "batch/worker_protocol.h"
#include "cli/grade_one.h"
#include "cli/options.h"
#include "proto/protocol.h"

namespace sg {
namespace {

constexpr int kJobFd = 3, kReplyFd = 4;

// The next line of `fd` (without its newline); false at end of file.
bool read_line(int fd, std::string& buffer, std::string& line) {
  for (;;) {
    const std::size_t nl = buffer.find('\n');
    if (nl != std::string::npos) {
      line = buffer.substr(0, nl);
      buffer.erase(0, nl + 1);
      return true;
    }
    char chunk[4096];
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    buffer.append(chunk, static_cast<std::size_t>(n));
  }
}


// Points stdout and stderr at `fd`, everything written before flushed.
void output_to(int fd) {
  std::cout.flush();
  std::fflush(stdout);
  std::fflush(stderr);
  ::dup2(fd, STDOUT_FILENO);
  ::dup2(fd, STDERR_FILENO);
}

// One grading, as `grade ARGS...` would run it; its exit status.
int grade_job(const batch::WorkerJob& job, const PrivateMounts& mounts, BackendKeep& keep) {
  std::vector<std::string> words = {"grade"};
  words.insert(words.end(), job.args.begin(), job.args.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  CliOptions cli;
  std::string error;
  if (!parse_cli(static_cast<int>(words.size()), argv.data(), cli, error)) {
    std::fprintf(stderr, "grade: %s\n", error.c_str());
    return 2;
  }
  return grade_one(cli, mounts, &keep);
}

// Whether `fd` is open and a pipe, as the batch's are.
bool is_pipe(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
}

}  // namespace

int worker_main(int argc, char**) {
  if (argc > 1 || !is_pipe(kJobFd) || !is_pipe(kReplyFd)) {
    std::fprintf(stderr,
                 "grade worker: grade batch starts this, one per slot, and sends it gradings on descriptor 3; "
                 "to grade one submission, run grade without `worker`\n");
    return 2;
  }
  // Neither pipe reaches what the gradings start.
  ::fcntl(kJobFd, F_SETFD, FD_CLOEXEC);
  ::fcntl(kReplyFd, F_SETFD, FD_CLOEXEC);
  const PrivateMounts mounts = prepare_judge_process();
  const int null_fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null_fd < 0) return 3;
  BackendKeep keep;
  std::string buffer, line;
  while (read_line(kJobFd, buffer, line)) {
    batch::WorkerReply reply;
    std::string why;
    const std::optional<batch::WorkerJob> job = batch::decode_job(line, why);
    const int flags = O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC;
    const int log = job ? ::open(job->log_file.c_str(), flags, 0644) : -1;
    if (log < 0) {
      reply.code = job ? 3 : 2;  // the batch's folder unwritable: an internal error, as in a grade process
    } else {
      output_to(log);
      ::close(log);
      reply.code = grade_job(*job, mounts, keep);
      output_to(null_fd);  // the log is closed: nothing of the next grading goes into it
    }
    // After an internal error nothing kept is trusted; a CUDA error in the
    // judge's context would fail every later grading.
    reply.ends = reply.code == 3 || (keep.state && !keep.state->ready_for_another());
    const std::string answer = batch::encode_reply(reply);
    if (!proto::write_all(kReplyFd, answer.data(), answer.size()) || reply.ends) return 0;
  }
  return 0;
}

}  // namespace sg
