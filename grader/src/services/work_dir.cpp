#include "services/work_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>

namespace fs = std::filesystem;

namespace sg {
namespace {

// Whether a user other than the owner may walk down to `folder`: the
// unprivileged runner (and bubblewrap, binding its folders) must reach the
// work folder; a TMPDIR under /root (0700) would stop every runner from starting.
bool others_can_reach(const std::string& folder) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(folder, ec);
  if (ec) return false;
  for (;;) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0 || !(st.st_mode & S_IXOTH)) return false;
    if (p == p.root_path() || p.parent_path() == p) return true;
    p = p.parent_path();
  }
}

}  // namespace

WorkDir::WorkDir(const std::string& root, bool keep, RunAs owner, PrivateMounts mounts)
    : keep_(keep), owner_(owner), mounts_(std::move(mounts)) {
  std::string base = root;
  if (base.empty()) base = std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp";
  if (::geteuid() == 0 && base != "/tmp" && !others_can_reach(base)) {
    unreachable_root_ = base;
    base = "/tmp";
  }
  std::string tmpl = base + "/sgemm-grade-XXXXXX";
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("cannot create a work folder under " + base);
  path_ = tmpl;
  make_folders(false);
}

// The folder's owner and mode as the class comment says; `mode` is for a
// grading without a uid of its own.
void WorkDir::give_to_owner(const std::string& dir, unsigned mode) {
  if (::geteuid() == 0 && owner_.set()) {
    // The grading's own group: its folders are root's and its alone. Root
    // stays the owner because the judge's sandboxed compilers run as root in
    // a user namespace, where root has no power over other users' folders.
    if (::chown(dir.c_str(), 0, owner_.gid) == 0 && ::chmod(dir.c_str(), 0770) == 0) return;
    std::error_code ec;
    if (mounted_) unmount_quota(path_);
    fs::remove_all(path_, ec);  // a constructor that throws runs no destructor
    throw std::runtime_error("cannot give the work folder " + dir + " to group " + std::to_string(owner_.gid));
  }
  ::chmod(dir.c_str(), mode);
}

void WorkDir::make_folders(bool inside_quota) {
  for (const char* s : {"build", "baseline", "logs", "scratch", "tool-scratch", "baseline-scratch"})
    fs::create_directories(path_ + "/" + s);
  ::chmod((path_ + "/logs").c_str(), 0700);
  give_to_owner(path_, 0711);  // the unprivileged runner may enter, not list
  give_to_owner(path_ + "/build", 0755);
  give_to_owner(path_ + "/baseline", 0755);
  // The runners' only writable places; given to the runner user when privileges are dropped.
  for (const char* s : {"scratch", "tool-scratch", "baseline-scratch"}) {
    const std::string dir = path_ + "/" + s;
    if (inside_quota) {
      std::string error;
      const DiskQuota& q = quota_of(s);
      if (!mount_quota(dir, q.bytes, q.files, error)) throw MachineFailure("a quota could not be mounted", error);
    }
    give_to_owner(dir, 0777);
  }
}

void WorkDir::give_quotas(const GradingQuotas& q) {
  quotas_ = q;
  if (!mounts_.ok || keep_) return;
  std::string error;
  if (!mount_quota(path_, q.work.bytes, q.work.files, error)) {
    mounts_ = {false, error};
    return;
  }
  // The host's folders stay underneath, empty, until the destructor.
  mounted_ = true;
  make_folders(true);
}

const DiskQuota& WorkDir::quota_of(const std::string& scratch) const {
  return scratch == "scratch" ? quotas_.scratch : scratch == "tool-scratch" ? quotas_.tool_scratch : quotas_.baseline_scratch;
}

QuotaPlace WorkDir::place(const std::string& sub) const {
  QuotaPlace p;
  p.dir = sub.empty() ? path_ : path_ + "/" + sub;
  // The tools' runs are the same program as the runner's: to a student, one scratch folder.
  p.name = sub.empty() ? "work folder" : sub == "tool-scratch" ? "scratch folder" : sub + " folder";
  p.quota = sub.empty() ? quotas_.work : quota_of(sub);
  p.mounted = mounted_;
  // The places student code writes, sandbox or not.
  p.walk = !mounted_ && (sub == "scratch" || sub == "tool-scratch");
  return p;
}

std::string WorkDir::why_no_quotas() const {
  if (mounted_) return "";
  return keep_ ? "the work folder is kept (--keep-work)" : mounts_.why_not;
}

std::string WorkDir::out_of_space() const {
  const std::string full = mounted_ ? "" : file_system_full(path_);
  return full.empty() ? "" : full + " in the work folder's file system";
}

WorkDir::~WorkDir() {
  if (keep_) return;
  if (mounted_) unmount_quota(path_);  // the tmpfs and those inside it, with every file
  std::error_code ec;
  fs::remove_all(path_, ec);
}

}  // namespace sg
