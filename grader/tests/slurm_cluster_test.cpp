// `grade batch --slurm` against real Slurm: the test starts a private
// single-node cluster (munged, slurmctld and slurmd from Debian's packages,
// everything in a temp folder, ports of its own) with
// grader/tools/slurm/minicluster.sh, writes the job-array script for a small
// class, submits it with sbatch, waits for the array to end, merges the shards
// and checks the gradebook. Skips when Slurm/munge are not installed or when
// not root (the daemons need it). The cluster is always torn down, also when
// an assertion fails.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "batch/journal.h"
#include "batch/slurm_plan.h"
#include "shell_run.h"

namespace {

namespace fs = std::filesystem;
using sg::test::read_file;
using sg::test::run_shell;
using sg::test::shell_quote;
using sg::test::ShellRun;

const std::string kRoot = SG_SOURCE_ROOT;
const std::string kMinicluster = kRoot + "/grader/tools/slurm/minicluster.sh";
const std::string kSmoke = kRoot + "/testcases/smoke.yaml";

std::string grade_binary() {
  if (const char* o = std::getenv("SG_BATCH_GRADE")) return o;  // as in batch_test.cpp
  return std::string(SG_BUILD_DIR) + "/grade";
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream s(text);
  std::string line;
  while (std::getline(s, line))
    if (!line.empty()) out.push_back(line);
  return out;
}

// gradebook.csv as student -> column -> cell (the ids used here need no quoting).
std::map<std::string, std::map<std::string, std::string>> read_gradebook(const std::string& path) {
  const auto rows = lines_of(read_file(path));
  std::map<std::string, std::map<std::string, std::string>> out;
  if (rows.empty()) return out;
  auto split = [](const std::string& line) {
    std::vector<std::string> cells;
    std::stringstream s(line);
    std::string cell;
    while (std::getline(s, cell, ',')) cells.push_back(cell);
    return cells;
  };
  const auto cols = split(rows[0]);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto cells = split(rows[i]);
    for (std::size_t c = 0; c < cols.size() && c < cells.size(); ++c) out[cells[0]][cols[c]] = cells[c];
  }
  return out;
}

std::size_t journal_size(const std::string& dir) {
  std::vector<std::string> warnings;
  return sg::batch::read_journal(dir + "/journal.jsonl", warnings).size();
}

// "Key=value" from one line of `scontrol -o show job`.
std::string field(const std::string& record, const std::string& key) {
  std::smatch m;
  if (std::regex_search(record, m, std::regex("(^| )" + key + "=(\\S*)"))) return m[2];
  return "";
}

bool finished_state(const std::string& state) {
  return !state.empty() && state != "PENDING" && state != "RUNNING" && state != "CONFIGURING" &&
         state != "COMPLETING" && state != "SUSPENDED" && state != "REQUEUED" && state != "RESIZING";
}

// The script sbatch reads: the log path must survive sbatch's parsing of
// "#SBATCH" lines, which splits at blanks, cuts at '#' and expands '%'.
TEST(SlurmScript, OutputPathIsQuotedForSbatch) {
  sg::batch::SlurmPlan p;
  p.grade_program = "/opt/kit/build/grade";
  p.submissions = "/data/subs";
  p.out = "/data/fall \"24\" #2 100%";
  p.shards = 2;
  const std::string s = sg::batch::sbatch_script(p);
  EXPECT_NE(s.find("#SBATCH --output=\"/data/fall \\\"24\\\" #2 100%%/shards/slurm-%a.log\"\n"), std::string::npos)
      << s;
}

