#include "services/work_dir.h"

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

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

WorkDir::WorkDir(const std::string& root, bool keep, RunAs owner) : keep_(keep) {
  std::string base = root;
  if (base.empty()) base = std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp";
  if (::geteuid() == 0 && base != "/tmp" && !others_can_reach(base)) {
    note_ = "work folder under /tmp: the runner's user cannot reach " + base;
    base = "/tmp";
  }
  std::string tmpl = base + "/sgemm-grade-XXXXXX";
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("cannot create a work folder under " + base);
  path_ = tmpl;
  for (const char* s : {"build", "logs", "scratch", "baseline-scratch"}) fs::create_directories(path_ + "/" + s);
  ::chmod((path_ + "/logs").c_str(), 0700);
  if (::geteuid() == 0 && owner.set()) {
    // The grading's own group: its folders are root's and its alone. Root
    // stays the owner because the judge's sandboxed compilers run as root in
    // a user namespace, where root has no power over other users' folders.
    for (const char* s : {"", "/build", "/scratch", "/baseline-scratch"}) {
      const std::string dir = path_ + s;
      if (::chown(dir.c_str(), 0, owner.gid) != 0 || ::chmod(dir.c_str(), 0770) != 0) {
        std::error_code ec;
        fs::remove_all(path_, ec);  // no destructor runs for a constructor that throws
        throw std::runtime_error("cannot give the work folder " + dir + " to group " + std::to_string(owner.gid));
      }
    }
    return;
  }
  ::chmod(path_.c_str(), 0711);  // the unprivileged runner may enter, not list
  ::chmod((path_ + "/build").c_str(), 0755);
  // The runners' only writable places; given to the runner user when privileges are dropped.
  ::chmod((path_ + "/scratch").c_str(), 0777);
  ::chmod((path_ + "/baseline-scratch").c_str(), 0777);
}

std::string WorkDir::out_of_space() const {
  struct statvfs fs {};
  if (::statvfs(path_.c_str(), &fs) != 0) return "";
  const unsigned long long free_bytes = static_cast<unsigned long long>(fs.f_bavail) * fs.f_frsize;
  if (fs.f_files > 0 && fs.f_favail == 0) return "no inode free in the work folder's file system";
  if (free_bytes < (1ull << 20))
    return "No space left on device (" + std::to_string(free_bytes / 1024) + " KiB free in the work folder's file system)";
  return "";
}

WorkDir::~WorkDir() {
  if (keep_) return;
  std::error_code ec;
  fs::remove_all(path_, ec);
}

}  // namespace sg
