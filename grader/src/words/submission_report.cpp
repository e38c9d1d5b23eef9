#include "words/submission_report.h"

#include <cstring>

#include <fmt/format.h>

namespace sg {

std::string submission_problem_text(const SubmissionProblem& p) {
  using K = SubmissionProblem::Kind;
  const std::string folder = p.folder.empty() ? std::string("the submission") : "the folder " + p.folder;
  switch (p.kind) {
    case K::None: return "";
    case K::NotRegularFile: return p.file + " is not a regular file";
    case K::Unreadable: return p.file + " cannot be read";
    case K::Empty: return p.file + " is empty";
    case K::TooLarge:
      return fmt::format("{} is {} bytes; a submission may be at most {} bytes (1 MiB)", p.file, p.bytes, p.limit);
    case K::LooksLike: return p.file + " is not a text file (it looks like " + p.looks_like + ")";
    case K::Utf16: return p.file + " is UTF-16 text, which the compilers do not read; save it as UTF-8";
    case K::NulBytes: return p.file + " is not a text file (it holds NUL bytes, as programs and archives do)";
    case K::ControlBytes: return p.file + " is not a text file (it is mostly control bytes)";
    case K::TooManyEntries:
      return fmt::format("{} holds more than {} files and folders; submit the kernel.cu (or a small folder holding it)",
                         folder, p.limit);
    case K::NoKernel: return "no kernel.cu found in " + folder;
    case K::SeveralKernels: {
      std::string text = "more than one kernel.cu in " + folder + ":";
      for (const std::string& k : p.kernels) text += " " + k;
      return text + " (submit exactly one)";
    }
    case K::IsLink: return p.file + " is a link";
    case K::CannotOpen: return p.file + " cannot be opened: " + std::strerror(p.error);
    case K::OverLimit: return fmt::format("{} is over {} bytes", p.file, p.limit);
    case K::ReadFailed: return p.file + " cannot be read: " + std::strerror(p.error);
    case K::Grew: return fmt::format("{} grew past {} bytes while it was read", p.file, p.limit);
  }
  return "";
}

}  // namespace sg
