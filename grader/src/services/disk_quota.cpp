#include "services/disk_quota.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

namespace sg {
namespace {

// Less than this free is full: a write of a grading's size would fail.
constexpr unsigned long long kFullBelowBytes = 1ull << 20;

struct Use {
  unsigned long long bytes = 0;
  long long files = 0;
};

// "" or why a file system cannot take a grading's writes: less than 1 MiB or no inode free.
std::string full_reason(const struct statvfs& fs) {
  const unsigned long long free_bytes = static_cast<unsigned long long>(fs.f_bavail) * fs.f_frsize;
  if (fs.f_files > 0 && fs.f_favail == 0) return "no inode free";
  if (free_bytes < kFullBelowBytes)
    return "No space left on device (" + std::to_string(free_bytes / 1024) + " KiB free)";
  return "";
}

// Adds what the folder open at `fd` holds to `use` (allocated blocks: a
// sparse file costs what it stores), stopping once `use.files` passes
// `max_files`. Takes ownership of `fd`.
void add_folder(int fd, Use& use, long long max_files) {
  DIR* d = ::fdopendir(fd);
  if (!d) {
    ::close(fd);
    return;
  }
  std::vector<std::string> folders;
  while (const dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    if (++use.files > max_files) break;
    struct stat st {};
    if (::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    use.bytes += static_cast<unsigned long long>(st.st_blocks) * 512;
    if (S_ISDIR(st.st_mode)) folders.emplace_back(e->d_name);
  }
  for (const std::string& name : folders) {
    if (use.files > max_files) break;
    const int sub = ::openat(::dirfd(d), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub >= 0) add_folder(sub, use, max_files);
  }
  ::closedir(d);
}

void empty_at(int fd) {
  DIR* d = ::fdopendir(fd);
  if (!d) {
    ::close(fd);
    return;
  }
  std::vector<std::string> names;
  while (const dirent* e = ::readdir(d))
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) names.emplace_back(e->d_name);
  for (const std::string& name : names) {
    if (::unlinkat(::dirfd(d), name.c_str(), 0) == 0) continue;
    const int sub = ::openat(::dirfd(d), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub < 0) continue;
    empty_at(sub);
    ::unlinkat(::dirfd(d), name.c_str(), AT_REMOVEDIR);
  }
  ::closedir(d);
}

}  // namespace

std::optional<QuotaOverrun> over_quota(const QuotaPlace& place) {
  if (!place.quota.set()) return std::nullopt;
  const QuotaOverrun over{place.name, place.quota};
  if (place.mounted) {
    struct statvfs fs {};
    if (::statvfs(place.dir.c_str(), &fs) != 0) return std::nullopt;
    if (full_reason(fs).empty()) return std::nullopt;  // a tmpfs quota always counts its inodes
    return over;
  }
  if (!place.walk) return std::nullopt;
  const int fd = ::open(place.dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  Use use;
  use.files = 1;  // the folder itself, as a tmpfs counts it
  add_folder(fd, use, place.quota.files);
  const bool too_much = use.bytes + kFullBelowBytes > static_cast<unsigned long long>(place.quota.bytes) ||
                        use.files >= place.quota.files;
  if (!too_much) return std::nullopt;
  return over;
}

std::string file_system_full(const std::string& dir) {
  struct statvfs fs {};
  if (::statvfs(dir.c_str(), &fs) != 0) return "";
  return full_reason(fs);
}

void empty_folder(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) empty_at(fd);
}

}  // namespace sg
