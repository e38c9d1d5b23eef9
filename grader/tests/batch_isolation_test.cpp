// A victim graded alone and graded in a batch beside attackers must get the
// same verdict (issue 15): each attack is hidden from nvcc, so it runs on the
// CPU backend, at the same time as the victim (--jobs 4). The attackers:
// kill(-1, SIGKILL) before every launch, taking every process its user may
// have, planting a symbolic link in /tmp. What keeps the victim whole is a uid
// per grading (process/job_identity.h), plus the sandbox's PID namespace and
// private /tmp where bubblewrap works; a uid per grading needs root.
// And a runner that fills its scratch folder with large files (issue 33): each
// grading's folders are tmpfs quotas of their own (services/work_dir.h).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "shell_run.h"

namespace fs = std::filesystem;
using nlohmann::json;
using sg::test::read_file;
using sg::test::shell_quote;

namespace {

const fs::path kRoot = SG_SOURCE_ROOT;

// grade batch on the CPU backend over `dir`; the victim's results.json, parsed.
// `env`: assignments put before the command (e.g. "SG_NO_SANDBOX=1 ").
json batch_victim(const fs::path& dir, const fs::path& out, std::string& log, const std::string& env = "",
                  int jobs = 4) {
  std::error_code ec;
  fs::remove_all(out, ec);
  const std::string cmd = env + shell_quote(std::string(SG_BUILD_DIR) + "/grade") + " batch --backend cpu --seed 7 --jobs " + std::to_string(jobs) + " --quiet" +
                          " --suite " + shell_quote((kRoot / "testcases/smoke.yaml").string()) + " --out " +
                          shell_quote(out.string()) + " " + shell_quote(dir.string());
  const sg::test::ShellRun run = sg::test::run_shell(cmd, out.string() + ".log", 900);
  log = run.output;
  return json::parse(read_file(out / "victim" / "results.json"), nullptr, false);
}

// What the victim's verdict is made of: the score and each test's status and points.
std::string verdict(const json& r) {
  if (!r.is_object()) return "(no results.json)";
  std::string v = "score " + r.value("score", json(-1)).dump() + "\n";
  for (const json& t : r.value("tests", json::array()))
    v += t.value("name", std::string("?")) + " " + t.value("status", std::string("?")) + " " +
         t.value("score", json(-1)).dump() + "\n";
  return v;
}

}  // namespace

TEST(BatchIsolation, VictimBesideAttackersScoresAsAlone) {
  if (geteuid() != 0)
    GTEST_SKIP() << "a uid per grading needs the grader to run as root; as another user every grading's "
                    "code shares that user (README's threat model says so)";
  const fs::path base = fs::path(SG_BUILD_DIR) / "test-grades" / "batch-isolation";
  std::error_code ec;
  fs::remove_all(base, ec);
  const fs::path alone = base / "alone", together = base / "together";
  for (const fs::path& d : {alone, together}) {
    fs::create_directories(d / "victim", ec);
    fs::copy_file(kRoot / "reference/kernel.cu", d / "victim/kernel.cu", ec);
  }
  const fs::path hostile = kRoot / "grader/samples/hostile";
  for (const char* attacker : {"kills_everything", "exhausts_processes", "plants_symlink"}) {
    fs::create_directories(together / attacker, ec);
    fs::copy_file(hostile / attacker / "kernel.cu", together / attacker / "kernel.cu", ec);
    ASSERT_FALSE(ec) << attacker << ": " << ec.message();
  }
  std::string log_alone, log_together;
  const json a = batch_victim(alone, base / "out-alone", log_alone);
  ASSERT_TRUE(a.is_object()) << log_alone;
  ASSERT_EQ(a.value("score", -1.0), 10.0) << "the reference earns every smoke point alone\n" << log_alone;
  // With the sandbox, and without it (where bubblewrap cannot make namespaces
  // the uid per grading and its 0770 folders are all that separate them).
  for (const std::string env : {"", "SG_NO_SANDBOX=1 "}) {
    SCOPED_TRACE(env.empty() ? "with the sandbox" : "without the sandbox");
    const fs::path out = base / (env.empty() ? "out-together" : "out-together-unsandboxed");
    const json t = batch_victim(together, out, log_together, env);
    EXPECT_EQ(verdict(t), verdict(a)) << log_together;
    for (const char* attacker : {"kills_everything", "exhausts_processes", "plants_symlink"})
      EXPECT_TRUE(fs::exists(out / attacker / "results.json")) << attacker << " got no verdict\n" << log_together;
  }
}

