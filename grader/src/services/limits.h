// A grading's limits, in one place: what one case may take, how long a
// whole grading may take before its watchdog (and a batch) gives up, what it
// may write, and the machine's own resource failures.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

#include "model/result.h"
#include "model/suite.h"
#include "services/disk_quota.h"

namespace sg {

// Wall time one run of a case may take: the suite's timeout_s is a GPU time;
// the CPU backend adds time in proportion to the case's work.
double case_time_limit(const Case& c, BackendKind backend);

// A case's limit once an earlier case of the same grading has hung (timed
// out with no block completing): at most 3 s plus the case's work at 1
// GFLOP/s on a GPU, at the CPU backend's floor rate on the CPU, never more
// than case_time_limit. On a GPU a case holds the shared GPU while it runs
// and every other grading's timing waits behind a hang, so a kernel known to
// hang should not hold it for the suite's full limit case after case (a
// kernel that completes finishes any case of a suite in milliseconds there,
// even a naive one); on the CPU backend (e.g.
// Gradescope) it spares the grading's time. A kernel that never hangs keeps
// its full limits, and a CPU case whose blocks keep completing still gets
// its extensions.
double case_time_limit_after_hang(const Case& c, BackendKind backend);

// The CPU backend runs blocks a few at a time: a legal grid far larger than C
// needs may take several times a case's limit. While its blocks keep
// completing a case gets more time (services/reply_wait.h): up to this
// factor times its limit, and this many seconds in all per grading (a hang
// completes no block and gets none). Sized at about twice what the slowest
// honest sample took under make test's load on the slowest 2-core machine
// seen (a square grid sized by max(m, n, k): more than 161 s at a 10 s
// limit, about 250 s of extensions a grading); the figures: grader/bench/RESULTS.md.
constexpr double kSlowGridLimitFactor = 32;
constexpr double kSlowGridBudgetS = 480;

// The one watchdog rule, used by grade itself and by grade batch. A grading
// may take its builds and start-up (600 s), every case twice (a failing case
// runs again; the CPU backend's limit, the larger one), the CPU backend's
// extensions for slow grids (kSlowGridBudgetS) and every check;
// under grade batch on a GPU (`shares_gpu`) four times that, since waiting
// for the shared GPU lock counts too. Past it grade stops itself (exit 3).
// SG_GRADE_WATCHDOG_S, when set to seconds > 0, replaces the rule (tests).
double grading_watchdog_s(const Suite& s, bool shares_gpu);

// How long grade batch lets one grading run before killing its worker: its
// own watchdog plus this grace, so the batch acts only when the watchdog failed.
constexpr double kBatchGraceS = 300;
double batch_time_limit_s(const Suite& s, bool shares_gpu);

// The machine's own resource failure in a build's log ("No space left on
// device", "Disk quota exceeded", "Too many open files", from the compiler,
// assembler or linker writing their outputs, or a compiler the grader could
// not start for its own descriptor limit): the grader's failure, never
// the student's compile error. The words as the failing tool said them, or ""
// when there is none; a student's own `#error` line with those words does
// not count.
std::string grader_resource_failure(const std::string& build_log);

// The machine's own resource failure while running (the grader out of
// memory, descriptors or processes; a full disk under a folder with no quota
// of its own): never the student's verdict. grade() grades once more, then
// records an internal error that names it (pipeline/grade.cpp).
// what(): the cause as reports name it (no folder of the grading machine's);
// `detail`: the grader's own words in full, for the grade log.
struct MachineFailure : std::runtime_error {
  explicit MachineFailure(const std::string& what, std::string detail = "")
      : std::runtime_error(what), detail(std::move(detail)) {}
  std::string detail;
};
// Throws MachineFailure when `what` could not be started (`spawn_error`) for
// the grader's own lack of resources (machine_resource_error, process/process.h).
void throw_if_machine_failure(const std::string& what, const std::string& spawn_error);
// Throws MachineFailure when `place` has a quota but no tmpfs of its own and
// the file system under it is full: what `what` failed at, it may have
// failed for the machine's disk.
void throw_if_disk_full(const QuotaPlace& place, const std::string& what);

// What one grading may write (services/disk_quota.h), sized from what an
// honest grading needs (grader/bench/RESULTS.md, "Disk") with a wide margin:
// - the work folder (builds, compiler temporaries, captured output): an
//   honest grading's builds take about 11 MiB (nvcc's kept intermediates
//   most of it) and its output a few KiB; the rest holds the captured output
//   of eight processes at the runner's 64 MiB cap (a submission that prints
//   too much loses only its own output);
// - the runner's scratch folder: an honest runner writes only its timed
//   outputs (every kept sample's C until the judge reads them after the
//   timing, plus one more take of the largest case), and the tools'
//   temporaries (kScratchMarginBytes);
// - the tools' scratch folder (compute-sanitizer's and ncu's runs of the
//   runner): their temporaries, the margin;
// - the baseline runner's: one reference output at a time, and the margin.
// Files: an honest grading makes about 60 in its work folder, two in its
// scratch folder besides its timed outputs.
constexpr long long kWorkQuotaBytes = 512LL << 20;
constexpr long long kScratchMarginBytes = 64LL << 20;
constexpr long long kQuotaFiles = 1024;

struct GradingQuotas {
  DiskQuota work, scratch, tool_scratch, baseline_scratch;
};
// `timed`: whether the backend times the suite's performance cases.
GradingQuotas grading_quotas(const Suite& s, bool timed);

}  // namespace sg
