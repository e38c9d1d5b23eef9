// The private work folder of one grading: build/ (the submission's copy and
// what is built from it), baseline/ (the grader's baseline runner, copied
// before the submission builds, out of the compiler's folder), logs/ (the
// judge's own captures), scratch/ (the runner's only writable place),
// tool-scratch/ (the same for the runner's runs under compute-sanitizer and
// ncu, which may run beside the judge reading scratch/) and baseline-scratch/
// (the grader's baseline runner's, which no student process can reach inside
// the sandbox). Removed afterwards unless kept for debugging.
// With a uid of the grading's own (process/job_identity.h) every folder is
// root's, those but logs/ with the grading's group and mode 0770, logs/ 0700:
// no other grading's code can read, plant or delete anything in them,
// sandbox or not (the judge reads as root).
// Each has a quota (give_quotas): where the grader may mount, the folder is
// a tmpfs of its quota's size, and the three scratch folders tmpfs of their
// own inside it, so that no grading can fill the disk another uses;
// elsewhere scratch/ and tool-scratch/ are measured after each run instead.
#pragma once
#include <string>

#include "process/job_identity.h"
#include "process/mount_namespace.h"
#include "services/limits.h"

namespace sg {

class WorkDir {
 public:
  // Under `root`, or TMPDIR, or /tmp. Throws std::runtime_error when it cannot be made.
  // `owner`: the grading's own uid, when it has one. `mounts`: whether quotas may be mounted.
  WorkDir(const std::string& root, bool keep, RunAs owner = {}, PrivateMounts mounts = {});
  ~WorkDir();
  WorkDir(const WorkDir&) = delete;
  WorkDir& operator=(const WorkDir&) = delete;

  const std::string& path() const { return path_; }
  std::string sub(const std::string& s) const { return path_ + "/" + s; }
  // Before anything is written: the folder's quotas, mounted where it may
  // be (its folders are made again inside), else kept to measure scratch/.
  // Throws std::runtime_error when a mount fails after the first succeeded.
  void give_quotas(const GradingQuotas& q);
  // A quota'd place: "" (the whole folder), "scratch", "tool-scratch" or "baseline-scratch".
  QuotaPlace place(const std::string& sub) const;
  // How what a grading writes is bounded (words/grading_log says it on the
  // report's sandbox line): its quotas when mounted, else why there are none.
  bool quotas_mounted() const { return mounted_; }
  const GradingQuotas& quotas() const { return quotas_; }
  std::string why_no_quotas() const;
  // Why the folder's file system cannot take a build's output (under 1 MiB
  // or no inode free), or "": the machine's failure where the folder has no
  // quota of its own (with one, a full folder is the submission's doing).
  std::string out_of_space() const;
  // Set when the folder asked for could not be used (e.g. TMPDIR under /root,
  // which the unprivileged runner cannot enter): that folder (the work went under /tmp).
  const std::string& unreachable_root() const { return unreachable_root_; }

 private:
  void make_folders(bool inside_quota);
  const DiskQuota& quota_of(const std::string& scratch) const;  // one of the three scratch folders
  void give_to_owner(const std::string& dir, unsigned mode);

  std::string path_;
  std::string unreachable_root_;
  bool keep_;
  RunAs owner_;
  PrivateMounts mounts_;
  bool mounted_ = false;
  GradingQuotas quotas_;
};

}  // namespace sg
