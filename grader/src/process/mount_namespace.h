// A grade process's own mount namespace, where each grading's writable
// folders become size-limited tmpfs mounts (services/work_dir.h): a quota per
// folder that the kernel enforces, sandbox or not, and that vanishes once the
// process and what it started have ended, however they end (a kill -9 leaves
// no mount behind on the host).
#pragma once
#include <string>

namespace sg {

// Whether this process may mount its gradings' quotas.
struct PrivateMounts {
  bool ok = false;
  std::string why_not;  // for the report when !ok, e.g. "not root", "mounts refused (no CAP_SYS_ADMIN)"
};

// Moves the calling process into a mount namespace of its own, whose mounts
// propagate nowhere. Call before any thread starts: a namespace is per
// thread, and only threads started afterwards share it. Needs root with
// CAP_SYS_ADMIN (refused in most containers, e.g. Gradescope's); `off` (the
// text of SG_NO_DISK_QUOTA, "" when unset or "0") turns it off and says so.
PrivateMounts enter_private_mounts(const std::string& off);

// A tmpfs of at most `bytes` and `files` inodes over `dir` (mode 0700, root's;
// the caller sets owner and mode afterwards). False with `error` on failure.
bool mount_quota(const std::string& dir, long long bytes, long long files, std::string& error);

// Detaches the mount at `dir` and everything under it (a lazy unmount: files
// still open elsewhere keep their memory until closed).
void unmount_quota(const std::string& dir);

}  // namespace sg
