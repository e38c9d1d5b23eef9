#include "process/mount_namespace.h"

#include <sched.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace sg {

PrivateMounts enter_private_mounts(const std::string& off) {
  PrivateMounts p;
  if (!off.empty() && off != "0") {
    p.why_not = "turned off by SG_NO_DISK_QUOTA";
    return p;
  }
  if (::geteuid() != 0) {
    p.why_not = "the grader is not root";
    return p;
  }
  if (::unshare(CLONE_NEWNS) != 0) {
    p.why_not = std::string("no mount namespace of its own (") + std::strerror(errno) + ")";
    return p;
  }
  // Private from the root down: this process's mounts reach no other
  // namespace, and the host's later mounts do not come in.
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    p.why_not = std::string("its mounts could not be made private (") + std::strerror(errno) + ")";
    return p;
  }
  p.ok = true;
  return p;
}

bool mount_quota(const std::string& dir, long long bytes, long long files, std::string& error) {
  // nosuid, nodev: nothing planted in a quota folder gains privileges.
  const std::string options =
      "size=" + std::to_string(bytes) + ",nr_inodes=" + std::to_string(files) + ",mode=0700";
  if (::mount("sg-quota", dir.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, options.c_str()) == 0) return true;
  error = "cannot mount a tmpfs quota on " + dir + ": " + std::strerror(errno);
  return false;
}

void unmount_quota(const std::string& dir) { ::umount2(dir.c_str(), MNT_DETACH); }

}  // namespace sg
