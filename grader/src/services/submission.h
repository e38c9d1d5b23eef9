// Finding the kernel.cu of a submission (a file, or a folder holding one).
#pragma once
#include <stdexcept>
#include <string>

namespace sg {

// The path does not exist at all: a usage error (exit 2), nothing to grade.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct LocatedSubmission {
  std::string kernel;   // path of the kernel.cu to grade, empty when `problem` is set
  std::string problem;  // why this submission cannot be graded (graded as 0 with this reason)
};

// Throws UsageError when `path` does not exist. A folder is searched (a few
// levels deep, skipping hidden folders and archive debris) for kernel.cu.
LocatedSubmission locate_submission(const std::string& path);

}  // namespace sg
