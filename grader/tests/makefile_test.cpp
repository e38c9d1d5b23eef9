// The Makefile's own decisions, read from `make -n` (nothing is built): on a
// machine without nvcc, `make grade` builds the CUDA-free grader, grades with
// the cpu backend and says so, and never calls nvcc.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "shell_run.h"

namespace {

namespace fs = std::filesystem;
using sg::test::run_shell;
using sg::test::shell_quote;

TEST(Makefile, WithoutNvccGradeBuildsTheCudaFreeGraderAndGradesOnTheCpu) {
  const fs::path log = fs::temp_directory_path() / "sg-makefile-test.log";
  const auto run = run_shell("cd " + shell_quote(SG_SOURCE_ROOT) +
                                 " && make -n grade NVCC=/nonexistent/bin/nvcc BUILD=build/makefile-test-dry",
                             log, 60);
  fs::remove(log);
  ASSERT_EQ(run.code, 0) << run.output;
  EXPECT_NE(run.output.find("no nvcc (/nonexistent/bin/nvcc): building the CUDA-free grader"), std::string::npos)
      << run.output.substr(0, 2000);
  EXPECT_NE(run.output.find("-DSG_NO_CUDA"), std::string::npos);
  EXPECT_NE(run.output.find("--backend cpu"), std::string::npos);
  EXPECT_EQ(run.output.find("-lcublas"), std::string::npos) << "linked against cuBLAS without CUDA";
  for (std::size_t at = run.output.find("/nonexistent/bin/nvcc"); at != std::string::npos;
       at = run.output.find("/nonexistent/bin/nvcc", at + 1)) {
    const std::size_t line = run.output.rfind('\n', at) + 1;
    EXPECT_EQ(run.output.compare(line, 6, "make: "), 0) << "nvcc is called: " << run.output.substr(line, 200);
  }
}

TEST(Makefile, WithNvccGradeKeepsTheChosenBackend) {
  if (std::system("command -v nvcc >/dev/null 2>&1 || test -x /usr/local/cuda/bin/nvcc") != 0)
    GTEST_SKIP() << "needs nvcc";
  const fs::path log = fs::temp_directory_path() / "sg-makefile-test-2.log";
  const auto run = run_shell("cd " + shell_quote(SG_SOURCE_ROOT) + " && make -n grade BUILD=build/makefile-test-dry",
                             log, 60);
  fs::remove(log);
  ASSERT_EQ(run.code, 0) << run.output;
  EXPECT_NE(run.output.find("--backend auto"), std::string::npos) << run.output.substr(0, 2000);
  EXPECT_EQ(run.output.find("building the CUDA-free grader"), std::string::npos);
}

}  // namespace

// README's student commands, as written there, work in this repository's
// student/ (issue 36: they used to need the packed handout's cudacpu/ and
// check/): make builds ./sgemm (for the CPU here without a GPU), ./sgemm runs
// and checks C (the skeleton's C is wrong: exit 1, not an error), make check
// grades the public cases and writes report.md.
TEST(Makefile, ReadmeStudentCommandsWorkInTheRepository) {
  const fs::path root = SG_SOURCE_ROOT;
  const std::string readme = sg::test::read_file(root / "README.md");
  const std::size_t section = readme.find("## Students");
  ASSERT_NE(section, std::string::npos);
  const std::size_t from = readme.find("```sh\n", section), to = readme.find("```", from + 6);
  ASSERT_NE(from, std::string::npos);
  std::vector<std::string> commands;
  std::istringstream block(readme.substr(from + 6, to - from - 6));
  for (std::string line; std::getline(block, line);) {
    line = line.substr(0, line.find('#'));
    while (!line.empty() && line.back() == ' ') line.pop_back();
    if (!line.empty()) commands.push_back(line);
  }
  ASSERT_EQ(commands, (std::vector<std::string>{"make", "./sgemm 1000 777 333", "make check"}))
      << "README's student commands changed: update this test with them";
  const fs::path log = fs::temp_directory_path() / "sg-student-commands.log";
  std::error_code ec;
  fs::remove(root / "student" / "report.md", ec);
  for (const std::string& command : commands) {
    const auto run = run_shell("cd " + shell_quote((root / "student").string()) + " && " + command, log, 600);
    if (command.rfind("./sgemm", 0) == 0) {
      EXPECT_TRUE(run.code == 0 || run.code == 1) << command << " exited " << run.code << "\n" << run.output;
      EXPECT_NE(run.output.find("verification (FP64"), std::string::npos) << "C was not checked:\n" << run.output;
    } else {
      EXPECT_EQ(run.code, 0) << command << "\n" << run.output.substr(0, 4000);
    }
  }
  EXPECT_TRUE(fs::exists(root / "student" / "report.md")) << "make check wrote no report.md";
  fs::remove(log, ec);
}

// `make grade` without SUBMISSION (README's first command) grades the
// built-in class as a batch: the reference scores full, the skeleton 0, and
// the output ends with the reports' paths and the next commands. A folder
// that is not an earlier demo's output is never removed.
TEST(Makefile, TheBuiltInClassShowsTheKitAtWorkAndKeepsOtherFolders) {
  const fs::path root = SG_SOURCE_ROOT;
  const fs::path out = fs::temp_directory_path() / ("sg-demo-" + std::to_string(::getpid()));
  std::error_code ec;
  fs::remove_all(out, ec);
  const fs::path log = out.string() + ".log";
  const std::string demo = "cd " + shell_quote(root.string()) + " && bash grader/tools/demo_class.sh --grade " +
                           shell_quote(std::string(SG_BUILD_DIR) + "/grade") + " --backend cpu --suite testcases/smoke.yaml --out " +
                           shell_quote(out.string());
  const auto run = run_shell(demo, log, 600);
  ASSERT_EQ(run.code, 0) << run.output.substr(0, 4000);
  const std::string book = sg::test::read_file(out / "gradebook.csv");
  EXPECT_NE(book.find("\nreference,10,10,graded"), std::string::npos) << book;
  EXPECT_NE(book.find("\nskeleton,0,10,graded"), std::string::npos) << book;
  EXPECT_NE(run.output.find("summary.html"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("next: make grade SUBMISSION="), std::string::npos) << run.output;
  // A folder of anything else is refused and left whole.
  fs::remove_all(out, ec);
  fs::create_directories(out);
  std::ofstream(out / "mine.txt") << "x";
  const auto refused = run_shell(demo, log, 600);
  EXPECT_EQ(refused.code, 2) << refused.output;
  EXPECT_TRUE(fs::exists(out / "mine.txt"));
  fs::remove_all(out, ec);
  fs::remove(log, ec);
}
