// The sandbox against the hostile corpus (issue 15), on the CPU backend:
// each attack of grader/samples/hostile/ that the static checks cannot see is
// graded end to end by the real `grade`, and what it tried must not have
// happened on the host or in the reports. Where bubblewrap cannot make its
// namespaces here, the attacks that only the sandbox stops are skipped (with
// the reason), and the report must say that it ran without a sandbox.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>

#include "model/plan.h"
#include "process/sandbox.h"
#include "report/batch_writers.h"
#include "report/class_files.h"
#include "shell_run.h"
#include "suite/suite_loader.h"

namespace fs = std::filesystem;
using nlohmann::json;
using sg::test::read_file;
using sg::test::shell_quote;

namespace {

const fs::path kSamples = fs::path(SG_SOURCE_ROOT) / "grader/samples/hostile";

struct Graded {
  int code = -1;
  json results;
  std::string results_text, report_md, terminal;
};

// build/grade on the CPU backend, into a fresh folder under build/test-grades/hostile/.
Graded grade(const fs::path& submission, const std::string& name, const std::string& env = "") {
  const fs::path out = fs::path(SG_BUILD_DIR) / "test-grades" / "hostile" / name;
  std::error_code ec;
  fs::remove_all(out, ec);
  fs::create_directories(out / "tmp", ec);
  const std::string cmd = env + " TMPDIR=" + shell_quote((out / "tmp").string()) + " " +
                          shell_quote(std::string(SG_BUILD_DIR) + "/grade") +
                          " --seed 12345 --backend cpu --out " + shell_quote((out / "reports").string()) + " " +
                          shell_quote(submission.string());
  const sg::test::ShellRun run = sg::test::run_shell(cmd, out / "terminal.txt", 600);
  Graded g;
  g.code = run.code;
  g.terminal = run.output;
  g.results_text = read_file(out / "reports/results.json");
  g.report_md = read_file(out / "reports/report.md");
  g.results = json::parse(g.results_text, nullptr, false);
  return g;
}

double score(const Graded& g) { return g.results.is_object() ? g.results.value("score", -1.0) : -1.0; }

// Every point the CPU backend grades in testcases/default.yaml (what an honest tiled kernel earns
// there), from the suite rather than a number that a change of points would make wrong.
double every_cpu_point() {
  double total = 0;
  for (const auto& t : sg::plan_tests(sg::load_suite_file(std::string(SG_SOURCE_ROOT) + "/testcases/default.yaml"),
                                      sg::Shown::All, sg::kCpuNotTimed))
    total += t.max_score;
  return total;
}

bool sandbox_here() { return sg::probe_sandbox().available(); }

#define REQUIRE_SANDBOX()                                                                          \
  do {                                                                                             \
    const sg::SandboxSupport s = sg::probe_sandbox();                                              \
    if (!s.available()) GTEST_SKIP() << "only the sandbox stops this attack; it is unavailable: " << s.why_not; \
  } while (0)

// Everything the grader wrote or printed about one grading.
std::string everything(const Graded& g) { return g.results_text + g.report_md + g.terminal; }

}  // namespace

TEST(HostileSandbox, ReportsSayWhatContainedTheCode) {
  const Graded g = grade(kSamples / "include_etc_passwd/kernel.cu", "says_sandbox");
  ASSERT_EQ(g.code, 0) << g.terminal;
  const std::string want = sandbox_here() ? "sandbox: bubblewrap" : "sandbox: unavailable (";
  EXPECT_NE(g.report_md.find(want), std::string::npos) << g.report_md;
  EXPECT_NE(g.terminal.find(want), std::string::npos) << g.terminal;
}

TEST(HostileSandbox, FallbackIsSaidInTheReport) {
  const Graded g = grade(kSamples / "include_etc_passwd/kernel.cu", "says_fallback", "SG_NO_SANDBOX=1");
  ASSERT_EQ(g.code, 0) << g.terminal;
  EXPECT_NE(g.report_md.find("sandbox: unavailable (turned off by SG_NO_SANDBOX): ran with rlimits only"),
            std::string::npos)
      << g.report_md;
}

TEST(HostileSandbox, AbsoluteAndDeviceIncludesReadNothing) {
  REQUIRE_SANDBOX();
  const Graded passwd = grade(kSamples / "include_etc_passwd/kernel.cu", "include_etc_passwd");
  ASSERT_EQ(passwd.code, 0) << passwd.terminal;
  EXPECT_EQ(passwd.results.value("score", -1.0), 0.0);
  EXPECT_EQ(everything(passwd).find("root:x:0:0"), std::string::npos) << "a line of /etc/passwd reached a report";
  const Graded zero = grade(kSamples / "include_dev_zero/kernel.cu", "include_dev_zero");
  ASSERT_EQ(zero.code, 0) << zero.terminal;
  EXPECT_EQ(score(zero), 0.0);
  EXPECT_NE(zero.results_text.find("/dev/zero"), std::string::npos) << "the compiler's message names the include";
}

TEST(HostileSandbox, NvccSplitRunsNoShellAndLeaksNoFile) {
  REQUIRE_SANDBOX();
  const fs::path marker = "/tmp/sg_hostile_nvcc_split_marker";
  std::error_code ec;
  fs::remove(marker, ec);
  const Graded g = grade(kSamples / "nvcc_split/kernel.cu", "nvcc_split");
  ASSERT_EQ(g.code, 0) << g.terminal;
  EXPECT_EQ(score(g), every_cpu_point()) << "the honest part earns every CPU-backend point, no more";
  EXPECT_FALSE(fs::exists(marker)) << "the shell command ran on the host";
  EXPECT_EQ(everything(g).find("leak: root:"), std::string::npos) << "/etc/passwd reached a report";
  EXPECT_NE(g.results_text.find("system() returned"), std::string::npos) << "the attack did not run at all";
}

