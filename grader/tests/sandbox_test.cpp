// Containment of untrusted processes: each test makes a real child misbehave
// (see progs/sandbox_probe.cpp) and checks what the judge sees and what is
// left running afterwards, by looking at /proc.
#include <fcntl.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "process/tool_run.h"
#include "proc_tree.h"
#include "proto/protocol.h"
#include "process/process.h"
#include "process/sandbox.h"

#ifndef SG_SOURCE_ROOT
#error "compile with -DSG_SOURCE_ROOT='\"/path/to/repo\"'"
#endif
#ifndef SG_BUILD_DIR
#error "compile with -DSG_BUILD_DIR='\"/path/to/build\"'"
#endif

namespace {

namespace fs = std::filesystem;
using sg::test::my_descendants;
using sg::test::proc_stat;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// Polls `done` until it holds or timeout_s passes.
template <typename Pred>
bool eventually(Pred done, double timeout_s) {
  const auto start = Clock::now();
  while (!done()) {
    if (seconds_since(start) > timeout_s) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

// The number after `tag` in the probe's output ("grandchild 1234"), or 0.
long number_after(const std::string& text, const std::string& tag) {
  const std::size_t at = text.find(tag + " ");
  return at == std::string::npos ? 0 : std::atol(text.c_str() + at + tag.size() + 1);
}

// Whether this process may create PID namespaces (root with CAP_SYS_ADMIN);
// where it may not, the sandbox falls back to its /proc sweep.
bool pid_namespaces_available() {
  if (geteuid() != 0) return false;
  const pid_t pid = fork();
  if (pid == 0) _exit(unshare(CLONE_NEWPID) == 0 ? 0 : 1);
  int status = 0;
  return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// Kills every descendant until none is left (a runaway chain that beat the
// sandbox must not wreck later tests); false if some survive 10 s of it.
bool kill_everything_left() {
  const auto start = Clock::now();
  for (;;) {
    sg::kill_all_descendants();
    const std::vector<long> left = my_descendants();
    if (left.empty()) return true;
    if (seconds_since(start) > 10) return false;
    for (const long pid : left) kill(static_cast<pid_t>(pid), SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

class Sandbox : public ::testing::Test {
 protected:
  // Builds the probe (when its source is newer), makes a scratch folder and
  // turns this process into a subreaper, as the judge does at start-up.
  static void SetUpTestSuite() {
    try {
      sg::become_subreaper();
    } catch (const std::exception& e) {
      setup_error_ = e.what();
      return;
    }
    const fs::path source = fs::path(SG_SOURCE_ROOT) / "grader/tests/progs/sandbox_probe.cpp";
    const fs::path dir = fs::absolute(SG_BUILD_DIR) / "test_progs";
    std::error_code ec;
    fs::create_directories(dir, ec);
    const fs::path binary = dir / "sandbox_probe";
    if (!fs::exists(binary) || fs::last_write_time(binary) < fs::last_write_time(source)) {
      const std::string log = (dir / "sandbox_probe.log").string();
      const std::string command = "g++ -std=c++17 -O1 -Wall -Wextra -o '" + binary.string() + ".tmp' '" +
                                  source.string() + "' >'" + log + "' 2>&1 && mv '" + binary.string() + ".tmp' '" +
                                  binary.string() + "'";
      if (std::system(command.c_str()) != 0) {
        setup_error_ = "building the probe failed: " + command + "\n" + slurp(log);
        return;
      }
    }
    probe_path_ = binary.string();
    char scratch[] = "/tmp/sg_sandbox_test_XXXXXX";
    if (!mkdtemp(scratch)) {
      setup_error_ = std::string("mkdtemp: ") + std::strerror(errno);
      return;
    }
    // Root-owned and 0755: a dropped runner may enter it but not write in it.
    chmod(scratch, 0755);
    scratch_ = scratch;
  }

  static void TearDownTestSuite() {
    kill_everything_left();
    std::error_code ec;
    if (!scratch_.empty()) fs::remove_all(scratch_, ec);
  }

  void SetUp() override { ASSERT_TRUE(setup_error_.empty()) << setup_error_; }

  void TearDown() override {
    // Nothing a test started may outlive it.
    const std::size_t left = my_descendants().size();
    EXPECT_EQ(left, 0u) << "left-over processes";
    // Whatever happened, the next test starts clean.
    EXPECT_TRUE(kill_everything_left()) << "processes survived the fixture's clean-up";
  }

  static std::string out_path(const std::string& name) { return scratch_ + "/" + name; }

  // Options for running the probe. The containment mechanics are tested
  // without the privilege drop (the probe sits in the build folder, which
  // the runner user may not be able to reach); the drop is tested on system
  // programs in PrivilegeDrop.
  static sg::SpawnOptions probe(const std::vector<std::string>& args, const std::string& output) {
    sg::SpawnOptions o;
    o.argv = {probe_path_};
    o.argv.insert(o.argv.end(), args.begin(), args.end());
    o.env = {"PATH=/usr/bin:/bin"};
    o.workdir = scratch_;
    o.output_file = out_path(output);
    o.drop_privileges = false;
    o.limits.cpu_seconds = 60;
    o.limits.file_bytes = 16 << 20;
    return o;
  }

  static sg::Child start(const sg::SpawnOptions& o) {
    std::string error;
    std::optional<sg::Child> child = sg::Child::spawn(o, error);
    if (!child) throw std::runtime_error("spawn failed: " + error);
    EXPECT_TRUE(error.empty()) << error;
    return std::move(*child);
  }

  inline static std::string setup_error_;
  inline static std::string probe_path_;
  inline static std::string scratch_;
};

TEST_F(Sandbox, ReportsExitCode) {
  sg::Child child = start(probe({"exit", "3"}, "exit.txt"));
  const sg::ExitInfo info = child.wait(10);
  EXPECT_TRUE(info.exited);
  EXPECT_EQ(info.code, 3);
  EXPECT_FALSE(info.timed_out);
  EXPECT_EQ(info.describe(), "exited with code 3");
}

TEST_F(Sandbox, ReportsSegmentationFault) {
  sg::Child child = start(probe({"segv"}, "segv.txt"));
  const sg::ExitInfo info = child.wait(10);
  EXPECT_FALSE(info.exited);
  EXPECT_EQ(info.signal, SIGSEGV);
  EXPECT_NE(info.describe().find("signal " + std::to_string(SIGSEGV)), std::string::npos) << info.describe();
  EXPECT_NE(info.describe().find("SIGSEGV"), std::string::npos) << info.describe();
  EXPECT_NE(info.describe().find("segmentation fault"), std::string::npos) << info.describe();
}

// Inside bubblewrap the judge's child is bwrap, which passes on a death by
// signal N as exit code 128 + N: the report still names the signal.
TEST_F(Sandbox, ReportsSegmentationFaultThroughBubblewrap) {
  const sg::SandboxSupport support = sg::probe_sandbox();
  if (!support.available()) GTEST_SKIP() << "no sandbox here: " << support.why_not;
  sg::SpawnOptions o;
  o.argv = {"/bin/sh", "-c", "kill -SEGV $$"};
  o.env = {"PATH=/usr/bin:/bin"};
  o.workdir = scratch_;
  o.output_file = out_path("bwrap-segv.txt");
  o.drop_privileges = false;
  o.sandbox = sg::runner_sandbox(support, "/bin/sh", scratch_);
  o.sandbox.profile = sg::SandboxProfile::Sanitize;  // the shell's kill runs in-process; any profile will do
  sg::Child child = start(o);
  const sg::ExitInfo info = child.wait(30);
  EXPECT_FALSE(info.exited) << info.describe();
  EXPECT_EQ(info.signal, SIGSEGV) << info.describe();
  EXPECT_NE(info.describe().find("SIGSEGV"), std::string::npos) << info.describe();
}

TEST_F(Sandbox, KillsHangAtDeadline) {
  sg::Child child = start(probe({"hang"}, "hang.txt"));
  const pid_t pid = child.pid();
  const auto start_time = Clock::now();
  const sg::ExitInfo info = child.wait(0.5);
  const double took = seconds_since(start_time);
  EXPECT_TRUE(info.timed_out);
  EXPECT_EQ(info.describe(), "timed out");
  EXPECT_GE(took, 0.5);
  EXPECT_LT(took, 2.5);
  EXPECT_FALSE(proc_stat(pid)) << "the hung child is still there";
}

TEST_F(Sandbox, CpuLimitStopsBusyLoop) {
  sg::SpawnOptions o = probe({"spin"}, "spin.txt");
  o.limits.cpu_seconds = 1;
  sg::Child child = start(o);
  const sg::ExitInfo info = child.wait(15);
  EXPECT_FALSE(info.timed_out);
  EXPECT_EQ(info.signal, SIGXCPU) << info.describe();
}

// The next two tests read pids the probe prints, and need the grandchild to
// outlive the runner, so they run without the PID namespace (the fallback
// that non-root judges and containers without CAP_SYS_ADMIN rely on).
TEST_F(Sandbox, StrayGrandchildHoldingPipesDoesNotBlockJudge) {
  sg::SpawnOptions o = probe({"grandchild"}, "grandchild.txt");
  o.pid_namespace = false;
  sg::Child child = start(o);
  const std::string out = out_path("grandchild.txt");
  ASSERT_TRUE(eventually([&] { return number_after(slurp(out), "grandchild") > 0; }, 5)) << slurp(out);
  const long grandchild = number_after(slurp(out), "grandchild");
  ASSERT_TRUE(proc_stat(grandchild)) << "the grandchild should be alive before the judge cleans up";

  // The grandchild holds the reply pipe open, so no end-of-file comes: the
  // bounded wait must give up on time instead of blocking.
  auto start_time = Clock::now();
  EXPECT_FALSE(child.wait_readable(child.reply_fd(), 0.3));
  EXPECT_GE(seconds_since(start_time), 0.3);
  EXPECT_LT(seconds_since(start_time), 2.0);

  start_time = Clock::now();
  const sg::ExitInfo info = child.wait(10);
  EXPECT_LT(seconds_since(start_time), 2.0) << "waiting for the child must not wait for its grandchild";
  EXPECT_TRUE(info.exited);
  EXPECT_EQ(info.code, 0);
  child.kill_all();
  EXPECT_FALSE(proc_stat(grandchild)) << "grandchild " << grandchild << " survived";
  EXPECT_TRUE(my_descendants().empty());
  // With every writer gone the reply pipe reports end-of-file at once.
  EXPECT_TRUE(child.wait_readable(child.reply_fd(), 0));
  char byte;
  EXPECT_EQ(read(child.reply_fd(), &byte, 1), 0);
}

TEST_F(Sandbox, EscapedGrandchildIsKilledThroughSubreaper) {
  sg::SpawnOptions o = probe({"escape"}, "escape.txt");
  o.pid_namespace = false;
  sg::Child child = start(o);
  const std::string out = out_path("escape.txt");
  ASSERT_TRUE(eventually([&] { return number_after(slurp(out), "escaped") > 0; }, 5)) << slurp(out);
  const long escaped = number_after(slurp(out), "escaped");
  // It really left: another session and process group, and (its parent
  // gone) reparented to us rather than to init.
  ASSERT_TRUE(eventually([&] { auto s = proc_stat(escaped); return s && s->ppid == getpid(); }, 5));
  const auto s = proc_stat(escaped);
  ASSERT_TRUE(s);
  EXPECT_NE(s->pgrp, child.pid());
  EXPECT_NE(s->session, child.pid());
  EXPECT_NE(s->session, proc_stat(getpid())->session);

  const sg::ExitInfo info = child.wait(10);
  EXPECT_TRUE(info.exited);
  EXPECT_EQ(info.code, 0) << info.describe();
  child.kill_all();
  EXPECT_FALSE(proc_stat(escaped)) << "escaped process " << escaped << " survived";
  EXPECT_TRUE(my_descendants().empty());
}

// Under a PID namespace (as root) the runner's end ends everything it
// started: the grandchild holding the reply pipe dies with it, so the pipe
// reports end-of-file at once.
TEST_F(Sandbox, NamespaceEndsStraysWithTheRunner) {
  if (!pid_namespaces_available()) GTEST_SKIP() << "PID namespaces need root with CAP_SYS_ADMIN";
  for (const char* mode : {"grandchild", "escape"}) {
    sg::Child child = start(probe({mode}, std::string(mode) + "_ns.txt"));
    const sg::ExitInfo info = child.wait(10);
    EXPECT_TRUE(info.exited) << mode << ": " << info.describe();
    EXPECT_EQ(info.code, 0) << mode << ": " << info.describe();
    EXPECT_TRUE(child.wait_readable(child.reply_fd(), 2)) << mode << ": a stray still holds the reply pipe";
    char byte;
    EXPECT_EQ(read(child.reply_fd(), &byte, 1), 0) << mode;
    EXPECT_TRUE(my_descendants().empty()) << mode;
  }
}

TEST_F(Sandbox, RunnerRunsInItsOwnPidNamespaceWhenRoot) {
  if (!pid_namespaces_available()) GTEST_SKIP() << "PID namespaces need root with CAP_SYS_ADMIN";
  sg::Child child = start(probe({"pid"}, "pid.txt"));
  EXPECT_EQ(child.wait(10).code, 0);
  // The runner is the first child of the namespace's init.
  EXPECT_EQ(slurp(out_path("pid.txt")), "pid 2 ppid 1\n");

  sg::SpawnOptions o = probe({"pid"}, "pid_plain.txt");
  o.pid_namespace = false;
  sg::Child plain = start(o);
  EXPECT_EQ(plain.wait(10).code, 0);
  EXPECT_EQ(slurp(out_path("pid_plain.txt")),
            "pid " + std::to_string(plain.pid()) + " ppid " + std::to_string(getpid()) + "\n");
}

// Each generation forks the next into a new session and exits: the group
// kill misses it and, without a PID namespace, the sweep has to chase a
// moving target. Run with and without the namespace (root runs both).
class RunawayChain : public Sandbox, public ::testing::WithParamInterface<bool> {
 protected:
  void SetUp() override {
    Sandbox::SetUp();
    if (GetParam() && !pid_namespaces_available()) GTEST_SKIP() << "PID namespaces need root with CAP_SYS_ADMIN";
  }
  sg::SpawnOptions options(const std::string& mode) const {
    sg::SpawnOptions o = probe({mode}, mode + (GetParam() ? "_ns.txt" : "_plain.txt"));
    o.pid_namespace = GetParam();
    return o;
  }
};

TEST_P(RunawayChain, RunnerThatExitsIsCaught) {
  sg::Child child = start(options("runaway"));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  // (Under a namespace the chain is usually gone already; at least the
  // unreaped init is still there.)
  ASSERT_FALSE(my_descendants().empty()) << "the chain should be running";
  const sg::ExitInfo info = child.wait(5);
  EXPECT_TRUE(info.exited) << info.describe();
  EXPECT_TRUE(my_descendants().empty()) << my_descendants().size() << " processes of the chain survived";
}

TEST_P(RunawayChain, RunnerThatHangsIsCaught) {
  // The runner stays alive beside the chain until the deadline kills it.
  sg::Child child = start(options("runaway_hang"));
  const sg::ExitInfo info = child.wait(0.3);
  EXPECT_TRUE(info.timed_out) << info.describe();
  EXPECT_TRUE(my_descendants().empty()) << my_descendants().size() << " processes of the chain survived";
}

INSTANTIATE_TEST_SUITE_P(Sandbox, RunawayChain, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return std::string(info.param ? "PidNamespace" : "ProcSweep");
                         });

TEST_F(Sandbox, OutputFloodIsCappedAndChildExitsNormally) {
  constexpr long long kCap = 1 << 20;
  constexpr long long kFlood = 100LL << 20;
  sg::SpawnOptions o = probe({"flood", std::to_string(kFlood)}, "flood.txt");
  o.limits.file_bytes = kCap;
  sg::Child child = start(o);
  const sg::ExitInfo info = child.wait(60);
  // Exit code 0 from the probe means a write failed with EFBIG instead of
  // the process being killed by SIGXFSZ.
  EXPECT_TRUE(info.exited) << info.describe();
  EXPECT_EQ(info.code, 0) << info.describe();
  EXPECT_EQ(static_cast<long long>(fs::file_size(o.output_file)), kCap);
  const std::string text = sg::read_capped_text(o.output_file, 100);
  EXPECT_EQ(text.substr(0, 100), std::string(100, 'x'));
  EXPECT_NE(text.find("[output truncated: " + std::to_string(kCap) + " bytes in total]"), std::string::npos) << text;
}

TEST_F(Sandbox, EnvironmentIsExactlyTheGivenOne) {
  ASSERT_EQ(setenv("SG_SANDBOX_TEST_SECRET", "must-not-leak", 1), 0);
  sg::SpawnOptions o = probe({"env"}, "env.txt");
  o.env = {"SG_ONE=1", "SG_TWO=two words"};
  sg::Child child = start(o);
  const sg::ExitInfo info = child.wait(10);
  unsetenv("SG_SANDBOX_TEST_SECRET");
  EXPECT_EQ(info.code, 0) << info.describe();
  EXPECT_EQ(slurp(o.output_file), "SG_ONE=1\nSG_TWO=two words\n");
}

TEST_F(Sandbox, OnlyStandardAndProtocolDescriptorsAreInherited) {
  // Descriptors the judge left open without close-on-exec must not leak.
  const int stray_file = open("/dev/null", O_RDONLY);
  int stray_pipe[2];
  ASSERT_GE(stray_file, 0);
  ASSERT_EQ(pipe(stray_pipe), 0);
  // One child at a time, as the judge runs them: ending one sweeps up every
  // other descendant.
  sg::Child with_pipes = start(probe({"fds"}, "fds.txt"));
  EXPECT_EQ(with_pipes.wait(10).code, 0);
  sg::SpawnOptions no_pipes_options = probe({"fds"}, "fds_nopipes.txt");
  no_pipes_options.protocol_pipes = false;
  sg::Child without_pipes = start(no_pipes_options);
  EXPECT_EQ(without_pipes.wait(10).code, 0);
  close(stray_file);
  close(stray_pipe[0]);
  close(stray_pipe[1]);

  EXPECT_EQ(slurp(out_path("fds.txt")), "0 1 2 3 4\nstdin=/dev/null\n");
  EXPECT_EQ(slurp(out_path("fds_nopipes.txt")), "0 1 2\nstdin=/dev/null\n");
  EXPECT_EQ(without_pipes.request_fd(), -1);
  EXPECT_EQ(without_pipes.reply_fd(), -1);
}

TEST_F(Sandbox, SignalStateIsResetExceptFileSizeSignal) {
  // The judge's own ignored and blocked signals must not carry over.
  struct sigaction ignore {}, saved_action {};
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(sigaction(SIGINT, &ignore, &saved_action), 0);
  sigset_t usr1, saved_mask;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &usr1, &saved_mask);
  sg::Child child = start(probe({"signals"}, "signals.txt"));
  sigaction(SIGINT, &saved_action, nullptr);
  pthread_sigmask(SIG_SETMASK, &saved_mask, nullptr);

  EXPECT_EQ(child.wait(10).code, 0);
  EXPECT_EQ(slurp(out_path("signals.txt")), "int=default xfsz=ignored blocked=0\n");
}

TEST_F(Sandbox, ProtocolPipesReachTheChild) {
  sg::Child child = start(probe({"echo"}, "echo.txt"));
  const std::uint32_t sent = 41;
  ASSERT_TRUE(sg::proto::write_all(child.request_fd(), &sent, sizeof sent, 5.0));
  ASSERT_TRUE(child.wait_readable(child.reply_fd(), 5.0));
  std::uint32_t got = 0;
  ASSERT_TRUE(sg::proto::read_all(child.reply_fd(), &got, sizeof got, 5.0));
  EXPECT_EQ(got, sent + 1);
  EXPECT_EQ(child.wait(10).code, 0);
}

TEST_F(Sandbox, MissingProgramIsAClearError) {
  sg::SpawnOptions o = probe({}, "missing.txt");
  o.argv = {"/nonexistent/sg_no_such_program", "arg"};
  std::string error;
  EXPECT_FALSE(sg::Child::spawn(o, error));
  EXPECT_NE(error.find("/nonexistent/sg_no_such_program"), std::string::npos) << error;
  EXPECT_NE(error.find("execve"), std::string::npos) << error;
  EXPECT_NE(error.find(std::strerror(ENOENT)), std::string::npos) << error;
}

TEST_F(Sandbox, BadWorkdirAndOutputAreClearErrors) {
  sg::SpawnOptions o = probe({"exit", "0"}, "workdir.txt");
  o.workdir = "/nonexistent/sg_workdir";
  std::string error;
  EXPECT_FALSE(sg::Child::spawn(o, error));
  EXPECT_NE(error.find("chdir"), std::string::npos) << error;
  EXPECT_NE(error.find(std::strerror(ENOENT)), std::string::npos) << error;

  o = probe({"exit", "0"}, "unused.txt");
  o.output_file = "/nonexistent/sg_dir/out.txt";
  EXPECT_FALSE(sg::Child::spawn(o, error));
  EXPECT_NE(error.find("/nonexistent/sg_dir/out.txt"), std::string::npos) << error;

  o = probe({"exit", "0"}, "unused.txt");
  o.argv.clear();
  EXPECT_FALSE(sg::Child::spawn(o, error));
  EXPECT_NE(error.find("argv"), std::string::npos) << error;
}

TEST_F(Sandbox, DestructorKillsAndMoveTransfersOwnership) {
  const auto running = [](pid_t pid) { const auto s = proc_stat(pid); return s && s->state != 'Z'; };
  std::optional<sg::Child> holder;
  pid_t pid = 0;
  {
    sg::Child first = start(probe({"hang"}, "move.txt"));
    pid = first.pid();
    holder.emplace(std::move(first));
    EXPECT_EQ(first.pid(), -1);
  }  // the moved-from handle goes away here and must leave the child alone
  EXPECT_TRUE(running(pid));
  holder.reset();  // the owning handle's destructor kills and reaps
  EXPECT_FALSE(proc_stat(pid));

  // Assigning over a handle kills the child it held.
  sg::Child a = start(probe({"hang"}, "move_a.txt"));
  sg::Child b = std::move(a);  // `a` is empty now
  pid = b.pid();
  b = std::move(a);
  EXPECT_FALSE(proc_stat(pid));
  EXPECT_EQ(b.pid(), -1);
}

// Run as root (the grading set-up), the child must become the runner user
// for good and be unable to write where the judge writes.
TEST_F(Sandbox, PrivilegeDrop) {
  if (geteuid() != 0) GTEST_SKIP() << "the privilege drop can only be tested as root";
  const char* from_env = std::getenv("SG_RUNNER_USER");
  const std::string user = from_env && *from_env ? from_env : "nobody";
  const passwd* pw = getpwnam(user.c_str());
  ASSERT_NE(pw, nullptr) << "no user " << user;
  const uid_t uid = pw->pw_uid;
  const gid_t gid = pw->pw_gid;

  const auto run = [&](std::vector<std::string> argv, const std::string& output, bool pid_namespace = true) {
    sg::SpawnOptions o;
    o.pid_namespace = pid_namespace;
    o.argv = std::move(argv);
    o.env = {"PATH=/usr/bin:/bin"};
    o.workdir = scratch_;
    o.output_file = out_path(output);
    o.drop_privileges = true;
    sg::Child child = start(o);
    return child.wait(10);
  };

  EXPECT_EQ(run({"/usr/bin/id", "-u"}, "uid.txt").code, 0);
  EXPECT_EQ(slurp(out_path("uid.txt")), std::to_string(uid) + "\n");
  EXPECT_EQ(run({"/usr/bin/id", "-G"}, "groups.txt").code, 0);
  EXPECT_EQ(slurp(out_path("groups.txt")), std::to_string(gid) + "\n") << "supplementary groups were kept";
  struct stat st {};
  ASSERT_EQ(stat(out_path("uid.txt").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, uid) << "the output file should belong to the runner user";
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  const std::string planted = out_path("planted.txt");
  const sg::ExitInfo write_attempt = run({"/bin/sh", "-c", "echo pwned > " + planted}, "write.txt");
  EXPECT_TRUE(write_attempt.exited);
  EXPECT_NE(write_attempt.code, 0);
  EXPECT_FALSE(fs::exists(planted));
  EXPECT_NE(slurp(out_path("write.txt")).find("Permission denied"), std::string::npos) << slurp(out_path("write.txt"));

  // setuid programs cannot give anything back either.
  EXPECT_EQ(run({"/bin/grep", "NoNewPrivs", "/proc/self/status"}, "nnp.txt").code, 0);
  EXPECT_NE(slurp(out_path("nnp.txt")).find("\t1"), std::string::npos) << slurp(out_path("nnp.txt"));

  // A stray of the unprivileged child is still killed by the (root) judge.
  // (Without the namespace, so that the printed pid is the judge's view.)
  EXPECT_EQ(run({"/bin/sh", "-c", "/bin/sleep 3600 & echo sleeper $!"}, "stray.txt", false).code, 0);
  const long sleeper = number_after(slurp(out_path("stray.txt")), "sleeper");
  EXPECT_GT(sleeper, 0);
  EXPECT_FALSE(proc_stat(sleeper)) << "the runner user's stray survived";
  EXPECT_EQ(run({"/bin/sh", "-c", "/bin/sleep 3600 & echo started"}, "stray_ns.txt").code, 0);
  EXPECT_TRUE(my_descendants().empty()) << "the runner user's stray survived in the namespace";
}

TEST_F(Sandbox, UnknownRunnerUserIsRefused) {
  if (geteuid() != 0) GTEST_SKIP() << "the runner user only matters when running as root";
  const char* before = std::getenv("SG_RUNNER_USER");
  const std::string saved = before ? before : "";
  ASSERT_EQ(setenv("SG_RUNNER_USER", "sg_no_such_user_x", 1), 0);
  sg::SpawnOptions o = probe({"exit", "0"}, "user.txt");
  o.drop_privileges = true;
  std::string error;
  const bool started = sg::Child::spawn(o, error).has_value();
  if (before) setenv("SG_RUNNER_USER", saved.c_str(), 1); else unsetenv("SG_RUNNER_USER");
  EXPECT_FALSE(started);
  EXPECT_NE(error.find("sg_no_such_user_x"), std::string::npos) << error;
  EXPECT_NE(error.find("SG_RUNNER_USER"), std::string::npos) << error;
}

// ---- read_capped_text -------------------------------------------------------

class CappedText : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/sg_capped_text_XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string file(const std::string& bytes) {
    const std::string path = dir_ + "/f" + std::to_string(count_++);
    write_file(path, bytes);
    return path;
  }
  std::string dir_;
  int count_ = 0;
};

const std::string kFffd = "\xEF\xBF\xBD";

TEST_F(CappedText, KeepsValidTextAsIs) {
  const std::string text = "plain\n\tindented caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF end\n";
  EXPECT_EQ(sg::read_capped_text(file(text), 1000), text);
}

TEST_F(CappedText, ReplacesInvalidUtf8) {
  // lone 0xFF; overlong C0 80; a UTF-16 surrogate ED A0 80; code point
  // above U+10FFFF (F4 90 80 80); a sequence left incomplete at the end.
  const std::string bytes = "a\xFF" "b\xC0\x80" "c\xED\xA0\x80" "d\xF4\x90\x80\x80" "e\xE2\x82";
  // One U+FFFD per byte that is not part of a valid character (io/clean_text.h).
  const std::string want = "a" + kFffd + "b" + kFffd + kFffd + "c" + kFffd + kFffd + kFffd + "d" + kFffd +
                           kFffd + kFffd + kFffd + "e" + kFffd + kFffd;
  EXPECT_EQ(sg::read_capped_text(file(bytes), 1000), want);
}

TEST_F(CappedText, DropsNulControlsAndEscapes) {
  // The one cleaner: NUL, DEL, C1 controls, U+FFFF and terminal escapes go;
  // CRLF becomes a newline.
  const std::string bytes = std::string("x\0y", 3) + "\x1B[31mz\r\n\x7F" "\xC2\x9B" "\xEF\xBF\xBF" "\tok";
  EXPECT_EQ(sg::read_capped_text(file(bytes), 1000), "xyz\n\tok");
}

TEST_F(CappedText, CapsAndNotesTheTotal) {
  const std::string path = file("h\xC3\xA9llo world");  // 12 bytes; the cap cuts inside the 'é'
  EXPECT_EQ(sg::read_capped_text(path, 2), "h\n[output truncated: 12 bytes in total]");
  EXPECT_EQ(sg::read_capped_text(path, 3), "h\xC3\xA9\n[output truncated: 12 bytes in total]");
  EXPECT_EQ(sg::read_capped_text(path, 12), "h\xC3\xA9llo world");
  EXPECT_EQ(sg::read_capped_text(file(""), 10), "");
}

TEST_F(CappedText, MissingFileAndSymlinkAreNotedNotFollowed) {
  const std::string missing = dir_ + "/does_not_exist";
  const std::string note = sg::read_capped_text(missing, 100);
  EXPECT_NE(note.find(missing), std::string::npos) << note;
  EXPECT_NE(note.find(std::strerror(ENOENT)), std::string::npos) << note;

  const std::string target = file("secret");
  const std::string link = dir_ + "/link";
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  const std::string via_link = sg::read_capped_text(link, 100);
  EXPECT_EQ(via_link.find("secret"), std::string::npos) << via_link;
  EXPECT_NE(via_link.find("output unavailable"), std::string::npos) << via_link;
}

// Tools run side by side (the two sanitizer tools): at once, each with its
// own ending, and nothing they leave behind survives the last of them.
std::vector<sg::ToolRun> run_side_by_side(const std::vector<std::pair<std::string, double>>& scripts,
                                          const std::string& dir) {
  std::vector<sg::ToolCommand> commands;
  for (std::size_t i = 0; i < scripts.size(); ++i)
    commands.push_back({{"/bin/sh", "-c", scripts[i].first}, dir + "/tool-" + std::to_string(i) + ".txt",
                        scripts[i].second});
  return sg::run_tools(commands, {"PATH=/usr/bin:/bin"}, dir, false, 4096, false);
}

TEST_F(Sandbox, ToolsSideBySideRunAtOnce) {
  // The first waits (at most 5 s) for a file that only the second makes.
  const std::string go = out_path("go");
  std::remove(go.c_str());
  const auto runs = run_side_by_side(
      {{"i=0; while [ ! -e '" + go + "' ]; do sleep 0.02; i=$((i+1)); [ $i -gt 250 ] && exit 1; done; exit 3", 30},
       {"touch '" + go + "'; sleep 0.3; exit 4", 30}},
      scratch_);
  ASSERT_EQ(runs.size(), 2u);
  for (const auto& r : runs) ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_TRUE(runs[0].exit.exited && runs[0].exit.code == 3) << "first: " << runs[0].exit.describe();
  EXPECT_TRUE(runs[1].exit.exited && runs[1].exit.code == 4) << "second: " << runs[1].exit.describe();
}

TEST_F(Sandbox, ToolEndingFirstLeavesItsSiblingRunning) {
  // The first ends at once, leaving an escaped process behind; the second
  // must still end by itself, and the escaped process must not outlive both.
  const auto runs = run_side_by_side(
      {{"'" + probe_path_ + "' escape", 30}, {"sleep 0.5; exit 7", 30}}, scratch_);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_TRUE(runs[0].exit.exited && runs[0].exit.code == 0) << runs[0].exit.describe() << runs[0].output;
  EXPECT_TRUE(runs[1].exit.exited && runs[1].exit.code == 7) << runs[1].exit.describe();
  const long escaped = number_after(runs[0].output, "escaped");
  ASSERT_GT(escaped, 0) << runs[0].output;
  EXPECT_FALSE(proc_stat(escaped)) << "escaped process " << escaped << " survived";
}

// A tool run between a grading's cases (ncu standing in for the GPU's
// counters) sweeps what it left behind, but not the grading's live runners:
// those are spared, and without the list the sweep would take them.
TEST_F(Sandbox, ToolSweepSparesTheCallersRunners) {
  auto start_sleeper = []() {
    const pid_t pid = fork();
    if (pid == 0) {
      execl("/bin/sleep", "sleep", "30", static_cast<char*>(nullptr));
      _exit(127);
    }
    return pid;
  };
  const pid_t runner = start_sleeper();
  ASSERT_GT(runner, 0);
  const auto spared = sg::run_tools({{{"/bin/sh", "-c", "exit 0"}, out_path("spared.txt"), 30}},
                                    {"PATH=/usr/bin:/bin"}, scratch_, false, 4096, false, {}, {}, {runner});
  ASSERT_EQ(spared.size(), 1u);
  EXPECT_TRUE(spared[0].exit.exited && spared[0].exit.code == 0) << spared[0].exit.describe();
  EXPECT_EQ(kill(runner, 0), 0) << "the spared runner was killed by the tool's sweep";
  const auto unspared = sg::run_tools({{{"/bin/sh", "-c", "exit 0"}, out_path("unspared.txt"), 30}},
                                      {"PATH=/usr/bin:/bin"}, scratch_, false, 4096, false);
  ASSERT_EQ(unspared.size(), 1u);
  EXPECT_FALSE(proc_stat(runner)) << "without the list the sweep leaves it, so the test above shows nothing";
  kill(runner, SIGKILL);
  waitpid(runner, nullptr, WNOHANG);
}

// The runner's link (run_tool) runs no code of a submission and sweeps
// nothing after it: the baseline runner, started while the submission builds,
// lives on. (run_tools sweeps: ToolSweepSparesTheCallersRunners.)
TEST_F(Sandbox, TheLinkSweepsNothing) {
  const pid_t runner = fork();
  if (runner == 0) {
    execl("/bin/sleep", "sleep", "30", static_cast<char*>(nullptr));
    _exit(127);
  }
  ASSERT_GT(runner, 0);
  const sg::ToolRun link = sg::run_tool({"/bin/sh", "-c", "exit 0"}, {"PATH=/usr/bin:/bin"}, scratch_,
                                        out_path("link.txt"), 30, false, 4096, false);
  EXPECT_TRUE(link.exit.exited && link.exit.code == 0) << link.exit.describe();
  const auto alive = proc_stat(runner);
  EXPECT_TRUE(alive && alive->state != 'Z') << "the link's run killed the judge's other child";
  kill(runner, SIGKILL);
  waitpid(runner, nullptr, 0);
}

TEST_F(Sandbox, ToolPastItsDeadlineIsKilledAloneFromItsSibling) {
  const auto runs = run_side_by_side({{"sleep 30", 0.3}, {"sleep 1; exit 5", 30}}, scratch_);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_TRUE(runs[0].exit.timed_out) << runs[0].exit.describe();
  EXPECT_TRUE(runs[1].exit.exited && runs[1].exit.code == 5) << runs[1].exit.describe();
}

// A tool whose output stops growing is ended at its quiet limit, long
// before its deadline; one that keeps printing runs to its end.
TEST_F(Sandbox, ToolsThatGoQuietAreEndedAtTheirQuietLimit) {
  const std::string quiet = out_path("quiet.txt"), busy = out_path("busy.txt");
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<sg::ToolRun> runs = sg::run_tools(
      {{{"/bin/sh", "-c", "echo step 1; sleep 60"}, quiet, 30, 0.5},
       {{"/bin/sh", "-c", "for i in 1 2 3 4 5 6 7 8; do echo step $i; sleep 0.2; done; exit 4"}, busy, 30, 3}},
      {"PATH=/usr/bin:/bin"}, scratch_, false, 4096, false, {});
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_TRUE(runs[0].went_quiet);
  EXPECT_TRUE(runs[0].exit.timed_out) << runs[0].exit.describe();
  EXPECT_NE(runs[0].output.find("step 1"), std::string::npos);
  EXPECT_FALSE(runs[1].went_quiet);
  EXPECT_TRUE(runs[1].exit.exited && runs[1].exit.code == 4) << runs[1].exit.describe();
  EXPECT_LT(took, 25) << "the quiet tool was not left to its 30 s deadline";
}

TEST(ExitInfo, DescribesEachEnding) {
  sg::ExitInfo exited;
  exited.exited = true;
  exited.code = 0;
  EXPECT_EQ(exited.describe(), "exited with code 0");
  sg::ExitInfo killed;
  killed.signal = SIGKILL;
  EXPECT_EQ(killed.describe().rfind("killed by signal " + std::to_string(SIGKILL) + " (SIGKILL", 0), 0u)
      << killed.describe();
  sg::ExitInfo timed_out = killed;
  timed_out.timed_out = true;
  EXPECT_EQ(timed_out.describe(), "timed out");
}

}  // namespace
