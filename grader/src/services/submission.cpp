#include "services/submission.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <vector>

namespace fs = std::filesystem;

namespace sg {
namespace {

constexpr int kMaxDepth = 4;
// Checked before anything reads the submission: an honest folder holds a
// handful of files (kMaxSourceBytes caps the kernel itself).
constexpr std::size_t kMaxEntries = 10000;

// `seen` counts every entry looked at; past kMaxEntries the walk stops.
void find_kernels(const fs::path& dir, int depth, std::vector<fs::path>& found, std::size_t& seen) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (++seen > kMaxEntries) return;
    const fs::path& p = it->path();
    const std::string name = p.filename().string();
    if (name.empty() || name[0] == '.' || name == "__MACOSX") continue;
    if (it->is_symlink(ec)) continue;  // never follow links out of the submission
    if (it->is_directory(ec)) {
      if (depth < kMaxDepth) find_kernels(p, depth + 1, found, seen);
    } else if (name == "kernel.cu" && it->is_regular_file(ec)) {
      found.push_back(p);
    }
  }
}

std::string check_file(const fs::path& p) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return p.string() + " is not a regular file";
  if (::access(p.c_str(), R_OK) != 0) return p.string() + " cannot be read";
  const std::uintmax_t size = fs::file_size(p, ec);
  if (size == 0 || ec) return p.string() + " is empty";
  if (size > kMaxSourceBytes)
    return p.string() + " is " + std::to_string(size) + " bytes; a submission may be at most " +
           std::to_string(kMaxSourceBytes) + " bytes (1 MiB)";
  return "";
}

}  // namespace

LocatedSubmission locate_submission(const std::string& path) {
  std::error_code ec;
  const fs::path p(path);
  if (path.empty() || !fs::exists(fs::symlink_status(p, ec)))
    throw UsageError("submission not found: " + (path.empty() ? std::string("(empty path)") : path));
  LocatedSubmission out;
  if (!fs::is_directory(p, ec)) {
    out.problem = check_file(p);
    if (out.problem.empty()) out.kernel = p.string();
    return out;
  }
  std::vector<fs::path> found;
  std::size_t seen = 0;
  find_kernels(p, 0, found, seen);
  if (seen > kMaxEntries) {
    out.problem = p.string() + " holds more than " + std::to_string(kMaxEntries) +
                  " files and folders; submit the kernel.cu (or a small folder holding it)";
  } else if (found.empty()) {
    out.problem = "no kernel.cu found in " + p.string();
  } else if (found.size() > 1) {
    out.problem = "more than one kernel.cu in " + p.string() + ":";
    for (const auto& f : found) out.problem += " " + f.string();
    out.problem += " (submit exactly one)";
  } else {
    out.problem = check_file(found[0]);
    if (out.problem.empty()) out.kernel = found[0].string();
  }
  return out;
}

SubmissionText read_submission_text(const std::string& kernel) {
  SubmissionText out;
  // O_NONBLOCK: opening a FIFO must not wait for a writer.
  const int fd = ::open(kernel.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    out.problem = kernel + (errno == ELOOP ? " is a link" : " cannot be opened: " + std::string(std::strerror(errno)));
    return out;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    out.problem = kernel + " is not a regular file";
  } else if (static_cast<std::uintmax_t>(st.st_size) > kMaxSourceBytes) {
    out.problem = kernel + " is over " + std::to_string(kMaxSourceBytes) + " bytes";
  } else {
    // One byte past the cap at most: enough to tell a file that grew since fstat.
    char chunk[1 << 16];
    while (out.text.size() <= kMaxSourceBytes) {
      const std::size_t want = std::min(sizeof chunk, static_cast<std::size_t>(kMaxSourceBytes + 1 - out.text.size()));
      const ssize_t got = ::read(fd, chunk, want);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        if (got < 0) out.problem = kernel + " cannot be read: " + std::strerror(errno);
        break;
      }
      out.text.append(chunk, static_cast<std::size_t>(got));
    }
    if (out.problem.empty() && out.text.size() > kMaxSourceBytes)
      out.problem = kernel + " grew past " + std::to_string(kMaxSourceBytes) + " bytes while it was read";
  }
  ::close(fd);
  if (!out.problem.empty()) out.text.clear();
  return out;
}

}  // namespace sg
