// Finding the kernel.cu of a submission (a file, or a folder holding one).
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace sg {

// The path does not exist at all: a usage error (exit 2), nothing to grade.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What is wrong with a submission's files, as facts (words/submission_report
// says it). `file` names the file by its place in the submission, as students
// read it (or, reading a located kernel.cu, by its path); `folder` is the
// submission folder's own name, never the TA's path ("" for none).
struct SubmissionProblem {
  enum class Kind {
    None,
    NotRegularFile, Unreadable, Empty, TooLarge,   // a kernel.cu found
    LooksLike, Utf16, NulBytes, ControlBytes,      // ... whose first bytes are no source text
    TooManyEntries, NoKernel, SeveralKernels,      // a folder
    IsLink, CannotOpen, OverLimit, ReadFailed, Grew,  // reading a located kernel.cu
  };
  Kind kind = Kind::None;
  std::string file, folder;
  const char* looks_like = "";      // LooksLike: what its first bytes say it is ("an ELF binary")
  std::uintmax_t bytes = 0, limit = 0;  // TooLarge (bytes, limit); OverLimit, Grew, TooManyEntries (limit)
  int error = 0;                    // CannotOpen, ReadFailed: errno
  std::vector<std::string> kernels;  // SeveralKernels: each by its place in the folder
  explicit operator bool() const { return kind != Kind::None; }
};

struct LocatedSubmission {
  std::string kernel;   // path of the kernel.cu to grade, empty when `problem` is set
  // Why this submission cannot be graded (graded as 0 with this reason): no
  // single kernel.cu, or one that is empty, too large or not source text (an
  // upload of a binary or an archive is called that).
  SubmissionProblem problem;
};

// The most a submission's kernel.cu may hold, checked before anything reads
// it: an honest kernel is a few KiB, and the judge holds the text whole.
inline constexpr std::uintmax_t kMaxSourceBytes = 1u << 20;

// Throws UsageError when `path` does not exist. A folder is searched (a few
// levels deep, skipping hidden folders, archive debris and links) for kernel.cu;
// the kernel.cu found is read only as far as telling source text from a binary.
LocatedSubmission locate_submission(const std::string& path);

struct SubmissionText {
  std::string text;          // the file's bytes, empty when `problem` is set
  SubmissionProblem problem;  // why it was not read
};

// The bytes of a located kernel.cu, for whatever reads a submission after its
// grading (the batch's similarity pass): never through a link (O_NOFOLLOW),
// only a regular file, and never more than kMaxSourceBytes read, whatever the
// file claims or becomes meanwhile.
SubmissionText read_submission_text(const std::string& kernel);

}  // namespace sg