class SlurmCluster : public testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sg-slurm-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr) << "mkdtemp";
    tmp_ = tmpl;
    // Exit 77 with the reason: Slurm or munge not installed, or not root.
    const ShellRun check = run_shell("bash " + shell_quote(kMinicluster) + " check", tmp_ + "/check.log", 30);
    if (check.code == 77)
      GTEST_SKIP() << "no private Slurm cluster here: " << check.output.substr(0, check.output.find_last_not_of("\n") + 1);
    ASSERT_EQ(check.code, 0) << "minicluster.sh check:\n" << check.output;
    cluster_ = tmp_ + "/cluster";
    conf_ = cluster_ + "/slurm.conf";
    const auto t0 = std::chrono::steady_clock::now();
    started_ = true;  // even a failed start may leave daemons for TearDown to stop
    // Our pid: should this process die before TearDown (killed by a CI
    // timeout), the script's watcher stops the cluster.
    const ShellRun start = run_shell("bash " + shell_quote(kMinicluster) + " start " + shell_quote(cluster_) + " " +
                                    std::to_string(::getpid()),
                                tmp_ + "/start.log", 120);
    ASSERT_EQ(start.code, 0) << "minicluster.sh start failed:\n" << start.output;
    std::fprintf(stderr, "[ slurm    ] private cluster up in %.1f s\n", seconds_since(t0));
  }

  void TearDown() override {
    bool stopped = true;
    if (started_) {
      if (HasFailure()) print_diagnostics();
      const ShellRun stop = run_shell("bash " + shell_quote(kMinicluster) + " stop " + shell_quote(cluster_),
                                 tmp_ + "/stop.log", 120);
      EXPECT_EQ(stop.code, 0) << "minicluster.sh stop failed (processes may be left):\n" << stop.output;
      stopped = stop.code == 0;
    }
    std::error_code ec;
    if (!tmp_.empty() && stopped) fs::remove_all(tmp_, ec);  // else kept for a look at what is left
  }

  static double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  std::string run_output(const std::string& command) { return run_shell(command, tmp_ + "/probe.log", 30).output; }

  // A Slurm client command (sinfo, sbatch, ...) against the private cluster.
  ShellRun slurm(const std::string& command, int timeout_s = 30) {
    return run_shell("export SLURM_CONF=" + shell_quote(conf_) + "; " + command, tmp_ + "/slurm-cmd.log", timeout_s);
  }

  // Everything a CI log needs to tell why the test failed.
  void print_diagnostics() {
    std::fprintf(stderr, "----- Slurm test diagnostics (%s)\n", tmp_.c_str());
    if (!job_.empty())
      std::fprintf(stderr, "%s\n", slurm("scontrol -o show job " + job_ + "; squeue; sinfo").output.c_str());
    std::fprintf(stderr, "%s\n", run_output("bash " + shell_quote(kMinicluster) + " logs " + shell_quote(cluster_)).c_str());
    // The files the tasks wrote (a log in the wrong place shows up here), then the logs.
    std::error_code ec;
    std::string listing, logs;
    if (!tmp_.empty())
      for (const auto& e : fs::recursive_directory_iterator(tmp_, ec)) {
        if (e.path().string().rfind(cluster_, 0) == 0) continue;  // the daemons' logs are above
        listing += "  " + e.path().string() + "\n";
        const std::string name = e.path().filename().string();
        if (name.rfind("slurm-", 0) == 0 || name == "grade.log")
          logs += "===== " + e.path().string() + "\n" + read_file(e.path().string()) + "\n";
      }
    std::fprintf(stderr, "===== files under %s\n%s%s", tmp_.c_str(), listing.c_str(), logs.c_str());
    std::fprintf(stderr, "----- end of Slurm test diagnostics\n");
  }

  std::string tmp_, cluster_, conf_;
  std::string out_;  // the batch folder, once there is one
  std::string job_;  // the array's job id, once submitted
  bool started_ = false;
};

