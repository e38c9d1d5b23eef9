#include "services/submission.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <system_error>
#include <vector>

namespace fs = std::filesystem;

namespace sg {
namespace {

constexpr int kMaxDepth = 4;
// Checked before anything reads the submission: an honest folder holds a
// handful of files (kMaxSourceBytes caps the kernel itself).
constexpr std::size_t kMaxEntries = 10000;
// How much of a kernel.cu is read to tell source text from a binary.
constexpr std::size_t kSniffBytes = 64 * 1024;

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

// The kinds of file students upload by mistake, by the bytes they open with.
struct Magic {
  std::size_t offset;
  std::string_view bytes;
  const char* what;
};
constexpr Magic kMagics[] = {
    {0, std::string_view("\x7f" "ELF", 4), "an ELF binary"},
    {0, std::string_view("PK\x03\x04", 4), "a zip archive"},
    {0, std::string_view("PK\x05\x06", 4), "a zip archive"},
    {0, std::string_view("\x1f\x8b", 2), "a gzip archive"},
    {0, std::string_view("BZh", 3), "a bzip2 archive"},
    {0, std::string_view("\xfd" "7zXZ", 5), "an xz archive"},
    {0, std::string_view("7z\xbc\xaf\x27\x1c", 6), "a 7-Zip archive"},
    {0, std::string_view("Rar!\x1a\x07", 6), "a RAR archive"},
    {257, std::string_view("ustar", 5), "a tar archive"},
    {0, std::string_view("%PDF-", 5), "a PDF document"},
    {0, std::string_view("\x89PNG", 4), "a PNG image"},
    {0, std::string_view("\xff\xd8\xff", 3), "a JPEG image"},
    {0, std::string_view("\xd0\xcf\x11\xe0", 4), "a Microsoft Office document"},
    {0, std::string_view("\xcf\xfa\xed\xfe", 4), "a Mach-O binary"},
    {0, std::string_view("\xca\xfe\xba\xbe", 4), "a Mach-O binary or Java class file"},
};

// Why the bytes a file opens with are no source text (a kind of None where
// they are): a compiler's errors about a binary would read as the student's compile error.
SubmissionProblem not_text(const std::string& head) {
  using K = SubmissionProblem::Kind;
  SubmissionProblem why;
  for (const Magic& m : kMagics)
    if (head.size() >= m.offset + m.bytes.size() && head.compare(m.offset, m.bytes.size(), m.bytes) == 0) {
      why.kind = K::LooksLike;
      why.looks_like = m.what;
      return why;
    }
  if (head.compare(0, 2, "\xff\xfe") == 0 || head.compare(0, 2, "\xfe\xff") == 0) {
    why.kind = K::Utf16;
    return why;
  }
  // Source text has no NUL and few other control bytes (tab, newline, form feed and the like aside).
  std::size_t controls = 0;
  for (const char c : head) {
    const auto u = static_cast<unsigned char>(c);
    if (u == 0) {
      why.kind = K::NulBytes;
      return why;
    }
    if (u < 0x20 && std::string_view("\t\n\v\f\r").find(c) == std::string_view::npos) ++controls;
  }
  if (controls * 20 > head.size()) why.kind = K::ControlBytes;
  return why;
}

// `shown` names the file in the problem: by its place in the submission, as
// students read it, never by the TA's folders.
SubmissionProblem check_file(const fs::path& p, const std::string& shown) {
  using K = SubmissionProblem::Kind;
  SubmissionProblem why;
  std::error_code ec;
  std::uintmax_t size = 0;
  if (!fs::is_regular_file(p, ec)) {
    why.kind = K::NotRegularFile;
  } else if (::access(p.c_str(), R_OK) != 0) {
    why.kind = K::Unreadable;
  } else if (size = fs::file_size(p, ec); size == 0 || ec) {
    why.kind = K::Empty;
  } else if (size > kMaxSourceBytes) {
    why.kind = K::TooLarge;
    why.bytes = size;
    why.limit = kMaxSourceBytes;
  } else {
    std::string head(kSniffBytes, '\0');
    std::ifstream in(p, std::ios::binary);
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
    why = not_text(head);
  }
  if (why) why.file = shown;
  return why;
}

// The name a folder is known by to the student: its own, never its path ("" for none).
std::string folder_name(const fs::path& dir) {
  const fs::path name = dir.filename().empty() ? dir.parent_path().filename() : dir.filename();
  return name.string();
}

}  // namespace

LocatedSubmission locate_submission(const std::string& path) {
  std::error_code ec;
  const fs::path p(path);
  if (path.empty() || !fs::exists(fs::symlink_status(p, ec)))
    throw UsageError("submission not found: " + (path.empty() ? std::string("(empty path)") : path));
  LocatedSubmission out;
  if (!fs::is_directory(p, ec)) {
    out.problem = check_file(p, p.filename().string());
    if (!out.problem) out.kernel = p.string();
    return out;
  }
  std::vector<fs::path> found;
  std::size_t seen = 0;
  find_kernels(p, 0, found, seen);
  using K = SubmissionProblem::Kind;
  if (seen > kMaxEntries) {
    out.problem.kind = K::TooManyEntries;
    out.problem.limit = kMaxEntries;
  } else if (found.empty()) {
    out.problem.kind = K::NoKernel;
  } else if (found.size() > 1) {
    std::sort(found.begin(), found.end());
    out.problem.kind = K::SeveralKernels;
    for (const auto& f : found) out.problem.kernels.push_back(f.lexically_relative(p).string());
  } else {
    out.problem = check_file(found[0], found[0].lexically_relative(p).string());
    if (!out.problem) out.kernel = found[0].string();
  }
  if (out.problem) out.problem.folder = folder_name(p);
  return out;
}

SubmissionText read_submission_text(const std::string& kernel) {
  SubmissionText out;
  // O_NONBLOCK: opening a FIFO must not wait for a writer.
  const int fd = ::open(kernel.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  using K = SubmissionProblem::Kind;
  out.problem.file = kernel;
  out.problem.limit = kMaxSourceBytes;
  if (fd < 0) {
    out.problem.kind = errno == ELOOP ? K::IsLink : K::CannotOpen;
    out.problem.error = errno;
    return out;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    out.problem.kind = K::NotRegularFile;
  } else if (static_cast<std::uintmax_t>(st.st_size) > kMaxSourceBytes) {
    out.problem.kind = K::OverLimit;
  } else {
    // One byte past the cap at most: enough to tell a file that grew since fstat.
    char chunk[1 << 16];
    while (out.text.size() <= kMaxSourceBytes) {
      const std::size_t want = std::min(sizeof chunk, static_cast<std::size_t>(kMaxSourceBytes + 1 - out.text.size()));
      const ssize_t got = ::read(fd, chunk, want);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        if (got < 0) {
          out.problem.kind = K::ReadFailed;
          out.problem.error = errno;
        }
        break;
      }
      out.text.append(chunk, static_cast<std::size_t>(got));
    }
    if (!out.problem && out.text.size() > kMaxSourceBytes) out.problem.kind = K::Grew;
  }
  ::close(fd);
  if (out.problem) out.text.clear();
  return out;
}

}  // namespace sg
