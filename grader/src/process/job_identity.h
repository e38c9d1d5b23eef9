// Who untrusted code runs as. When the grader runs as root, every grading
// takes a uid of its own for the whole grading (a slot locked with flock in a
// root-only folder), so that RLIMIT_NPROC, signals and file permissions of one
// submission's processes cannot reach another grading's, in a batch or between
// TAs grading at once. SG_RUNNER_USER names one shared user instead (the TA's
// choice, said in the report); not root: untrusted code runs as the grader's user.
#pragma once
#include <sys/types.h>

#include <memory>
#include <string>

namespace sg {

struct RunAs {
  uid_t uid = 0;  // 0: not chosen here (the default runner user, `nobody`)
  gid_t gid = 0;
  bool set() const { return uid != 0; }
};

struct JobIdentity {
  RunAs run_as;
  std::shared_ptr<const int> slot;  // the locked slot file's descriptor; closed with the last copy
  std::string note;                 // for the report's sandbox line, e.g. "own uid 1900000003"
};

// The first free slot of kJobUidSlots under `lock_dir` (created 0700, refused
// unless owned by root and not a link). Without root, with SG_RUNNER_USER, or
// when no slot can be had, run_as stays unset and note says why.
JobIdentity acquire_job_identity(const std::string& lock_dir = "/run/sgemm-grader");

constexpr uid_t kJobUidBase = 1900000000;  // above systemd's container range (524288-1879048191)
constexpr int kJobUidSlots = 4096;

}  // namespace sg
