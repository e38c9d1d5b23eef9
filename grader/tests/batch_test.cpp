// Tests of batch grading (grader/src/batch, `grade batch`): the pieces
// (hash, roster, journal, Slurm script, process pool) and the
// whole command end to end on the CPU backend with the smoke suite, using a
// handful of real submissions: the reference, the handout skeleton, a compile
// error and a folder without kernel.cu.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "batch/batch_options.h"
#include "cli/batch_cli.h"
#include "batch/content_hash.h"
#include "batch/gpu_inventory.h"
#include "batch/gradescope_export.h"
#include "batch/grade_pool.h"
#include "batch/journal.h"
#include "batch/roster.h"
#include "batch/slurm_plan.h"
#include "gpu_guard.h"
#include "report/batch_writers.h"
#include "report/feedback.h"
#include "report/writers.h"

namespace {

namespace fs = std::filesystem;
using namespace sg::batch;

const std::string kRoot = SG_SOURCE_ROOT;
const std::string kSmoke = kRoot + "/testcases/smoke.yaml";

// A fresh folder per test, removed afterwards.
class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/sg-batch-test-XXXXXX";
    path_ = ::mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& rel) const { return path_ + "/" + rel; }

 private:
  std::string path_;
};

void write_file(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void copy_kernel(const std::string& from_rel, const std::string& to_dir) {
  fs::create_directories(to_dir);
  fs::copy_file(kRoot + "/" + from_rel, to_dir + "/kernel.cu", fs::copy_options::overwrite_existing);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream s(text);
  std::string line;
  while (std::getline(s, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

std::vector<std::string> split_csv_simple(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream s(line);
  std::string cell;
  while (std::getline(s, cell, ',')) cells.push_back(cell);
  if (!line.empty() && line.back() == ',') cells.push_back("");
  return cells;
}

// gradebook.csv as student -> column -> cell (the ids used here need no quoting).
std::map<std::string, std::map<std::string, std::string>> read_gradebook(const std::string& path,
                                                                         std::vector<std::string>* header = nullptr) {
  const auto rows = lines_of(read_file(path));
  std::map<std::string, std::map<std::string, std::string>> out;
  if (rows.empty()) return out;
  const auto cols = split_csv_simple(rows[0]);
  if (header) *header = cols;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto cells = split_csv_simple(rows[i]);
    for (std::size_t c = 0; c < cols.size() && c < cells.size(); ++c) out[cells[0]][cols[c]] = cells[c];
  }
  return out;
}

std::vector<JournalEntry> journal_of(const std::string& dir) {
  std::vector<std::string> warnings;
  return read_journal(dir + "/journal.jsonl", warnings);
}

// The `grade` binary under test (SG_BATCH_GRADE overrides, for running these
// tests against another build of the same program).
std::string grade_binary() {
  if (const char* o = std::getenv("SG_BATCH_GRADE")) return o;
  return std::string(SG_BUILD_DIR) + "/grade";
}

struct RunResult {
  int code = -1;
  std::string output;
};

pid_t spawn_grade(const std::vector<std::string>& args, const std::string& log) {
  std::vector<std::string> all = {grade_binary()};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::FILE* f = std::freopen(log.c_str(), "w", stdout);
    if (f) ::dup2(::fileno(stdout), 2);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

RunResult run_grade(const std::vector<std::string>& args, const TempDir& tmp) {
  const std::string log = tmp / "run.log";
  const pid_t pid = spawn_grade(args, log);
  int status = 0;
  ::waitpid(pid, &status, 0);
  RunResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.output = read_file(log);
  return r;
}

std::vector<std::string> batch_args(const std::string& subs, const std::string& out,
                                    std::vector<std::string> extra = {}) {
  std::vector<std::string> a = {"batch", subs, "--out", out, "--backend", "cpu", "--suite", kSmoke, "--seed", "7"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

// ---------------------------------------------------------------- pieces

TEST(BatchHash, Sha256MatchesPublishedVectors) {
  auto digest = [](const std::string& s) {
    Sha256 h;
    h.update(s);
    return h.hex_digest();
  };
  EXPECT_EQ(digest(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(digest("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(digest("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  // A million 'a's fed in uneven pieces exercises the block buffering.
  Sha256 h;
  const std::string piece(997, 'a');
  std::size_t left = 1000000;
  while (left) {
    const std::size_t n = std::min(left, piece.size());
    h.update(piece.data(), n);
    left -= n;
  }
  EXPECT_EQ(h.hex_digest(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(BatchHash, FollowsContentNotLocationAndIgnoresGit) {
  TempDir tmp;
  write_file(tmp / "a/kernel.cu", "kernel one");
  write_file(tmp / "a/notes/x.txt", "x");
  write_file(tmp / "b/kernel.cu", "kernel one");
  write_file(tmp / "b/notes/x.txt", "x");
  const std::string ha = submission_hash(tmp / "a");
  EXPECT_EQ(ha.rfind("sha256:", 0), 0u);
  EXPECT_EQ(ha, submission_hash(tmp / "b"));
  write_file(tmp / "b/.git/HEAD", "ref: refs/heads/main");
  EXPECT_EQ(ha, submission_hash(tmp / "b")) << ".git must not count";
  write_file(tmp / "b/kernel.cu", "kernel two");
  EXPECT_NE(ha, submission_hash(tmp / "b"));
  // Moving bytes between files is a change, though the concatenation is equal.
  write_file(tmp / "c/p", "ab");
  write_file(tmp / "c/q", "c");
  write_file(tmp / "d/p", "a");
  write_file(tmp / "d/q", "bc");
  EXPECT_NE(submission_hash(tmp / "c"), submission_hash(tmp / "d"));
  EXPECT_THROW(submission_hash(tmp / "nope"), std::runtime_error);
}

// The fingerprints a journal holds stay valid across versions of the grader
// (a resumed batch compares them): these values were computed by the
// hand-written SHA-256 that libmd's replaced, and by Python's hashlib.
TEST(BatchHash, FingerprintsAreStableAcrossVersions) {
  TempDir tmp;
  write_file(tmp / "a/kernel.cu", "kernel one");
  write_file(tmp / "a/notes/x.txt", "x");
  EXPECT_EQ(submission_hash(tmp / "a/kernel.cu"),
            "sha256:3b719d95a8eba3d75d2ad8dd9535ea1fb8eda2098b79537a1b58e75365b573f9");
  EXPECT_EQ(submission_hash(tmp / "a"), "sha256:a9b0d4560e504fbe77e4a954378306a342ae25b5e621204a0a876bce3c893e06");
}

TEST(BatchRoster, PlainFoldersGitClonesAndLooseFiles) {
  TempDir tmp;
  write_file(tmp / "class/zoe/kernel.cu", "z");
  write_file(tmp / "class/amy/src/kernel.cu", "a");
  write_file(tmp / "class/amy/.git/HEAD", "ref");
  write_file(tmp / "class/ben.cu", "b");
  write_file(tmp / "class/.hidden/kernel.cu", "h");
  write_file(tmp / "class/roster.csv", "not a submission");
  const auto subs = discover_submissions(tmp / "class");
  ASSERT_EQ(subs.size(), 3u);
  EXPECT_EQ(subs[0].id, "amy");
  EXPECT_EQ(subs[0].layout, "git");
  EXPECT_EQ(subs[1].id, "ben");
  EXPECT_EQ(subs[1].layout, "file");
  EXPECT_EQ(subs[2].id, "zoe");
  EXPECT_EQ(subs[2].layout, "folder");
  EXPECT_THROW(discover_submissions(tmp / "missing"), RosterError);
}

TEST(BatchRoster, IdsThatSanitiseAlikeKeepFoldersOfTheirOwnButOneIdTwiceIsRefused) {
  TempDir tmp;
  write_file(tmp / "class/a b/kernel.cu", "1");
  write_file(tmp / "class/a_b/kernel.cu", "2");
  const auto subs = discover_submissions(tmp / "class");
  ASSERT_EQ(subs.size(), 2u);
  EXPECT_NE(sg::report_folder(subs[0].id), sg::report_folder(subs[1].id));
  EXPECT_EQ(sg::report_folder("a_b"), "a_b");
  write_file(tmp / "twice/x/kernel.cu", "1");
  write_file(tmp / "twice/x.cu", "2");
  EXPECT_THROW(discover_submissions(tmp / "twice"), RosterError);
}

const char* kMetadata =
    "submission_1001:\n"
    "  :submitters:\n"
    "  - :name: Ada Lovelace\n"
    "    :sid: '1815'\n"
    "    :email: ada@example.edu\n"
    "  :created_at: 2024-03-01 10:00:00.000000000 -08:00\n"
    "  :score: 12.0\n"
    "submission_1002:\n"
    "  :submitters:\n"
    "  - :name: Grace Hopper\n"
    "    :sid: ''\n"
    "    :email: grace@example.edu\n"
    "submission_1003:\n"
    "  :submitters:\n"
    "  - :name: Pair One\n"
    "    :sid: '201'\n"
    "  - :name: Pair Two\n"
    "    :sid: '202'\n";

TEST(BatchRoster, GradescopeExportMapsFoldersToStudents) {
  const auto subs = parse_submission_metadata(kMetadata, "meta.yml");
  ASSERT_EQ(subs.size(), 3u);
  EXPECT_EQ(subs[0].folder, "submission_1001");
  ASSERT_EQ(subs[0].submitters.size(), 1u);
  EXPECT_EQ(subs[0].submitters[0].name, "Ada Lovelace");
  EXPECT_EQ(exported_student_id(subs[0]), "1815");
  EXPECT_EQ(exported_student_id(subs[1]), "grace@example.edu") << "no SID: the email is the id";
  EXPECT_EQ(exported_student_id(subs[2]), "201+202");

  TempDir tmp;
  write_file(tmp / "export/submission_metadata.yml", kMetadata);
  write_file(tmp / "export/submission_1001/kernel.cu", "k");
  write_file(tmp / "export/submission_1002/kernel.cu", "k");
  write_file(tmp / "export/submission_9999/kernel.cu", "not listed");
  const auto roster = discover_submissions(tmp / "export");
  ASSERT_EQ(roster.size(), 3u);
  EXPECT_EQ(roster[0].id, "1815");
  EXPECT_EQ(roster[0].path, tmp / "export/submission_1001");
  EXPECT_EQ(roster[0].email, "ada@example.edu");
  EXPECT_EQ(roster[0].layout, "gradescope");
  EXPECT_EQ(roster[1].id, "201+202");
  EXPECT_EQ(roster[1].name, "Pair One, Pair Two");
  EXPECT_EQ(roster[2].id, "grace@example.edu");
}

TEST(BatchRoster, BadMetadataNamesFileAndLine) {
  try {
    parse_submission_metadata("submission_1:\n  :submitters: [\n", "export/submission_metadata.yml");
    FAIL() << "broken YAML accepted";
  } catch (const RosterError& e) {
    EXPECT_NE(std::string(e.what()).find("export/submission_metadata.yml:"), std::string::npos) << e.what();
  }
  try {
    parse_submission_metadata("submission_1:\n  :submitters: 5\n", "m.yml");
    FAIL() << "a scalar :submitters: accepted";
  } catch (const RosterError& e) {
    EXPECT_NE(std::string(e.what()).find("m.yml:2:"), std::string::npos) << e.what();
  }
}

TEST(BatchRoster, ShardsPartitionTheSortedClass) {
  std::vector<Submission> all;
  for (int i = 0; i < 11; ++i) all.push_back({"s" + std::to_string(100 + i), "", "", "", "folder", {}});
  std::multiset<std::string> seen;
  std::size_t smallest = all.size(), largest = 0;
  for (int i = 0; i < 4; ++i) {
    const auto slice = shard_slice(all, i, 4);
    smallest = std::min(smallest, slice.size());
    largest = std::max(largest, slice.size());
    for (const auto& s : slice) seen.insert(s.id);
    EXPECT_EQ(slice.size(), shard_slice(all, i, 4).size()) << "deterministic";
  }
  EXPECT_EQ(seen.size(), all.size());
  for (const auto& s : all) EXPECT_EQ(seen.count(s.id), 1u) << s.id;
  EXPECT_LE(largest - smallest, 1u);
  EXPECT_TRUE(shard_slice(all, 4, 4).empty());
}

TEST(BatchJournal, RoundTripsAndSurvivesATornLine) {
  TempDir tmp;
  const std::string path = tmp / "journal.jsonl";
  JournalEntry a;
  a.student = "ada \"the\" first\n";
  a.folder = "ada";
  a.hash = "sha256:00";
  a.status = "graded";
  a.score = 7.5;
  a.max = 10;
  a.seconds = 3.25;
  a.finished_at = utc_now();
  append_entry(path, a);
  JournalEntry b = a;
  b.student = "bob";
  b.status = "timeout";
  b.detail = "killed";
  append_entry(path, b);
  {
    std::ofstream torn(path, std::ios::app);
    torn << "{\"student\":\"carl\",\"ha";  // what kill -9 mid-write could leave
  }
  repair_tail(path);
  JournalEntry a2 = a;
  a2.score = 9;
  append_entry(path, a2);

  std::vector<std::string> warnings;
  const auto entries = read_journal(path, warnings);
  ASSERT_EQ(entries.size(), 3u);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find(":3:"), std::string::npos) << warnings[0];
  EXPECT_EQ(entries[0].student, a.student);
  EXPECT_EQ(entries[1].detail, "killed");
  const auto latest = latest_by_student(entries);
  ASSERT_EQ(latest.size(), 2u);
  EXPECT_EQ(latest.at(a.student).score, 9) << "the last entry of a student wins";
  EXPECT_EQ(lines_of(read_file(path)).size(), 4u) << "one entry per line";
}

TEST(BatchSlurm, ScriptRunsOneShardPerArrayTask) {
  SlurmPlan p;
  p.grade_program = "/opt/kit/build/grade";
  p.submissions = "/data/class's subs";
  p.out = "/data/out";
  p.shards = 4;
  p.forwarded = {"--suite", "/opt/kit/testcases/default.yaml", "--backend", "auto"};
  p.sbatch_lines = {"--partition=gpu"};
  const std::string s = sbatch_script(p);
  EXPECT_EQ(s.rfind("#!/bin/bash\n", 0), 0u);
  EXPECT_NE(s.find("#SBATCH --array=0-3\n"), std::string::npos) << s;
  EXPECT_NE(s.find("#SBATCH --gres=gpu:1\n"), std::string::npos) << s;
  EXPECT_NE(s.find("#SBATCH --partition=gpu\n"), std::string::npos) << s;
  EXPECT_NE(s.find("--shard \"${SLURM_ARRAY_TASK_ID}/4\" --resume"), std::string::npos) << s;
  EXPECT_NE(s.find("'/data/class'\\''s subs'"), std::string::npos) << "paths are shell-quoted:\n" << s;
  EXPECT_NE(s.find("'--suite' '/opt/kit/testcases/default.yaml'"), std::string::npos) << s;
  p.request_gpu = false;
  EXPECT_EQ(sbatch_script(p).find("--gres"), std::string::npos);
}

TEST(BatchOptions, RejectsContradictionsWithAClearMessage) {
  auto parse = [](std::vector<std::string> args, std::string& error) {
    args.insert(args.begin(), "batch");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    BatchOptions o;
    const bool ok = sg::parse_batch_args(static_cast<int>(argv.size()), argv.data(), o, error);
    return std::make_pair(ok, o);
  };
  std::string error;
  EXPECT_FALSE(parse({"subs", "--out", "o", "--resume", "--regrade"}, error).first);
  EXPECT_NE(error.find("--regrade"), std::string::npos);
  EXPECT_FALSE(parse({"subs", "--out", "o", "--shard", "3/3"}, error).first);
  EXPECT_NE(error.find("--shard"), std::string::npos);
  EXPECT_FALSE(parse({"subs", "--out", "o", "--gpus", "0,x"}, error).first);
  EXPECT_NE(error.find("0,x"), std::string::npos);
  EXPECT_FALSE(parse({"subs"}, error).first);
  EXPECT_NE(error.find("--out"), std::string::npos);
  auto [ok, o] = parse({"subs", "--out", "o", "--gpus", "1,0", "--shard", "2/5", "--jobs", "3"}, error);
  ASSERT_TRUE(ok) << error;
  EXPECT_EQ(*o.gpus, (std::vector<int>{1, 0}));
  EXPECT_EQ(o.shard_index, 2);
  EXPECT_EQ(o.shard_count, 5);
  EXPECT_EQ(o.jobs, 3);
  auto merged = parse({"--merge", "dir"}, error);
  ASSERT_TRUE(merged.first) << error;
  EXPECT_EQ(merged.second.out, "dir");
}

TEST(BatchGpus, ChildSeesOnlyItsGpu) {
  EXPECT_EQ(child_visible_devices(1, nullptr), "1");
  EXPECT_EQ(child_visible_devices(1, "4,6"), "6") << "index into the parent's own list";
  EXPECT_EQ(child_visible_devices(0, "GPU-abc,GPU-def"), "GPU-abc");
  std::string error;
  EXPECT_EQ(choose_gpus(std::nullopt, 3, error), (std::vector<int>{0, 1, 2}));
  EXPECT_TRUE(choose_gpus(std::vector<int>{2}, 2, error).empty());
  EXPECT_NE(error.find("GPU 2"), std::string::npos) << error;
}

// A stand-in worker (cli/grade_worker.h's protocol) as a shell script: for
// each job line on descriptor 3 it runs `body` (with $job the line, $log its
// log file), then answers on descriptor 4 with `reply`.
std::string shell_worker(const TempDir& tmp, const std::string& body, const std::string& reply) {
  const std::string path = tmp / "worker.sh";
  write_file(path, "#!/bin/sh\nwhile IFS= read -r job <&3; do\n"
                   "  log=$(printf '%s' \"$job\" | sed 's/.*\"log\":\"\\([^\"]*\\)\".*/\\1/')\n" +
                       body + "\n  echo '" + reply + "' >&4\ndone\n");
  fs::permissions(path, fs::perms::owner_all);
  return path;
}

GradeJob pool_job(const TempDir& tmp, const std::string& worker, std::size_t index, int slot = 0) {
  GradeJob job;
  job.index = index;
  job.slot = slot;
  job.worker = {worker};
  job.env = {"PATH=/usr/bin:/bin"};
  job.args = {"--student", "s" + std::to_string(index)};
  job.log_file = tmp / ("log" + std::to_string(index) + ".txt");
  job.time_limit_s = 20;
  return job;
}

// Waits (up to 20 s) for the next gradings to end.
std::vector<FinishedJob> next_done(GradePool& pool) {
  std::vector<FinishedJob> done;
  const auto t0 = std::chrono::steady_clock::now();
  while (done.empty() && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(20)) done = pool.wait(1.0);
  return done;
}

TEST(BatchPool, ASlotsGradingsGoToOneWorkerEachWithItsOwnLog) {
  TempDir tmp;
  // Each grading writes the worker's pid and the grading's arguments into its own log.
  const std::string worker =
      shell_worker(tmp, "  echo \"pid $$ job $job\" > \"$log\"", "{\"code\":0,\"ends\":false}");
  std::vector<std::string> pids;
  {
    GradePool pool(3);
    for (std::size_t i = 0; i < 4; ++i) {
      pool.start(pool_job(tmp, worker, i));
      const std::vector<FinishedJob> done = next_done(pool);
      ASSERT_EQ(done.size(), 1u);
      EXPECT_EQ(done[0].index, i);
      EXPECT_TRUE(done[0].exited && done[0].code == 0) << done[0].describe();
      const std::string log = read_file(tmp / ("log" + std::to_string(i) + ".txt"));
      EXPECT_NE(log.find("\"s" + std::to_string(i) + "\""), std::string::npos) << log;
      pids.push_back(log.substr(0, log.find(" job")));
    }
  }  // the pool ends: its idle worker is told to end, and does
  EXPECT_EQ(pids[0], pids[1]) << "one worker for the slot's gradings";
  EXPECT_EQ(pids[1], pids[2]);
  EXPECT_NE(pids[2], pids[3]) << "a fresh worker after gradings_per_worker (3)";
  for (const std::string& p : pids) {
    const pid_t pid = std::atoi(p.substr(4).c_str());
    ASSERT_GT(pid, 0) << p;
    EXPECT_NE(::kill(pid, 0), 0) << "worker " << pid << " outlived its pool";
  }
}

TEST(BatchPool, AWorkerThatEndsItselfOrDiesTakesOnlyItsGrading) {
  TempDir tmp;
  // Grading s0 answers "ends" (an internal error); s1 dies without an answer; s2 answers.
  const std::string body =
      "  echo \"pid $$\" > \"$log\"\n"
      "  case \"$job\" in *'\"s0\"'*) echo '{\"code\":3,\"ends\":true}' >&4; exit 0;; *'\"s1\"'*) kill -9 $$;; esac";
  const std::string worker = shell_worker(tmp, body, "{\"code\":0,\"ends\":false}");
  GradePool pool;
  std::vector<FinishedJob> done;
  pool.start(pool_job(tmp, worker, 0));
  done = next_done(pool);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_TRUE(done[0].exited && done[0].code == 3) << done[0].describe();
  pool.start(pool_job(tmp, worker, 1));
  done = next_done(pool);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_FALSE(done[0].exited) << done[0].describe();
  EXPECT_EQ(done[0].signal, SIGKILL) << done[0].describe();
  pool.start(pool_job(tmp, worker, 2));
  done = next_done(pool);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_TRUE(done[0].exited && done[0].code == 0) << done[0].describe();
  const std::string pid0 = read_file(tmp / "log0.txt"), pid1 = read_file(tmp / "log1.txt"),
                    pid2 = read_file(tmp / "log2.txt");
  EXPECT_NE(pid0, pid1) << "a worker that ended itself is not sent another grading";
  EXPECT_NE(pid1, pid2) << "nor is a dead one";
}

TEST(BatchPool, KillsAWorkerPastItsGradingsLimitAndWhatItLeftBehind) {
  TempDir tmp;
  // The grading starts a grandchild in the background, records its pid, and hangs.
  const std::string worker =
      shell_worker(tmp, "  sleep 60 & echo $! > " + (tmp / "bg.pid") + "; sleep 60", "{\"code\":0,\"ends\":false}");
  GradePool pool;
  GradeJob job = pool_job(tmp, worker, 7);
  job.time_limit_s = 0.5;
  pool.start(job);
  const std::vector<FinishedJob> done = next_done(pool);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].index, 7u);
  EXPECT_TRUE(done[0].timed_out) << done[0].describe();
  EXPECT_NE(done[0].describe().find("timed out"), std::string::npos);
  const pid_t bg = std::atoi(read_file(tmp / "bg.pid").c_str());
  ASSERT_GT(bg, 0);
  for (int i = 0; i < 100 && ::kill(bg, 0) == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_NE(::kill(bg, 0), 0) << "the background child outlived its worker";

  GradeJob missing = job;
  missing.worker = {tmp / "no-such-program"};
  pool.start(missing);
  const std::vector<FinishedJob> failed = pool.wait(1.0);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_TRUE(failed[0].spawn_failed);
  EXPECT_NE(failed[0].describe().find("no-such-program"), std::string::npos) << failed[0].describe();
}

TEST(BatchPool, AWorkerStartedByHandSaysWhatItIs) {
  TempDir tmp;
  const RunResult r = run_grade({"worker"}, tmp);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("grade batch starts this"), std::string::npos) << r.output;
}

// ---------------------------------------------------------------- end to end

// Four students: the reference, the handout skeleton (builds, computes nothing),
// a compile error and a folder with no kernel.cu.
void make_plain_class(const std::string& dir) {
  copy_kernel("reference/kernel.cu", dir + "/alice");
  copy_kernel("student/kernel.cu", dir + "/bob");
  copy_kernel("grader/samples/bugs/compile_error/kernel.cu", dir + "/carol");
  write_file(dir + "/dave/README.txt", "forgot the kernel");
}

TEST(BatchEndToEnd, GradesAClassAndRefusesToOverwriteIt) {
  TempDir tmp;
  make_plain_class(tmp / "class");
  const std::string out = tmp / "out";
  const RunResult r = run_grade(batch_args(tmp / "class", out, {"--jobs", "2"}), tmp);
  ASSERT_EQ(r.code, 0) << r.output;

  std::vector<std::string> header;
  auto book = read_gradebook(out + "/gradebook.csv", &header);
  ASSERT_GE(header.size(), 5u);
  EXPECT_EQ(std::vector<std::string>(header.begin(), header.begin() + 5),
            (std::vector<std::string>{"student", "total", "max", "status", "gflops"}));
  for (const char* test : {"square_64", "odd_45x37x29", "k_is_1", "small_integers_exact", "structure"})
    EXPECT_NE(std::find(header.begin(), header.end(), test), header.end()) << test;
  ASSERT_EQ(book.size(), 4u) << read_file(out + "/gradebook.csv");
  EXPECT_EQ(book["alice"]["total"], "10");
  EXPECT_EQ(book["alice"]["max"], "10");
  EXPECT_EQ(book["alice"]["status"], "graded");
  EXPECT_EQ(book["alice"]["odd_45x37x29"], "3");
  EXPECT_EQ(book["bob"]["total"], "0");
  EXPECT_EQ(book["bob"]["status"], "graded");
  EXPECT_EQ(book["carol"]["status"], "compile error");
  EXPECT_EQ(book["dave"]["status"], "invalid submission");
  EXPECT_EQ(book["dave"]["max"], "10");

  for (const char* s : {"alice", "bob", "carol", "dave"})
    for (const char* f : {"results.json", "report.md", "report.html", "junit.xml", "grade-result.json", "grade.log"})
      EXPECT_TRUE(fs::exists(out + "/" + s + "/" + f)) << s << "/" << f;
  const auto entries = journal_of(out);
  ASSERT_EQ(entries.size(), 4u);
  for (const auto& e : entries) {
    EXPECT_EQ(e.hash, submission_hash(tmp / ("class/" + e.student))) << e.student;
    EXPECT_FALSE(e.finished_at.empty());
  }
  const std::string html = read_file(out + "/summary.html");
  for (const char* s : {"alice/report.html", "bob/report.html", "carol/report.html", "dave/report.html"})
    EXPECT_NE(html.find(s), std::string::npos) << s;

  const std::string before = read_file(out + "/journal.jsonl");
  const RunResult again = run_grade(batch_args(tmp / "class", out), tmp);
  EXPECT_EQ(again.code, 2) << again.output;
  EXPECT_NE(again.output.find("--resume"), std::string::npos) << again.output;
  EXPECT_EQ(read_file(out + "/journal.jsonl"), before) << "a refused run must change nothing";
}

// One worker (--jobs 1) grades the whole class, one submission after another:
// each grading's output is in its own grade.log and nowhere else, the
// scores are those of the class graded two at a time.
TEST(BatchEndToEnd, OneWorkerGradesTheClassEachGradingInItsOwnLog) {
  TempDir tmp;
  make_plain_class(tmp / "class");
  copy_kernel("reference/kernel.cu", tmp / "class/erin");
  const std::string out = tmp / "out";
  const RunResult r = run_grade(batch_args(tmp / "class", out, {"--jobs", "1"}), tmp);
  ASSERT_EQ(r.code, 0) << r.output;
  auto book = read_gradebook(out + "/gradebook.csv");
  EXPECT_EQ(book["alice"]["total"], "10");
  EXPECT_EQ(book["erin"]["total"], "10") << read_file(out + "/erin/grade.log");
  EXPECT_EQ(book["bob"]["total"], "0");
  EXPECT_EQ(book["carol"]["status"], "compile error");
  const std::vector<std::string> graded = {"alice", "bob", "carol", "erin"};
  for (const std::string& s : graded) {
    const std::string log = read_file(out + "/" + s + "/grade.log");
    EXPECT_EQ(log.rfind("grade:   0.00s started at", 0), 0u) << s << ":\n" << log;
    EXPECT_NE(log.find("reports written to " + out + "/" + s + "/"), std::string::npos) << s << ":\n" << log;
    for (const std::string& other : graded) {
      if (other == s) continue;
      EXPECT_EQ(log.find(out + "/" + other + "/"), std::string::npos) << s << " has " << other;
    }
  }
}

// On a GPU the batch tells each grade process the GPU's architecture, which
// builds at once (no second build) and still reports the device it ran on.
// Ids that would take the class's own file names or each other's folder:
// everyone is graded, each into a folder of their own, the class outputs stay
// what they are, and an honest victim scores what it scores alone.
TEST(BatchEndToEnd, IdsCannotTakeClassFilesOrEachOthersFolder) {
  TempDir tmp;
  for (const char* id : {"similarity.csv", "gradebook.csv", "jane+doe@uni.edu", "jane_doe@uni.edu", "victim"})
    copy_kernel("reference/kernel.cu", tmp / (std::string("class/") + id));
  const std::string out = tmp / "out";
  const RunResult r = run_grade(batch_args(tmp / "class", out, {"--jobs", "2"}), tmp);
  ASSERT_EQ(r.code, 0) << r.output;
  auto book = read_gradebook(out + "/gradebook.csv");
  ASSERT_EQ(book.size(), 5u) << read_file(out + "/gradebook.csv");
  for (const char* id : {"similarity.csv", "gradebook.csv", "jane+doe@uni.edu", "jane_doe@uni.edu", "victim"}) {
    EXPECT_EQ(book[id]["status"], "graded") << id;
    EXPECT_EQ(book[id]["total"], book[id]["max"]) << id;
    EXPECT_TRUE(fs::exists(out + "/" + sg::report_folder(id) + "/report.html")) << id;
  }
  EXPECT_TRUE(fs::is_regular_file(out + "/similarity.csv"));
  EXPECT_EQ(read_file(out + "/similarity.csv").rfind("kind,student_a,student_b,similarity", 0), 0u);
  EXPECT_NE(sg::report_folder("jane+doe@uni.edu"), sg::report_folder("jane_doe@uni.edu"));
  // The victim, graded alone, scores the same.
  const RunResult alone = run_grade({"--backend", "cpu", "--suite", kSmoke, "--seed", "7", "--quiet", "--out",
                                     tmp / "alone", tmp / "class/victim/kernel.cu"}, tmp);
  ASSERT_EQ(alone.code, 0) << alone.output;
  const nlohmann::json solo = nlohmann::json::parse(read_file(tmp / "alone/results.json"));
  EXPECT_EQ(sg::report::num(solo["score"].get<double>(), 2), book["victim"]["total"]);
  // The summary says where the renamed ones went.
  const std::string html = read_file(out + "/summary.html");
  for (const char* id : {"similarity.csv", "jane+doe@uni.edu", "jane_doe@uni.edu"})
    EXPECT_NE(html.find(sg::report_folder(id) + "/</code>"), std::string::npos) << id;
  EXPECT_EQ(html.find("victim &#8594;"), std::string::npos) << "an id that is its own folder is not listed";
}

TEST(BatchEndToEnd, GradesOnTheGpuWithItsArchitecturePassedDown) {
  SG_REQUIRE_GPU();
  TempDir tmp;
  make_plain_class(tmp / "class");
  const std::string out = tmp / "out";
  std::vector<std::string> args = batch_args(tmp / "class", out, {"--jobs", "2"});
  *std::find(args.begin(), args.end(), "cpu") = "gpu";
  const RunResult r = run_grade(args, tmp);
  ASSERT_EQ(r.code, 0) << r.output;
  auto book = read_gradebook(out + "/gradebook.csv");
  EXPECT_EQ(book["alice"]["status"], "graded");
  EXPECT_EQ(book["alice"]["total"], book["alice"]["max"]) << read_file(out + "/alice/report.md");
  EXPECT_EQ(book["bob"]["status"], "graded");
  EXPECT_EQ(book["carol"]["status"], "compile error");
  const std::string log = read_file(out + "/alice/grade.log");
  EXPECT_EQ(log.find("building again"), std::string::npos) << log;
  const nlohmann::json res = nlohmann::json::parse(read_file(out + "/alice/results.json"));
  const std::string device = res["extra_data"].value("device", "");
  EXPECT_NE(device.find("(sm_"), std::string::npos) << device;
  EXPECT_EQ(device.find("CUDA device"), std::string::npos) << "the placeholder name was reported: " << device;
}

// On a GPU a worker's later grading uses the judge's CUDA context its first
// one started, and grades as the first did: full marks, and the structure
// check's launch counted by the GPU's counters in both (the counter's
// profiler session is made and ended again in the one process).
TEST(BatchEndToEnd, AWorkersLaterGradingKeepsTheJudgesContextOnTheGpu) {
  SG_REQUIRE_GPU();
  TempDir tmp;
  copy_kernel("reference/kernel.cu", tmp / "class/alice");
  copy_kernel("reference/kernel.cu", tmp / "class/erin");
  const std::string out = tmp / "out";
  std::vector<std::string> args = batch_args(tmp / "class", out, {"--jobs", "1"});
  *std::find(args.begin(), args.end(), "cpu") = "gpu";
  const RunResult r = run_grade(args, tmp);
  ASSERT_EQ(r.code, 0) << r.output;
  auto book = read_gradebook(out + "/gradebook.csv");
  int kept = 0;
  for (const char* s : {"alice", "erin"}) {
    const std::string log = read_file(out + "/" + s + "/grade.log");
    EXPECT_EQ(book[s]["total"], book[s]["max"]) << log;
    kept += log.find("kept from this worker's last grading") != std::string::npos;
    const nlohmann::json res = nlohmann::json::parse(read_file(out + "/" + s + "/results.json"));
    for (const nlohmann::json& t : res["extra_data"]["tests"]) {
      if (t["name"] != "structure") continue;
      EXPECT_EQ(t["reuse"]["source"], "pm-sampling") << s << "\n" << log;
    }
  }
  EXPECT_EQ(kept, 1) << "the second grading, and only it, uses the first one's context";
}

// Processes whose command line mentions `needle` (e.g. a batch's out folder).
int processes_mentioning(const std::string& needle) {
  int n = 0;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmd = read_file(e.path().string() + "/cmdline");
    for (char& c : cmd) if (c == '\0') c = ' ';
    if (cmd.find(needle) != std::string::npos) ++n;
  }
  return n;
}

std::vector<std::string> students_of(const std::vector<JournalEntry>& entries, std::size_t from) {
  std::vector<std::string> out;
  for (std::size_t i = from; i < entries.size(); ++i) out.push_back(entries[i].student);
  std::sort(out.begin(), out.end());
  return out;
}

TEST(BatchEndToEnd, ResumesAfterKillMinus9AndRegradesChanges) {
  TempDir tmp;
  const std::string subs = tmp / "class", out = tmp / "out";
  copy_kernel("grader/samples/bugs/compile_error/kernel.cu", subs + "/a_broken");
  write_file(subs + "/b_empty/notes.txt", "nothing yet");
  copy_kernel("student/kernel.cu", subs + "/c_skeleton");  // takes seconds: killed while it runs
  copy_kernel("grader/samples/bugs/compile_error/kernel.cu", subs + "/d_broken");

  const pid_t batch = spawn_grade(batch_args(subs, out, {"--jobs", "1"}), tmp / "killed.log");
  const auto t0 = std::chrono::steady_clock::now();
  while (journal_of(out).size() < 2 && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(60))
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ::kill(batch, SIGKILL);
  int status = 0;
  ::waitpid(batch, &status, 0);
  // The grade process that was running dies with the batch (no stray grader
  // keeps writing into the folder the resumed batch will use).
  for (int i = 0; i < 100 && processes_mentioning(out + "/") > 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(processes_mentioning(out + "/"), 0);
  const auto first = journal_of(out);
  ASSERT_EQ(first.size(), 2u) << read_file(tmp / "killed.log");
  EXPECT_EQ(students_of(first, 0), (std::vector<std::string>{"a_broken", "b_empty"}));

  RunResult r = run_grade(batch_args(subs, out, {"--resume"}), tmp);
  ASSERT_EQ(r.code, 0) << r.output;
  auto entries = journal_of(out);
  EXPECT_EQ(students_of(entries, first.size()), (std::vector<std::string>{"c_skeleton", "d_broken"}))
      << "only the unfinished submissions are graded again";
  EXPECT_EQ(read_gradebook(out + "/gradebook.csv").size(), 4u);

  // b hands in a kernel: only b is graded again.
  copy_kernel("grader/samples/bugs/compile_error/kernel.cu", subs + "/b_empty");
  std::size_t mark = entries.size();
  r = run_grade(batch_args(subs, out, {"--resume"}), tmp);
  ASSERT_EQ(r.code, 0) << r.output;
  entries = journal_of(out);
  EXPECT_EQ(students_of(entries, mark), (std::vector<std::string>{"b_empty"}));
  EXPECT_EQ(read_gradebook(out + "/gradebook.csv")["b_empty"]["status"], "compile error");

  // Nothing changed: a resume grades nothing.
  mark = entries.size();
  r = run_grade(batch_args(subs, out, {"--resume"}), tmp);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(journal_of(out).size(), mark);

  r = run_grade(batch_args(subs, out, {"--regrade"}), tmp);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(students_of(journal_of(out), mark),
            (std::vector<std::string>{"a_broken", "b_empty", "c_skeleton", "d_broken"}));
}

TEST(BatchEndToEnd, GradescopeExportAndGitClones) {
  TempDir tmp;
  write_file(tmp / "export/submission_metadata.yml", kMetadata);
  copy_kernel("grader/samples/bugs/compile_error/kernel.cu", tmp / "export/submission_1001");
  write_file(tmp / "export/submission_1002/notes.txt", "no kernel");
  // submission_1003 is listed but missing from the export: still a row.
  RunResult r = run_grade(batch_args(tmp / "export", tmp / "gs", {"--export", "canvas", "--title", "SGEMM"}), tmp);
  ASSERT_EQ(r.code, 0) << r.output;
  auto book = read_gradebook(tmp / "gs/gradebook.csv");
  ASSERT_EQ(book.size(), 3u) << read_file(tmp / "gs/gradebook.csv");
  EXPECT_EQ(book["1815"]["status"], "compile error");
  EXPECT_EQ(book["grace@example.edu"]["status"], "invalid submission");
  EXPECT_EQ(book["201+202"]["status"], "invalid submission");
  // The pair's id holds a '+', so its folder is "201_202" and a suffix of its own (report_folder).
  const std::string pair = sg::report_folder("201+202");
  EXPECT_EQ(pair.rfind("201_202-", 0), 0u) << pair;
  EXPECT_TRUE(fs::exists(tmp / ("gs/" + pair + "/report.md")));
  EXPECT_TRUE(fs::exists(tmp / ("gs/" + pair + "/report.html")));

  // Canvas's import, column by column: one row per person (the pair gets two),
  // matched on SIS User ID (the SID) or SIS Login ID (the email).
  const auto canvas = lines_of(read_file(tmp / "gs/canvas.csv"));
  const std::string max = book["1815"]["max"];
  const std::vector<std::vector<std::string>> expected = {
      {"Student", "ID", "SIS User ID", "SIS Login ID", "Section", "SGEMM"},
      {"Points Possible", "", "", "", "", max},
      {"Ada Lovelace", "", "1815", "ada@example.edu", "", "0"},  // in the gradebook's order of ids
      {"Pair One", "", "201", "", "", "0"},
      {"Pair Two", "", "202", "", "", "0"},
      {"Grace Hopper", "", "", "grace@example.edu", "", "0"}};
  ASSERT_EQ(canvas.size(), expected.size()) << read_file(tmp / "gs/canvas.csv");
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const auto cells = split_csv_simple(canvas[i]);
    ASSERT_EQ(cells.size(), expected[i].size()) << canvas[i];
    for (std::size_t c = 0; c < cells.size(); ++c)
      EXPECT_EQ(cells[c], expected[i][c]) << "row " << i << ", column " << expected[0][c];
  }
  EXPECT_EQ(read_file(tmp / "gs/canvas.csv").find("\r\n"), canvas[0].size()) << "CRLF line ends";
  // members.csv: the same people with their shared submission's id.
  const auto members = lines_of(read_file(tmp / "gs/members.csv"));
  ASSERT_EQ(members.size(), 5u);
  EXPECT_EQ(split_csv_simple(members[0]),
            (std::vector<std::string>{"student", "name", "sid", "email", "total", "max", "status"}));
  EXPECT_EQ(split_csv_simple(members[2]),
            (std::vector<std::string>{"201+202", "Pair One", "201", "", "0", max, "invalid submission"}));
  EXPECT_EQ(split_csv_simple(members[3])[1], "Pair Two");

  // A folder of clones: kernel.cu sits below the top, .git holds history.
  copy_kernel("grader/samples/bugs/compile_error/kernel.cu", tmp / "clones/eve/src");
  write_file(tmp / "clones/eve/.git/HEAD", "ref: refs/heads/main\n");
  write_file(tmp / "clones/finn/.git/HEAD", "ref: refs/heads/main\n");
  write_file(tmp / "clones/finn/README.md", "empty repository");
  r = run_grade(batch_args(tmp / "clones", tmp / "git"), tmp);
  ASSERT_EQ(r.code, 0) << r.output;
  book = read_gradebook(tmp / "git/gradebook.csv");
  ASSERT_EQ(book.size(), 2u);
  EXPECT_EQ(book["eve"]["status"], "compile error") << "kernel.cu found inside the clone";
  EXPECT_EQ(book["finn"]["status"], "invalid submission");
}

TEST(BatchEndToEnd, OnlyRegradesTheNamedStudents) {
  TempDir tmp;
  const std::string subs = tmp / "class", out = tmp / "out";
  for (const char* id : {"a", "b", "c"}) copy_kernel("grader/samples/bugs/compile_error/kernel.cu", subs + "/" + id);
  RunResult r = run_grade(batch_args(subs, out), tmp);
  ASSERT_EQ(r.code, 0) << r.output;
  const std::string before = read_file(out + "/journal.jsonl");
  ASSERT_EQ(lines_of(before).size(), 3u);
  // Three copies of one kernel: every pair is listed as identical, on the page too.
  const auto similar = lines_of(read_file(out + "/similarity.csv"));
  ASSERT_EQ(similar.size(), 4u) << read_file(out + "/similarity.csv");
  EXPECT_EQ(similar[1], "identical,a,b,1");
  EXPECT_NE(read_file(out + "/summary.html").find("<td>identical</td><td>b</td><td>c</td>"), std::string::npos);
  // b fixes the bug; a changes too but is not named, so keeps its old result.
  copy_kernel("student/kernel.cu", subs + "/b");
  copy_kernel("student/kernel.cu", subs + "/a");
  r = run_grade(batch_args(subs, out, {"--only", "b"}), tmp);
  ASSERT_EQ(r.code, 0) << r.output;
  const std::string after = read_file(out + "/journal.jsonl");
  EXPECT_EQ(after.substr(0, before.size()), before) << "the earlier lines are untouched";
  const std::vector<JournalEntry> entries = journal_of(out);
  ASSERT_EQ(entries.size(), 4u) << after;
  EXPECT_EQ(entries[3].student, "b") << "one new line, for b only";
  const auto book = read_gradebook(out + "/gradebook.csv");
  EXPECT_EQ(book.at("b").at("status"), "graded") << "class outputs rebuilt with b's new result";
  EXPECT_EQ(book.at("a").at("status"), "compile error");
  EXPECT_EQ(book.at("c").at("status"), "compile error");
  // A name that is not in the class is refused, and nothing changes.
  r = run_grade(batch_args(subs, out, {"--only", "zoe"}), tmp);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("no student 'zoe'"), std::string::npos) << r.output;
  EXPECT_EQ(read_file(out + "/journal.jsonl"), after);
}

// The similarity pass compares the kernel.cu each grading graded. A copier
// hides an identical copy behind decoys that come first in path order (a
// dot-folder, __MACOSX); a framer links an innocent student's kernel.cu into
// their own folder. The copy is found, the innocent student is not listed,
// and a student whose files changed since their grading is left out.
TEST(BatchEndToEnd, SimilarityComparesTheGradedFiles) {
  TempDir tmp;
  const std::string subs = tmp / "class", out = tmp / "out";
  // Distinct kernels that stop at the compiler: quick to grade, still compared.
  const std::string mine = read_file(kRoot + "/reference/kernel.cu") + "\n#error stop here\n";
  const std::string other = read_file(kRoot + "/reference/naive.cu") + "\n#error stop here\n";
  write_file(subs + "/alice/kernel.cu", mine);
  write_file(subs + "/bob/kernel.cu", mine);
  write_file(subs + "/bob/.old/kernel.cu", other);
  write_file(subs + "/bob/__MACOSX/kernel.cu", other);
  write_file(subs + "/mallory/kernel.cu", other);
  fs::create_directories(subs + "/mallory/a");
  fs::create_symlink(subs + "/alice/kernel.cu", subs + "/mallory/a/kernel.cu");
  RunResult r = run_grade(batch_args(subs, out), tmp);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(lines_of(read_file(out + "/similarity.csv")),
            (std::vector<std::string>{"kind,student_a,student_b,similarity", "identical,alice,bob,1"}))
      << "the copy behind the decoys is found; the framed student is not listed";
  const auto book = read_gradebook(out + "/gradebook.csv");
  for (const char* id : {"alice", "bob", "mallory"}) EXPECT_EQ(book.at(id).at("status"), "compile error") << id;

  // mallory now holds alice's kernel but was graded on another: not compared.
  write_file(subs + "/mallory/kernel.cu", mine);
  r = run_grade(batch_args(subs, out, {"--only", "bob"}), tmp);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(lines_of(read_file(out + "/similarity.csv")),
            (std::vector<std::string>{"kind,student_a,student_b,similarity", "identical,alice,bob,1"}));
  EXPECT_NE(read_file(out + "/summary.html").find("<li>mallory: its files changed since it was graded</li>"),
            std::string::npos);
}

TEST(BatchEndToEnd, CrashedAndHungGradersDoNotStopTheBatch) {
  TempDir tmp;
  // A stand-in worker: hangs for one student, crashes for the other.
  const std::string fake = tmp / "fake-grade";
  write_file(fake,
             "#!/bin/sh\n[ \"$1\" = worker ] || exit 9\nIFS= read -r job <&3\n"
             "case \"$job\" in *slow*) exec sleep 60;; esac\n"
             "log=$(printf '%s' \"$job\" | sed 's/.*\"log\":\"\\([^\"]*\\)\".*/\\1/')\n"
             "echo 'grade: exploded' >> \"$log\"\nexit 3\n");
  fs::permissions(fake, fs::perms::owner_all);
  write_file(tmp / "class/crash/kernel.cu", "x");
  write_file(tmp / "class/slow/kernel.cu", "y");
  const auto t0 = std::chrono::steady_clock::now();
  const RunResult r = run_grade(batch_args(tmp / "class", tmp / "out", {"--grader", fake, "--time-limit", "1"}), tmp);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30));
  auto book = read_gradebook(tmp / "out/gradebook.csv");
  EXPECT_EQ(book["crash"]["status"], "internal error");
  EXPECT_EQ(book["slow"]["status"], "timeout");
  EXPECT_EQ(book["slow"]["total"], "0");
  EXPECT_EQ(book["slow"]["max"], "10") << "max comes from the suite";
  const auto entries = latest_by_student(journal_of(tmp / "out"));
  EXPECT_NE(entries.at("crash").detail.find("exploded"), std::string::npos) << entries.at("crash").detail;
  EXPECT_NE(read_file(tmp / "out/slow/report.md").find("timeout"), std::string::npos);
}

TEST(BatchEndToEnd, ShardsMergeIntoOneGradebook) {
  TempDir tmp;
  const std::string subs = tmp / "class", out = tmp / "out";
  for (const char* s : {"s1", "s2", "s3"})
    copy_kernel("grader/samples/bugs/compile_error/kernel.cu", subs + "/" + s);
  write_file(subs + "/s4/notes.txt", "no kernel");

  RunResult r = run_grade(batch_args(subs, out, {"--slurm", "2", "--sbatch", "--time=01:00:00"}), tmp);
  ASSERT_EQ(r.code, 0) << r.output;
  const std::string script = read_file(out + "/grade_batch.sbatch");
  EXPECT_NE(script.find("#SBATCH --array=0-1"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --time=01:00:00"), std::string::npos) << script;
  EXPECT_EQ(script.find("--gres"), std::string::npos) << "the cpu backend asks for no GPU";
  EXPECT_NE(script.find(subs), std::string::npos);
  EXPECT_FALSE(fs::exists(out + "/journal.jsonl")) << "--slurm grades nothing";

  // What each array task runs.
  for (const char* shard : {"0/2", "1/2"}) {
    r = run_grade(batch_args(subs, out, {"--shard", shard, "--resume"}), tmp);
    ASSERT_EQ(r.code, 0) << r.output;
  }
  EXPECT_EQ(journal_of(out + "/shards/0").size(), 2u);
  EXPECT_EQ(journal_of(out + "/shards/1").size(), 2u);
  EXPECT_EQ(read_gradebook(out + "/shards/1/gradebook.csv").count("s3"), 1u) << "sorted ids: s3, s4 in shard 1";

  r = run_grade({"batch", "--merge", out}, tmp);
  ASSERT_EQ(r.code, 0) << r.output;
  auto book = read_gradebook(out + "/gradebook.csv");
  ASSERT_EQ(book.size(), 4u) << read_file(out + "/gradebook.csv");
  EXPECT_EQ(book["s1"]["status"], "compile error");
  EXPECT_EQ(book["s4"]["status"], "invalid submission");
  EXPECT_EQ(journal_of(out).size(), 4u);
  EXPECT_TRUE(fs::exists(out + "/s3/report.md")) << "reports copied up so the summary links resolve";

  // A student no shard graded still gets a row (and a warning).
  copy_kernel("grader/samples/bugs/compile_error/kernel.cu", subs + "/s5");
  r = run_grade({"batch", "--merge", out}, tmp);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("s5"), std::string::npos) << r.output;
  book = read_gradebook(out + "/gradebook.csv");
  EXPECT_EQ(book["s5"]["status"], "internal error");
}

}  // namespace
