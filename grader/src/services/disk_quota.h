// What one grading may write: each of its writable folders has a quota of
// bytes and files (the sizes: services/limits.h). Where the grader may mount
// (process/mount_namespace.h) the folder is a tmpfs of that size, so writes
// past it fail there and nowhere else; elsewhere the runner's scratch folder
// is measured after each request instead (a verdict, not a wall). Either way
// a full quota is the submission's own doing, never the machine's failure.
#pragma once
#include <optional>
#include <string>

namespace sg {

struct DiskQuota {
  long long bytes = 0;  // 0: no quota
  long long files = 0;  // files and folders, the folder itself included
  bool set() const { return bytes > 0; }
};

// A folder with its quota, as a grading's checks see it.
struct QuotaPlace {
  std::string dir;
  std::string name;  // as sentences name it: "scratch folder"
  DiskQuota quota;
  bool mounted = false;  // a tmpfs of its own; else measured by walking it (when `walk`)
  bool walk = false;
};

// A place found past its quota, as facts: which folder (its name, as
// sentences name it) and its quota (words/case_report.h says them).
struct QuotaOverrun {
  std::string folder;  // "scratch folder"
  DiskQuota quota;
};

// Nothing while the place is within its quota (or has none); else which
// quota it is past. A mounted place is past it when less than 1 MiB or no
// inode is left; a walked one when it holds more (allocated blocks, no link
// followed, the walk stopping at the quota's file count).
std::optional<QuotaOverrun> over_quota(const QuotaPlace& place);

// "" or why the file system under `dir` cannot take a grading's writes (less
// than 1 MiB or no inode free; no path, for reports): the machine's failure
// where `dir` has no quota of its own.
std::string file_system_full(const std::string& dir);

// Removes everything in `dir`, keeping `dir`; never follows a link.
void empty_folder(const std::string& dir);

}  // namespace sg
