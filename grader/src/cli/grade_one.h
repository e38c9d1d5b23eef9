// One grading as `grade` runs it: the suite loaded, the submission graded,
// the reports written and the summary printed, under a watchdog. Called by
// `grade` itself and, once a submission, by a batch's `grade worker`
// (cli/grade_worker.h).
#pragma once
#include "cli/options.h"
#include "process/mount_namespace.h"

namespace sg {

struct BackendKeep;  // backends/backend.h

// What a judge process sets up before any thread starts (a mount namespace
// is per thread): SIGPIPE ignored (a runner that dies mid-write must not kill
// the judge), this process a child subreaper (the runners' orphans come to
// it), and, where it may, a mount namespace of its own for the gradings'
// disk quotas (SG_NO_DISK_QUOTA turns that off).
PrivateMounts prepare_judge_process();

// The process's exit status for this grading: 0 graded (whatever the score),
// 2 usage or suite error, 3 internal error. Progress goes to stderr, the
// summary to stdout. `keep`: a worker's state kept across its gradings (nullptr: none).
int grade_one(CliOptions cli, const PrivateMounts& mounts, BackendKeep* keep);

}  // namespace sg