TEST_F(SlurmCluster, JobArrayGradesShardsThatMergeIntoOneGradebook) {
  const auto t0 = std::chrono::steady_clock::now();
  const ShellRun info = slurm("sinfo -h -o '%T %D'");
  ASSERT_EQ(info.code, 0) << info.output;
  EXPECT_EQ(info.output, "idle 1\n") << "one idle node expected";

  // Two reference solutions and two skeletons, so each of the 2 shards
  // (contiguous slices of the ids sorted) gets one of each.
  const std::string subs = tmp_ + "/class";
  const std::map<std::string, std::string> kernels = {{"alice", "reference/kernel.cu"},
                                                      {"bob", "student/kernel.cu"},
                                                      {"carol", "reference/kernel.cu"},
                                                      {"dave", "student/kernel.cu"}};
  for (const auto& [id, from] : kernels) {
    fs::create_directories(subs + "/" + id);
    fs::copy_file(kRoot + "/" + from, subs + "/" + id + "/kernel.cu");
  }
  // Blanks, '#' and '%' in the folder: the "#SBATCH --output" line must survive sbatch's parsing.
  out_ = tmp_ + "/grades #1 50%";
  const ShellRun plan = run_shell(shell_quote(grade_binary()) + " batch " + shell_quote(subs) + " --out " + shell_quote(out_) +
                                 " --slurm 2 --backend cpu --suite " + shell_quote(kSmoke) + " --sbatch --time=10",
                             tmp_ + "/plan.log", 60);
  ASSERT_EQ(plan.code, 0) << plan.output;
  const std::string script = out_ + "/grade_batch.sbatch";
  ASSERT_TRUE(fs::exists(script)) << plan.output;

  // --parsable: the reply is just the job id.
  const ShellRun submit = slurm("sbatch --parsable --chdir=" + shell_quote(tmp_) + " " + shell_quote(script));
  ASSERT_EQ(submit.code, 0) << "sbatch refused the script:\n" << submit.output << "\n" << read_file(script);
  job_ = submit.output.substr(0, submit.output.find_first_of(";\n"));
  ASSERT_FALSE(job_.empty()) << submit.output;
  ASSERT_EQ(job_.find_first_not_of("0123456789"), std::string::npos) << "not a job id: " << submit.output;

  // Poll until both array tasks have ended. Finished jobs stay visible to
  // scontrol for MinJobAge (600 s in minicluster.sh's slurm.conf).
  std::vector<std::string> tasks;
  bool done = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(300);
  while (!done && std::chrono::steady_clock::now() < deadline) {
    const ShellRun show = slurm("scontrol -o show job " + job_);
    ASSERT_EQ(show.code, 0) << "scontrol lost the job:\n" << show.output;
    tasks = lines_of(show.output);
    done = tasks.size() == 2;  // one line per task once the array has been split
    for (const auto& t : tasks) done = done && finished_state(field(t, "JobState"));
    if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  ASSERT_TRUE(done) << "the job array did not finish within 300 s";
  std::map<std::string, std::string> task_state;
  for (const auto& t : tasks) task_state[field(t, "ArrayTaskId")] = field(t, "JobState") + " " + field(t, "ExitCode");
  EXPECT_EQ(task_state, (std::map<std::string, std::string>{{"0", "COMPLETED 0:0"}, {"1", "COMPLETED 0:0"}}));
  std::fprintf(stderr, "[ slurm    ] job array %s done in %.1f s\n", job_.c_str(), seconds_since(t0));

  // Each task wrote its own Slurm log (the "#SBATCH --output" pattern) and graded its slice.
  for (const char* shard : {"0", "1"}) {
    const std::string log = out_ + "/shards/slurm-" + shard + ".log";
    ASSERT_TRUE(fs::exists(log)) << log << " missing; shards/ holds the wrong names?";
    EXPECT_NE(read_file(log).find(std::string("shard ") + shard + "/2"), std::string::npos) << read_file(log);
    EXPECT_EQ(journal_size(out_ + "/shards/" + shard), 2u) << "shard " << shard;
  }

  const ShellRun merge = run_shell(shell_quote(grade_binary()) + " merge " + shell_quote(out_), tmp_ + "/merge.log", 60);
  ASSERT_EQ(merge.code, 0) << merge.output;
  auto book = read_gradebook(out_ + "/gradebook.csv");
  ASSERT_EQ(book.size(), 4u) << "one row per submission:\n" << read_file(out_ + "/gradebook.csv");
  // The smoke suite on the CPU backend: 10 points, all correctness/structure.
  for (const char* ref : {"alice", "carol"}) {
    EXPECT_EQ(book[ref]["status"], "graded") << ref;
    EXPECT_EQ(book[ref]["total"], "10") << ref << ": the reference gets full marks";
    EXPECT_EQ(book[ref]["max"], "10") << ref;
  }
  for (const char* skeleton : {"bob", "dave"}) {
    EXPECT_EQ(book[skeleton]["status"], "graded") << skeleton;
    EXPECT_EQ(book[skeleton]["total"], "0") << skeleton << ": the skeleton computes nothing";
    EXPECT_EQ(book[skeleton]["max"], "10") << skeleton;
  }
  EXPECT_EQ(journal_size(out_), 4u);
  for (const auto& [id, from] : kernels) EXPECT_TRUE(fs::exists(out_ + "/" + id + "/report.md")) << id;
  std::fprintf(stderr, "[ slurm    ] graded, merged and checked in %.1f s\n", seconds_since(t0));
}

}  // namespace
