#include "io/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <cstdio>
#include <random>
#include <stdexcept>

namespace sg {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what, int err) {
  throw std::runtime_error("cannot write " + path + ": " + what + (err ? std::string(": ") + std::strerror(err) : ""));
}

std::string folder_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// A name nobody can predict, so nobody can plant a link there first
// (O_EXCL refuses one anyway).
std::string temp_name(const std::string& path) {
  static thread_local std::mt19937_64 gen{std::random_device{}()};
  char suffix[24];
  std::snprintf(suffix, sizeof suffix, ".%016llx", static_cast<unsigned long long>(gen()));
  return path + suffix + ".tmp";
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& text, unsigned mode) {
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 8 && fd < 0; ++attempt) {
    tmp = temp_name(path);
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0 && errno != EEXIST) fail(path, "creating " + tmp, errno);
  }
  if (fd < 0) fail(path, "no free temporary name beside it", EEXIST);
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t w = ::write(fd, text.data() + done, text.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      const int err = w < 0 ? errno : EIO;
      ::close(fd);
      ::unlink(tmp.c_str());
      fail(path, "writing", err);
    }
    done += static_cast<std::size_t>(w);
  }
  // The umask may have narrowed `mode`; reports are meant to be readable as asked.
  const bool ok = ::fchmod(fd, mode) == 0 && ::fsync(fd) == 0;
  const int err = errno;
  ::close(fd);
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
    const int why = ok ? errno : err;
    ::unlink(tmp.c_str());
    fail(path, ok ? "renaming into place" : "syncing", why);
  }
  // The rename itself survives a crash once the folder is synced too.
  const int dir = ::open(folder_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

}  // namespace sg