TEST(HostileSandbox, LibcSelfLookupFindsSystemButRunsNoShell) {
  REQUIRE_SANDBOX();
  const fs::path marker = "/tmp/sg_hostile_libc_lookup_marker";
  std::error_code ec;
  fs::remove(marker, ec);
  const Graded g = grade(kSamples / "libc_lookup_system/kernel.cu", "libc_lookup_system");
  ASSERT_EQ(g.code, 0) << g.terminal;
  EXPECT_EQ(score(g), every_cpu_point());
  EXPECT_NE(g.results_text.find("system() found by lookup returned"), std::string::npos)
      << "the lookup itself failed, so this proves nothing";
  EXPECT_EQ(g.results_text.find("SHELL RAN"), std::string::npos);
  EXPECT_FALSE(fs::exists(marker)) << "the shell command ran on the host";
}

TEST(HostileSandbox, KillMinusOneReachesNothingOutside) {
  REQUIRE_SANDBOX();
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to start a victim as the runner's user";
  // A process of the runner's user (nobody), outside the sandbox.
  const pid_t victim = ::fork();
  ASSERT_GE(victim, 0);
  if (victim == 0) {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(1);
    ::execl("/bin/sleep", "sleep", "120", static_cast<char*>(nullptr));
    ::_exit(1);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const Graded g = grade(kSamples / "kills_everything/kernel.cu", "kills_everything");
  int status = 0;
  const bool alive = ::waitpid(victim, &status, WNOHANG) == 0;
  ::kill(victim, SIGKILL);
  ::waitpid(victim, &status, 0);
  EXPECT_TRUE(alive) << "kill(-1) reached a process outside the sandbox";
  ASSERT_EQ(g.code, 0) << g.terminal;
  EXPECT_EQ(score(g), every_cpu_point());
}

TEST(HostileSandbox, PlantedSymlinkStaysInside) {
  REQUIRE_SANDBOX();
  const fs::path link = "/tmp/sg_hostile_planted_link";
  std::error_code ec;
  fs::remove(link, ec);
  const Graded g = grade(kSamples / "plants_symlink/kernel.cu", "plants_symlink");
  ASSERT_EQ(g.code, 0) << g.terminal;
  EXPECT_EQ(score(g), every_cpu_point());
  EXPECT_FALSE(fs::exists(fs::symlink_status(link))) << "the runner planted a link in the host's /tmp";
  EXPECT_NE(g.results_text.find("symlink returned"), std::string::npos) << "the attack did not run at all";
}

TEST(HostileSandbox, HugeSourceIsRefusedBeforeAnythingReadsIt) {
  const fs::path dir = fs::path(SG_BUILD_DIR) / "test-grades" / "hostile" / "huge_source_input";
  std::error_code ec;
  fs::create_directories(dir, ec);
  {
    std::ofstream f(dir / "kernel.cu");
    f << "#define TILE_SIZE 16\n";
    for (int i = 0; i < (2 << 20) / 8; ++i) f << ";;;;;;;\n";  // 2 MiB of empty statements
  }
  const Graded g = grade(dir / "kernel.cu", "huge_source");
  ASSERT_EQ(g.code, 0) << g.terminal;
  EXPECT_EQ(score(g), 0.0);
  EXPECT_NE(g.results_text.find("at most 1048576 bytes"), std::string::npos) << g.results_text.substr(0, 2000);
}

TEST(HostileSandbox, OutputFolderThatIsALinkIsRefused) {
  const fs::path base = fs::path(SG_BUILD_DIR) / "test-grades" / "hostile" / "linked_out";
  std::error_code ec;
  fs::remove_all(base, ec);
  fs::create_directories(base / "victim", ec);
  fs::create_directory_symlink(base / "victim", base / "out", ec);
  ASSERT_FALSE(ec) << ec.message();
  const std::string cmd = shell_quote(std::string(SG_BUILD_DIR) + "/grade") + " --backend cpu --out " +
                          shell_quote((base / "out").string()) + " " +
                          shell_quote((kSamples / "include_etc_passwd/kernel.cu").string());
  const sg::test::ShellRun run = sg::test::run_shell(cmd, base / "log.txt", 300);
  EXPECT_EQ(run.code, 2) << run.output;
  EXPECT_NE(run.output.find("symbolic link"), std::string::npos) << run.output;
  EXPECT_FALSE(fs::exists(base / "victim/results.json")) << "wrote through the link";
}

TEST(HostileSandbox, StudentIdsNeverNameTheBatchsOwnFiles) {
  std::vector<std::string> ids(std::begin(sg::class_files::kAll), std::end(sg::class_files::kAll));
  ids.insert(ids.end(), {".", "..", ""});
  std::set<std::string> folders;
  for (const std::string& id : ids) {
    const std::string folder = sg::report_folder(id);
    EXPECT_EQ(folder.rfind("_" + id + "-", 0), 0u) << id << " -> " << folder;
    for (const char* own : sg::class_files::kAll) EXPECT_NE(folder, own) << id;
    EXPECT_TRUE(folders.insert(folder).second) << folder;
  }
  EXPECT_EQ(sg::report_folder("alice"), "alice");
  EXPECT_EQ(sg::report_folder("journal.jsonl.bak"), "journal.jsonl.bak");
  // Ids that sanitise alike, and an id shaped like another's folder, each keep their own.
  const std::string jane = sg::report_folder("jane+doe@uni.edu");
  EXPECT_NE(jane, sg::report_folder("jane_doe@uni.edu"));
  EXPECT_NE(sg::report_folder(jane), jane) << "an id equal to another's folder name takes a folder of its own";
}
