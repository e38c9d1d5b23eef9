#include "process/job_identity.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace sg {

JobIdentity acquire_job_identity(const std::string& lock_dir) {
  JobIdentity id;
  if (const char* user = std::getenv("SG_RUNNER_USER"); user && *user) {
    id.note = std::string("runs as SG_RUNNER_USER ") + user + ", shared by every grading";
    return id;
  }
  if (geteuid() != 0) {
    id.note = "runs as the grader's own user (not root: no uid of its own)";
    return id;
  }
  const auto shared = [&id](const std::string& why) {
    id.note = "runs as nobody, shared by every grading (" + why + ")";
    return id;
  };
  if (::mkdir(lock_dir.c_str(), 0700) != 0 && errno != EEXIST) return shared("cannot create " + lock_dir + ": " + std::strerror(errno));
  struct stat st {};
  if (::lstat(lock_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022) != 0)
    return shared(lock_dir + " is not a folder only root may write");
  for (int slot = 0; slot < kJobUidSlots; ++slot) {
    const std::string path = lock_dir + "/slot-" + std::to_string(slot);
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return shared("cannot open " + path + ": " + std::strerror(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd);
      continue;  // another grading holds it
    }
    id.slot = std::shared_ptr<const int>(new int(fd), [](const int* p) {
      ::close(*p);
      delete p;
    });
    id.run_as.uid = kJobUidBase + static_cast<uid_t>(slot);
    id.run_as.gid = kJobUidBase + static_cast<gid_t>(slot);
    id.note = "runs as uid " + std::to_string(id.run_as.uid) + ", this grading's own";
    return id;
  }
  return shared("all " + std::to_string(kJobUidSlots) + " uid slots are taken");
}

}  // namespace sg
