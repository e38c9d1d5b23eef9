// What one grading may write (services/disk_quota.h, services/limits.h):
// a folder past its quota is found, whether it is a tmpfs of its own or a
// folder measured by walking it; emptying it follows no link; a runner past
// its scratch folder's quota fails its request with that verdict and leaves
// nothing behind; and a runner that cannot start for the grader's own lack
// of disk is the machine's failure, not the submission's verdict (issue 33).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "process/mount_namespace.h"
#include "process/process.h"
#include "services/disk_quota.h"
#include "services/limits.h"
#include "services/runner_session.h"
#include "services/work_dir.h"
#include "suite/suite_loader.h"
#include "words/case_report.h"

namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    char pattern[] = "/tmp/sg-disk-quota-XXXXXX";
    path = ::mkdtemp(pattern);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

void write_bytes(const fs::path& file, std::size_t bytes) {
  std::ofstream out(file, std::ios::binary);
  const std::string chunk(1 << 16, 'x');
  for (std::size_t done = 0; done < bytes && out; done += chunk.size()) out << chunk;
}

bool mounts_allowed() { return geteuid() == 0 && std::system("unshare -m true >/dev/null 2>&1") == 0; }

// A mounted quota, unmounted at the end of the scope.
struct Mounted {
  fs::path dir;
  bool ok = false;
  Mounted(const fs::path& d, long long bytes, long long files) : dir(d) {
    std::string error;
    ok = sg::mount_quota(dir.string(), bytes, files, error);
  }
  ~Mounted() {
    if (ok) sg::unmount_quota(dir.string());
  }
};

}  // namespace

TEST(DiskQuota, AWalkedFolderIsPastItsQuotaByBytesOrByFiles) {
  TempDir t;
  sg::QuotaPlace p{t.path.string(), "scratch folder", {4 << 20, 16}, false, true};
  EXPECT_FALSE(sg::over_quota(p));
  write_bytes(t.path / "a.bin", 2 << 20);
  EXPECT_FALSE(sg::over_quota(p)) << "2 MiB of 4";
  fs::create_directories(t.path / "deep");
  write_bytes(t.path / "deep" / "b.bin", 3 << 20);
  const std::optional<sg::QuotaOverrun> over = sg::over_quota(p);
  ASSERT_TRUE(over.has_value()) << "5 MiB of 4, one folder down";
  EXPECT_EQ(over->folder, "scratch folder");
  EXPECT_EQ(over->quota.bytes, 4 << 20);
  EXPECT_EQ(sg::quota_text(*over), "its scratch folder's quota (4 MiB or 16 files)");
  sg::empty_folder(t.path.string());
  EXPECT_TRUE(fs::is_empty(t.path));
  for (int i = 0; i < 20; ++i) std::ofstream(t.path / ("f" + std::to_string(i)));
  EXPECT_TRUE(sg::over_quota(p)) << "20 empty files of 16";
  // Unset, or not walked: never past.
  EXPECT_FALSE(sg::over_quota({t.path.string(), "scratch folder", {}, false, true}));
  EXPECT_FALSE(sg::over_quota({t.path.string(), "scratch folder", {4 << 20, 16}, false, false}));
}

TEST(DiskQuota, AMountedQuotaStopsWritesThereAndIsFoundFull) {
  if (!mounts_allowed()) GTEST_SKIP() << "mounting a tmpfs needs root where mounts are allowed";
  TempDir t;
  const Mounted m(t.path, 4 << 20, 64);
  ASSERT_TRUE(m.ok);
  const sg::QuotaPlace p{t.path.string(), "scratch folder", {4 << 20, 64}, true, false};
  EXPECT_FALSE(sg::over_quota(p));
  write_bytes(t.path / "big.bin", 16 << 20);  // stops at the quota
  EXPECT_LE(fs::file_size(t.path / "big.bin"), std::uintmax_t{4} << 20);
  EXPECT_TRUE(sg::over_quota(p));
  EXPECT_NE(sg::file_system_full(t.path.string()), "");
  sg::empty_folder(t.path.string());
  EXPECT_FALSE(sg::over_quota(p));
}

TEST(DiskQuota, EmptyingAFolderFollowsNoLink) {
  TempDir t;
  const fs::path inside = t.path / "scratch", outside = t.path / "elsewhere";
  fs::create_directories(inside / "sub");
  fs::create_directories(outside);
  std::ofstream(outside / "keep.txt") << "not the grading's";
  std::ofstream(inside / "sub" / "x.bin") << "x";
  fs::create_directory_symlink(outside, inside / "link");
  fs::create_directory_symlink(outside, inside / "sub" / "link");
  sg::empty_folder(inside.string());
  EXPECT_TRUE(fs::is_empty(inside));
  EXPECT_TRUE(fs::exists(outside / "keep.txt"));
}

