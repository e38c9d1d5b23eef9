// grader/ci/course_ci.sh, the course CI of the kit itself: the real kit passes
// every row on the CPU backend, and copies of the kit with a known fault fail
// the row that guards against it.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "shell_run.h"

namespace fs = std::filesystem;

namespace {

using sg::test::read_file;
using sg::test::shell_quote;
using sg::test::run_shell;
using sg::test::ShellRun;

const fs::path kKit = SG_SOURCE_ROOT;
const fs::path kGrade = fs::path(SG_BUILD_DIR) / "grade";

// A private temp folder, removed with the test.
class TempDir {
 public:
  TempDir() {
    std::string t = (fs::temp_directory_path() / "sg-course-ci-test-XXXXXX").string();
    if (::mkdtemp(t.data())) path_ = t;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Runs the CI script of the real kit with `args`, the CPU backend forced.
ShellRun run_ci(const std::string& args, const fs::path& scratch, int timeout_s) {
  return run_shell("cd " + shell_quote(kKit.string()) + " && GRADE=" + shell_quote(kGrade.string()) +
                       " bash grader/ci/course_ci.sh --backend cpu " + args,
                   scratch / "ci.log", timeout_s);
}

// The table row for `check`: its result word ("PASS"/"FAIL") and note, or "" when absent.
std::string row_result(const std::string& output, const std::string& check, std::string* note = nullptr) {
  std::istringstream lines(output);
  std::string line;
  const std::string prefix = "  " + check + " ";
  while (std::getline(lines, line)) {
    if (line.rfind(prefix, 0) != 0) continue;
    std::smatch m;
    static const std::regex cells(R"(^  .*?\s+(PASS|FAIL)\s*(.*)$)");
    if (!std::regex_match(line, m, cells)) return "?";
    if (note) *note = m[2];
    return m[1];
  }
  return "";
}

// A copy of the files the handout check reads: the Makefile, student/,
// reference/kernel.cu, and what `make handout` packs besides the student files
// (grader/handout/, the grader's sources, the CUDA-on-CPU layer, the suites).
void copy_kit_for_handout(const fs::path& to) {
  fs::create_directories(to / "reference");
  fs::create_directories(to / "grader");
  fs::copy_file(kKit / "Makefile", to / "Makefile");
  fs::copy_file(kKit / "reference" / "kernel.cu", to / "reference" / "kernel.cu");
  for (const char* dir : {"grader/handout", "grader/src", "grader/cudacpu", "testcases"})
    fs::copy(kKit / dir, to / dir, fs::copy_options::recursive);
  for (const auto& e : fs::recursive_directory_iterator(kKit / "student")) {
    const fs::path rel = fs::relative(e.path(), kKit / "student");
    const std::string n = e.path().filename().string();
    if (!e.is_regular_file() || e.path().extension() == ".o" || n == "sgemm" || n == "report.md" ||
        rel.begin()->string() == "build")
      continue;
    fs::create_directories((to / "student" / rel).parent_path());
    fs::copy_file(e.path(), to / "student" / rel);
  }
}

TEST(CourseCi, KitPassesEveryCheckOnTheCpuBackend) {
  ASSERT_TRUE(fs::exists(kGrade)) << kGrade << " is not built";
  TempDir tmp;
  ASSERT_FALSE(tmp.path().empty());
  const ShellRun r = run_ci("--out " + shell_quote((tmp.path() / "out").string()), tmp.path(), 400);
  EXPECT_EQ(r.code, 0) << r.output;

  std::string note;
  EXPECT_EQ(row_result(r.output, "reference gets full marks", &note), "PASS") << r.output;
  EXPECT_NE(note.find("cpu backend"), std::string::npos) << note;
  EXPECT_EQ(row_result(r.output, "skeleton builds and scores 0", &note), "PASS") << r.output;
  EXPECT_EQ(note.rfind("0/", 0), 0u) << note;
  int suites = 0;
  for (const auto& e : fs::directory_iterator(kKit / "testcases")) {
    if (e.path().extension() != ".yaml") continue;
    ++suites;
    const std::string check = "suite testcases/" + e.path().filename().string() + " loads and grades";
    EXPECT_EQ(row_result(r.output, check), "PASS") << check << "\n" << r.output;
  }
  EXPECT_GE(suites, 1);
  EXPECT_EQ(row_result(r.output, "handout holds exactly the student files"), "PASS") << r.output;
  EXPECT_EQ(row_result(r.output, "handout holds no reference code"), "PASS") << r.output;
  EXPECT_NE(r.output.find("course CI: " + std::to_string(4 + suites) + " passed, 0 failed"), std::string::npos)
      << r.output;
  // The reference's report is where the GitHub workflow publishes it from.
  EXPECT_TRUE(fs::exists(tmp.path() / "out" / "reference" / "report.md"));
}

TEST(CourseCi, HandoutCheckPassesOnAnUntouchedCopy) {
  TempDir tmp;
  const fs::path kit = tmp.path() / "kit";
  copy_kit_for_handout(kit);
  const ShellRun r = run_ci("--only handout --root " + shell_quote(kit.string()) + " --out " +
                             shell_quote((tmp.path() / "out").string()),
                         tmp.path(), 120);
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(row_result(r.output, "handout holds no reference code"), "PASS") << r.output;
}

TEST(CourseCi, HandoutWithTheReferenceKernelFails) {
  TempDir tmp;
  const fs::path kit = tmp.path() / "kit";
  copy_kit_for_handout(kit);
  fs::copy_file(kKit / "reference" / "kernel.cu", kit / "student" / "kernel.cu", fs::copy_options::overwrite_existing);
  const ShellRun r = run_ci("--only handout --root " + shell_quote(kit.string()) + " --out " +
                             shell_quote((tmp.path() / "out").string()),
                         tmp.path(), 120);
  EXPECT_NE(r.code, 0) << r.output;
  std::string note;
  EXPECT_EQ(row_result(r.output, "handout holds no reference code", &note), "FAIL") << r.output;
  EXPECT_NE(note.find("sgemm/kernel.cu"), std::string::npos) << note;
  // The note counts the leaked lines and quotes one of them (which one is the script's choice).
  EXPECT_NE(note.find(" lines, e.g. `"), std::string::npos) << note;
  // The file list itself is still right: only the leak row fails.
  EXPECT_EQ(row_result(r.output, "handout holds exactly the student files"), "PASS") << r.output;
  EXPECT_NE(r.output.find("1 passed, 1 failed"), std::string::npos) << r.output;
}

TEST(CourseCi, StudentFileLeftOutOfTheHandoutFails) {
  TempDir tmp;
  const fs::path kit = tmp.path() / "kit";
  copy_kit_for_handout(kit);
  std::ofstream(kit / "student" / "hints.md") << "a file the handout target does not pack\n";
  const ShellRun r = run_ci("--only handout --root " + shell_quote(kit.string()) + " --out " +
                             shell_quote((tmp.path() / "out").string()),
                         tmp.path(), 120);
  EXPECT_NE(r.code, 0) << r.output;
  std::string note;
  EXPECT_EQ(row_result(r.output, "handout holds exactly the student files", &note), "FAIL") << r.output;
  EXPECT_NE(note.find("missing: hints.md"), std::string::npos) << note;
}

TEST(CourseCi, WrongReferenceFailsTheFullMarksRow) {
  ASSERT_TRUE(fs::exists(kGrade)) << kGrade << " is not built";
  TempDir tmp;
  const fs::path kit = tmp.path() / "kit";
  fs::create_directories(kit / "reference");
  // A "reference" that computes nothing: the skeleton.
  fs::copy_file(kKit / "student" / "kernel.cu", kit / "reference" / "kernel.cu");
  const ShellRun r = run_ci("--only reference --root " + shell_quote(kit.string()) + " --out " +
                             shell_quote((tmp.path() / "out").string()),
                         tmp.path(), 300);
  EXPECT_EQ(r.code, 1) << r.output;
  std::string note;
  EXPECT_EQ(row_result(r.output, "reference gets full marks", &note), "FAIL") << r.output;
  EXPECT_NE(note.find("graded, 0/"), std::string::npos) << note;
}

TEST(CourseCi, BadUsageIsNamed) {
  TempDir tmp;
  const ShellRun r = run_ci("--only everything", tmp.path(), 30);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("unknown check everything"), std::string::npos) << r.output;
}

}  // namespace

// The course workflow as shipped (grader/ci/github-workflow.yml): its
// packages come from the kit's one list (install-deps.sh, which it runs),
// never a second list that can fall behind (it once lacked libseccomp-dev);
// every make it runs names targets the Makefile has (a dry run).
TEST(CourseCi, WorkflowInstallsFromTheKitsListAndMakesTargetsThatExist) {
  const YAML::Node wf = YAML::LoadFile((kKit / "grader/ci/github-workflow.yml").string());
  const YAML::Node steps = wf["jobs"]["kit"]["steps"];
  ASSERT_TRUE(steps.IsSequence());
  bool installs = false;
  std::vector<std::string> makes;
  for (const YAML::Node& step : steps) {
    if (!step["run"]) continue;
    const std::string run = step["run"].as<std::string>();
    EXPECT_EQ(run.find("apt-get install"), std::string::npos) << "a package list of its own:\n" << run;
    installs = installs || run.find("grader/tools/install-deps.sh") != std::string::npos;
    std::istringstream lines(run);
    for (std::string line; std::getline(lines, line);) {
      const std::size_t at = line.find("make ");
      if (at != std::string::npos && (at == 0 || line[at - 1] == ' ')) makes.push_back(line.substr(at));
    }
  }
  EXPECT_TRUE(installs) << "the workflow does not run grader/tools/install-deps.sh";
  ASSERT_FALSE(makes.empty());
  TempDir tmp;
  for (const std::string& line : makes) {
    // The make command alone, its words up to the first redirection, pipe or
    // list operator: cut inside `2>&1` it kept a `2>` that took the `-n` as a
    // file name, and the "dry run" built the kit for real.
    std::istringstream words(line);
    std::string make;
    for (std::string w; words >> w && w.find_first_of("|&;<>") == std::string::npos;)
      make += (make.empty() ? "" : " ") + w;
    const ShellRun dry =
        run_shell("cd " + shell_quote(kKit.string()) + " && " + make + " -n", tmp.path() / "make.log", 120);
    EXPECT_EQ(dry.code, 0) << make << " -n:\n" << dry.output.substr(0, 2000);
    EXPECT_FALSE(fs::exists(kKit / "-n")) << make << ": the -n went to a redirection";
  }
}
