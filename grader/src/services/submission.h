// Finding the kernel.cu of a submission (a file, or a folder holding one).
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

namespace sg {

// The path does not exist at all: a usage error (exit 2), nothing to grade.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct LocatedSubmission {
  std::string kernel;   // path of the kernel.cu to grade, empty when `problem` is set
  // Why this submission cannot be graded (graded as 0 with this reason): no
  // single kernel.cu, or one that is empty, too large or not source text (an
  // upload of a binary or an archive is called that). Files are named by their
  // place in the submission, as students read it, never by the TA's folders.
  std::string problem;
};

// The most a submission's kernel.cu may hold, checked before anything reads
// it: an honest kernel is a few KiB, and the judge holds the text whole.
inline constexpr std::uintmax_t kMaxSourceBytes = 1u << 20;

// Throws UsageError when `path` does not exist. A folder is searched (a few
// levels deep, skipping hidden folders, archive debris and links) for kernel.cu;
// the kernel.cu found is read only as far as telling source text from a binary.
LocatedSubmission locate_submission(const std::string& path);

struct SubmissionText {
  std::string text;     // the file's bytes, empty when `problem` is set
  std::string problem;  // why it was not read
};

// The bytes of a located kernel.cu, for whatever reads a submission after its
// grading (the batch's similarity pass): never through a link (O_NOFOLLOW),
// only a regular file, and never more than kMaxSourceBytes read, whatever the
// file claims or becomes meanwhile.
SubmissionText read_submission_text(const std::string& kernel);

}  // namespace sg