// The grader's own calls out of memory, descriptors, disk or processes are
// the machine's; a step the child takes as its grading's uid is not.
TEST(DiskQuota, OnlyTheGradersOwnStartFailuresAreTheMachines) {
  EXPECT_NE(sg::machine_resource_error("cannot start /w/runner: pipe2 for the request pipe: Too many open files"), "");
  EXPECT_NE(sg::machine_resource_error("cannot start /w/runner: memfd_create for its output: Cannot allocate memory"),
            "");
  EXPECT_NE(sg::machine_resource_error("cannot start /w/runner: cannot open output file /w/logs/runner-1.txt: "
                                       "No space left on device"),
            "");
  EXPECT_NE(sg::machine_resource_error("cannot start /w/runner: fork: Resource temporarily unavailable"), "");
  EXPECT_NE(sg::machine_resource_error("cannot start /w/runner: setting up fds 0-4 (dup2): Invalid argument"), "");
  EXPECT_EQ(sg::machine_resource_error("cannot start /w/runner: setresuid: Resource temporarily unavailable"), "");
  EXPECT_EQ(sg::machine_resource_error("cannot start /w/runner: execve: No such file or directory"), "");
}

// The scratch folder holds every kept timed output until the judge reads it,
// and one more take of the largest case: on the default suite 15 samples of
// 2048x2048 and 11 of 4096x2048, then 11 more. The CPU backend times nothing.
TEST(DiskQuota, AScratchQuotaHoldsAnHonestGradingsTimedOutputs) {
  const sg::Suite s = sg::load_suite_file(std::string(SG_SOURCE_ROOT) + "/testcases/default.yaml");
  const long long mib = 1 << 20;
  const sg::GradingQuotas timed = sg::grading_quotas(s, true);
  EXPECT_EQ(timed.scratch.bytes, sg::kScratchMarginBytes + (15 * 16 + 11 * 32 + 11 * 32) * mib);
  EXPECT_EQ(timed.baseline_scratch.bytes, sg::kScratchMarginBytes + 32 * mib);
  EXPECT_EQ(timed.tool_scratch.bytes, sg::kScratchMarginBytes);  // the tools write no timed output
  EXPECT_GE(timed.scratch.files, sg::kQuotaFiles + 2 * (15 + 11));
  const sg::GradingQuotas untimed = sg::grading_quotas(s, false);
  EXPECT_EQ(untimed.scratch.bytes, sg::kScratchMarginBytes);
  EXPECT_EQ(untimed.work.bytes, sg::kWorkQuotaBytes);
}

namespace {

// A stand-in runner (a shell script) in `dir`/scratch whose first act is `then`.
sg::RunnerConfig script_runner(const fs::path& dir, const std::string& then) {
  fs::create_directories(dir / "scratch");
  fs::create_directories(dir / "logs");
  const fs::path script = dir / "runner.sh";
  std::ofstream(script) << then << "\n";
  sg::RunnerConfig rc;
  rc.argv = {"/bin/sh", script.string()};
  rc.env = {"PATH=/usr/bin:/bin"};
  rc.scratch_dir = (dir / "scratch").string();
  rc.log_dir = (dir / "logs").string();
  rc.drop_privileges = false;
  rc.pid_namespace = false;
  return rc;
}

}  // namespace

// The runner writes 6 MiB into a scratch folder of 4 and ends: the request
// fails with the quota's sentence (not "crashed"), and the folder is empty
// for the next runner.
// compute-sanitizer's and ncu's runs of the runner write in a folder of
// their own (tool-scratch/, so that a tool running beside the judge's check
// of the timed outputs cannot reach them), with the margin's quota, measured
// like scratch/ where nothing is mounted; to a student it is a scratch folder.
TEST(DiskQuota, TheToolsRunsHaveAScratchFolderAndQuotaOfTheirOwn) {
  TempDir t;
  sg::WorkDir work(t.path.string(), false);
  work.give_quotas(sg::grading_quotas(sg::load_suite_file(std::string(SG_SOURCE_ROOT) + "/testcases/default.yaml"), true));
  const sg::QuotaPlace tools = work.place("tool-scratch"), runner = work.place("scratch");
  EXPECT_NE(tools.dir, runner.dir);
  EXPECT_TRUE(fs::is_directory(tools.dir)) << tools.dir;
  EXPECT_TRUE(fs::is_directory(work.sub("baseline")));
  EXPECT_EQ(tools.quota.bytes, sg::kScratchMarginBytes);
  EXPECT_LT(tools.quota.bytes, runner.quota.bytes);
  EXPECT_EQ(tools.walk, !tools.mounted);
  EXPECT_EQ(tools.name, "scratch folder");
}

