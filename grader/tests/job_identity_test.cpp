// A uid per grading (process/job_identity.h): concurrent gradings get
// different uids, a finished grading's uid is free again, and a lock folder
// someone else could write to is refused.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "process/job_identity.h"
#include "services/work_dir.h"

namespace fs = std::filesystem;

namespace {

struct TempDir {
  std::string path;
  TempDir() {
    char pattern[] = "/tmp/sg-job-identity-XXXXXX";
    path = ::mkdtemp(pattern);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

}  // namespace

TEST(JobIdentity, ConcurrentGradingsGetTheirOwnUid) {
  if (geteuid() != 0) GTEST_SKIP() << "a uid per grading needs root";
  TempDir dir;
  const std::string locks = dir.path + "/locks";
  sg::JobIdentity first = sg::acquire_job_identity(locks);
  sg::JobIdentity second = sg::acquire_job_identity(locks);
  ASSERT_TRUE(first.run_as.set()) << first.note;
  ASSERT_TRUE(second.run_as.set()) << second.note;
  EXPECT_NE(first.run_as.uid, second.run_as.uid);
  EXPECT_EQ(first.run_as.uid, sg::kJobUidBase);
  EXPECT_EQ(second.run_as.gid, second.run_as.uid);
  EXPECT_NE(first.note.find(std::to_string(first.run_as.uid)), std::string::npos) << first.note;
  struct stat st {};
  ASSERT_EQ(::stat(locks.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  const uid_t freed = first.run_as.uid;
  first = sg::JobIdentity{};  // that grading ended: its slot is free again
  const sg::JobIdentity third = sg::acquire_job_identity(locks);
  EXPECT_EQ(third.run_as.uid, freed);
}

TEST(JobIdentity, RefusesALockFolderOthersCanWrite) {
  if (geteuid() != 0) GTEST_SKIP() << "a uid per grading needs root";
  TempDir dir;
  const std::string open_dir = dir.path + "/open";
  ASSERT_EQ(::mkdir(open_dir.c_str(), 0700), 0);
  ASSERT_EQ(::chmod(open_dir.c_str(), 0777), 0);
  const sg::JobIdentity open = sg::acquire_job_identity(open_dir);
  EXPECT_FALSE(open.run_as.set());
  EXPECT_NE(open.note.find("not a folder only root may write"), std::string::npos) << open.note;
  const std::string link = dir.path + "/link";
  ASSERT_EQ(::symlink(open_dir.c_str(), link.c_str()), 0);
  const sg::JobIdentity linked = sg::acquire_job_identity(link);
  EXPECT_FALSE(linked.run_as.set()) << linked.note;
}

TEST(JobIdentity, SharedRunnerUserIsSaid) {
  ::setenv("SG_RUNNER_USER", "nobody", 1);
  const sg::JobIdentity id = sg::acquire_job_identity("/nonexistent/never-used");
  ::unsetenv("SG_RUNNER_USER");
  EXPECT_FALSE(id.run_as.set());
  EXPECT_NE(id.note.find("SG_RUNNER_USER nobody, shared by every grading"), std::string::npos) << id.note;
}

// A grading's work folders are root's and its own group's, 0770 (logs/ root's alone):
// another grading's code, sandboxed or not, can neither list nor plant in
// them (issue 33: without bubblewrap, a runner read a neighbour's kernel.cu
// and planted files in its scratch).
TEST(JobIdentity, AGradingsFoldersAreItsUidsAlone) {
  if (geteuid() != 0) GTEST_SKIP() << "a uid per grading needs root";
  TempDir dir;
  ::chmod(dir.path.c_str(), 0755);
  const sg::RunAs owner{sg::kJobUidBase + sg::kJobUidSlots - 1, sg::kJobUidBase + sg::kJobUidSlots - 1};
  std::string path;
  {
    sg::WorkDir work(dir.path, true, owner);
    path = work.path();
    for (const char* sub : {"", "/build", "/baseline", "/scratch", "/tool-scratch", "/baseline-scratch", "/logs"}) {
      struct stat st {};
      ASSERT_EQ(::stat((path + sub).c_str(), &st), 0) << sub;
      const bool logs = std::string(sub) == "/logs";
      EXPECT_EQ(st.st_mode & 0777, logs ? 0700u : 0770u) << path + sub;
      EXPECT_EQ(st.st_uid, 0u) << path + sub;
      if (!logs) {
        EXPECT_EQ(st.st_gid, owner.gid) << path + sub;
      }
    }
    // Another grading's uid, in a child: no entry at all.
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      const uid_t other = owner.uid - 1;
      if (::setresgid(other, other, other) != 0 || ::setresuid(other, other, other) != 0) ::_exit(2);
      const bool planted = ::access((path + "/scratch").c_str(), F_OK) == 0 ||
                           ::mkdir((path + "/scratch/planted").c_str(), 0777) == 0 ||
                           ::access((path + "/build").c_str(), R_OK | X_OK) == 0;
      ::_exit(planted ? 1 : 0);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "another uid reached the folders: " << status;
  }
  std::error_code ec;
  fs::remove_all(path, ec);
}