namespace {

// Whether this process could give a grading its own mounts (root with
// CAP_SYS_ADMIN, not refused as in most containers).
bool can_mount() { return geteuid() == 0 && std::system("unshare -m true >/dev/null 2>&1") == 0; }

}  // namespace

// A runner that writes 32 MiB files into its scratch folder until a write
// fails (hostile/fills_scratch) graded beside an honest victim, both work
// folders on one small file system (TMPDIR, a 256 MiB tmpfs: the disk they
// share). Each grading's folders are tmpfs quotas of their own, so the
// filler's writes stop at its scratch folder's 64 MiB and every one of its
// cases fails naming that quota; the victim scores as alone, with the
// sandbox and without it. Without the quotas the filler would fill the
// shared disk (and say so in its output), and a victim building then would
// fail for want of space.
TEST(BatchIsolation, ScratchFillerBesideVictimScoresAsAloneAndMeetsItsQuota) {
  if (!can_mount()) GTEST_SKIP() << "each grading's quota is a tmpfs mount: needs root where mounts are allowed";
  const fs::path base = fs::path(SG_BUILD_DIR) / "test-grades" / "batch-disk-quota";
  std::error_code ec;
  // A quota disk left mounted by an earlier run is unmounted; none is the usual case.
  [[maybe_unused]] const int stale = std::system(("umount -l " + shell_quote((base / "disk").string()) + " 2>/dev/null").c_str());
  fs::remove_all(base, ec);
  const fs::path alone = base / "alone", together = base / "together", disk = base / "disk";
  for (const fs::path& d : {alone, together}) {
    fs::create_directories(d / "victim", ec);
    fs::copy_file(kRoot / "reference/kernel.cu", d / "victim/kernel.cu", ec);
  }
  fs::create_directories(together / "filler", ec);
  fs::copy_file(kRoot / "grader/samples/hostile/fills_scratch/kernel.cu", together / "filler/kernel.cu", ec);
  ASSERT_FALSE(ec) << ec.message();
  fs::create_directories(disk, ec);
  const std::string mount = "mount -t tmpfs -o size=256m,mode=0755 sg-shared-disk " + shell_quote(disk.string());
  ASSERT_EQ(std::system(mount.c_str()), 0);
  const std::string tmpdir = "TMPDIR=" + shell_quote(disk.string()) + " ";
  std::string log_alone, log_together;
  const json a = batch_victim(alone, base / "out-alone", log_alone, tmpdir, 2);
  ASSERT_TRUE(a.is_object()) << log_alone;
  ASSERT_EQ(a.value("score", -1.0), 10.0) << "the reference earns every smoke point alone\n" << log_alone;
  for (const std::string env : {"", "SG_NO_SANDBOX=1 "}) {
    SCOPED_TRACE(env.empty() ? "with the sandbox" : "without the sandbox");
    const fs::path out = base / (env.empty() ? "out-together" : "out-together-unsandboxed");
    const json t = batch_victim(together, out, log_together, env + tmpdir, 2);
    EXPECT_EQ(verdict(t), verdict(a)) << log_together;
    const json f = json::parse(read_file(out / "filler" / "results.json"), nullptr, false);
    ASSERT_TRUE(f.is_object()) << "the filler got no verdict\n" << log_together;
    EXPECT_EQ(f.value("score", -1.0), 0.0) << f.dump().substr(0, 3000);
    for (const json& test : f.value("tests", json::array()))
      EXPECT_NE(test.value("output", std::string()).find("scratch folder's quota (64 MiB"), std::string::npos)
          << test.dump();
    // What the filler says it managed: its quota's worth, not the shared disk.
    const std::string said = read_file(out / "filler" / "grade-result.json");
    const std::size_t at = said.find("fills_scratch: wrote ");
    ASSERT_NE(at, std::string::npos) << said.substr(0, 3000);
    EXPECT_LE(std::stoll(said.substr(at + std::string("fills_scratch: wrote ").size())), 64) << said.substr(at, 120);
  }
  EXPECT_EQ(std::system(("umount -l " + shell_quote(disk.string())).c_str()), 0) << "unmounting the quota's disk";
}