TEST(DiskQuota, ARunnerPastItsScratchQuotaFailsItsRequestAndLeavesNothing) {
  TempDir t;
  sg::RunnerConfig rc = script_runner(t.path, "head -c 6291456 /dev/zero > fill.bin; exit 0");
  rc.scratch_quota = {rc.scratch_dir, "scratch folder", {4 << 20, 64}, false, true};
  sg::RunnerSession session(rc);
  const std::vector<float> a(16, 1.0f), b(16, 1.0f);
  const sg::CaseOutcome out = session.run(4, 4, 4, a, b, 20);
  EXPECT_EQ(out.kind, sg::CaseOutcome::Kind::DiskQuota) << sg::runner_failure(out);
  EXPECT_EQ(out.failure, sg::CaseOutcome::Failure::OverQuota);
  EXPECT_EQ(sg::runner_failure(out),
            "the submission wrote more than its scratch folder's quota (4 MiB or 64 files): a submission may not write "
            "files");
  EXPECT_TRUE(fs::is_empty(rc.scratch_dir));
  // Within its quota, the same failure is the runner's own.
  sg::RunnerConfig small = script_runner(t.path / "small", "head -c 1024 /dev/zero > a.bin; exit 0");
  small.scratch_quota = {small.scratch_dir, "scratch folder", {4 << 20, 64}, false, true};
  sg::RunnerSession fine(small);
  EXPECT_EQ(fine.run(4, 4, 4, a, b, 20).kind, sg::CaseOutcome::Kind::Crashed);
}

// The runner's captured output cannot be created (no inode left where the
// judge keeps it): with no quota of the grading's there, the machine ran
// out, and the session throws MachineFailure (grade() grades again, then
// names an internal error), never a verdict. Where that folder is the
// grading's own quota, full, the submission filled it: a verdict.
TEST(DiskQuota, ARunnerThatCannotStartForWantOfDiskIsTheMachinesFailure) {
  if (!mounts_allowed()) GTEST_SKIP() << "mounting a tmpfs needs root where mounts are allowed";
  TempDir t;
  sg::RunnerConfig rc = script_runner(t.path, "exit 0");
  const Mounted logs(rc.log_dir, 1 << 20, 2);  // the folder and one file
  ASSERT_TRUE(logs.ok);
  std::ofstream(fs::path(rc.log_dir) / "taken");
  rc.scratch_quota = {rc.scratch_dir, "scratch folder", {4 << 20, 64}, false, true};
  const std::vector<float> a(16, 1.0f), b(16, 1.0f);
  {
    sg::RunnerSession session(rc);
    EXPECT_THROW(session.run(4, 4, 4, a, b, 20), sg::MachineFailure);
  }
  rc.work_quota = {rc.log_dir, "work folder", {1 << 20, 2}, true, false};
  sg::RunnerSession session(rc);
  const sg::CaseOutcome out = session.run(4, 4, 4, a, b, 20);
  EXPECT_EQ(out.kind, sg::CaseOutcome::Kind::DiskQuota) << sg::runner_failure(out);
  EXPECT_EQ(out.failure, sg::CaseOutcome::Failure::OutputOverQuota);
  EXPECT_EQ(sg::runner_failure(out),
            "the runner could not be started: the submission's output and files took more than its work folder's "
            "quota (1 MiB or 2 files)");
}

// After compute-sanitizer or ncu ran the runner: a tool the grader could not
// start for its own descriptors is the machine's failure; a scratch folder
// past its quota is the submission's verdict, the folder emptied; a tool
// that merely failed, on a disk with room, is neither.
TEST(DiskQuota, AfterAToolRanTheScratchQuotaAndTheMachinesFailuresAreTold) {
  TempDir t;
  sg::RunnerConfig rc = script_runner(t.path, "exit 0");
  rc.scratch_quota = {rc.scratch_dir, "scratch folder", {4 << 20, 64}, false, true};
  sg::ToolRun failed;
  failed.started = true;
  failed.exit.exited = true;
  failed.exit.code = 10;
  EXPECT_FALSE(sg::check_tool_runs(rc, {failed}, "compute-sanitizer"));
  sg::ToolRun not_started;
  not_started.start_error = "cannot start /x/compute-sanitizer: pipe2 for the reply pipe: Too many open files";
  EXPECT_THROW(sg::check_tool_runs(rc, {failed, not_started}, "compute-sanitizer"), sg::MachineFailure);
  write_bytes(fs::path(rc.scratch_dir) / "fill.bin", 6 << 20);
  const std::optional<sg::QuotaOverrun> over = sg::check_tool_runs(rc, {failed}, "ncu");
  ASSERT_TRUE(over.has_value());
  EXPECT_EQ(sg::quota_verdict(*over),
            "the submission wrote more than its scratch folder's quota (4 MiB or 64 files): a submission may not write "
            "files");
  EXPECT_TRUE(fs::is_empty(rc.scratch_dir));
}
