// Turning whatever a submission printed into bounded text that is valid
// UTF-8 and free of control characters (the one cleaner, io/clean_text.h),
// so that JSON, XML, Markdown and a terminal can all carry it as is.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>

#include "io/clean_text.h"
#include "process/capped_read.h"
#include "process/fd.h"
#include "process/process.h"

namespace sg {

namespace detail {

CappedRead read_capped_fd(int fd, std::size_t cap) {
  CappedRead out;
  struct stat st {};
  if (fstat(fd, &st) != 0) return out;
  out.total_bytes = static_cast<unsigned long long>(std::max<off_t>(0, st.st_size));
  std::string bytes(static_cast<std::size_t>(std::min<unsigned long long>(cap, out.total_bytes)), '\0');
  std::size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = pread(fd, &bytes[got], bytes.size() - got, static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  bytes.resize(got);
  out.truncated = out.total_bytes > got;
  if (out.truncated) bytes.resize(got - cut_sequence_tail(bytes));
  out.text = clean_text(bytes);
  return out;
}

}  // namespace detail

std::string read_capped_text(const std::string& path, std::size_t cap) {
  // O_NOFOLLOW and the regular-file check: never read what a planted link
  // or a FIFO would hand over instead of the captured output.
  Fd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  struct stat st {};
  if (!fd || fstat(fd.get(), &st) != 0) return "[output unavailable: " + path + ": " + std::strerror(errno) + "]";
  if (!S_ISREG(st.st_mode)) return "[output unavailable: " + path + " is not a regular file]";
  detail::CappedRead read = detail::read_capped_fd(fd.get(), cap);
  if (read.truncated) {
    if (!read.text.empty() && read.text.back() != '\n') read.text += '\n';
    read.text += "[output truncated: " + std::to_string(read.total_bytes) + " bytes in total]";
  }
  return read.text;
}

}  // namespace sg
