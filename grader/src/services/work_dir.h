// The private work folder of one grading: build/ (the submission's copy and
// what is built from it), logs/ (the judge's own captures), scratch/ (the
// runner's only writable place) and baseline-scratch/ (the grader's baseline
// runner's, which no student process can reach inside the sandbox). Removed
// afterwards unless kept for debugging.
// With a uid of the grading's own (process/job_identity.h) every folder is
// root's, those but logs/ with the grading's group and mode 0770, logs/ 0700:
// no other grading's code can read, plant or delete anything in them,
// sandbox or not (the judge reads as root).
#pragma once
#include <string>

#include "process/job_identity.h"

namespace sg {

class WorkDir {
 public:
  // Under `root`, or TMPDIR, or /tmp. Throws std::runtime_error when it cannot be made.
  // `owner`: the grading's own uid, when it has one.
  WorkDir(const std::string& root, bool keep, RunAs owner = {});
  ~WorkDir();
  WorkDir(const WorkDir&) = delete;
  WorkDir& operator=(const WorkDir&) = delete;

  const std::string& path() const { return path_; }
  std::string sub(const std::string& s) const { return path_ + "/" + s; }
  // Why the folder's file system cannot take a build's output (under 1 MiB
  // or no inode free), or "": the machine's failure, not the student's.
  std::string out_of_space() const;
  // Set when the folder asked for could not be used (e.g. TMPDIR under /root, which the
  // unprivileged runner cannot enter), saying where the work went instead.
  const std::string& note() const { return note_; }

 private:
  std::string path_;
  std::string note_;
  bool keep_;
};

}  // namespace sg
