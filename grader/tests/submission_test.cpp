// Finding kernel.cu in what a student handed in.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include <string>
#include <vector>

#include "services/submission.h"
#include "words/submission_report.h"

namespace fs = std::filesystem;

namespace {

class Submissions : public testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("sg-sub-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const fs::path& rel, const std::string& text) {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel) << text;
  }
  fs::path root_;
};

TEST_F(Submissions, MissingPathIsAUsageError) {
  EXPECT_THROW(sg::locate_submission((root_ / "nope").string()), sg::UsageError);
}

TEST_F(Submissions, FileAndNestedFolder) {
  write("a/deep/kernel.cu", "x");
  auto s = sg::locate_submission(root_.string());
  EXPECT_FALSE(s.problem) << sg::submission_problem_text(s.problem);
  EXPECT_EQ(fs::path(s.kernel).filename(), "kernel.cu");
  auto f = sg::locate_submission((root_ / "a/deep/kernel.cu").string());
  EXPECT_FALSE(f.problem);
}

TEST_F(Submissions, ProblemsAreNamed) {
  write("readme.txt", "hi");
  EXPECT_NE(sg::submission_problem_text(sg::locate_submission(root_.string()).problem).find("no kernel.cu"), std::string::npos);
  write("one/kernel.cu", "x");
  write("two/kernel.cu", "y");
  EXPECT_NE(sg::submission_problem_text(sg::locate_submission(root_.string()).problem).find("more than one kernel.cu"), std::string::npos);
  write("empty/kernel.cu", "");
  EXPECT_NE(sg::submission_problem_text(sg::locate_submission((root_ / "empty/kernel.cu").string()).problem).find("empty"), std::string::npos);
}

// An upload that is not source text is called what it is, never handed to a
// compiler (whose errors would call it the student's compile error).
TEST_F(Submissions, BinaryUploadsAreCalledWhatTheyAre) {
  auto problem = [&](const std::string& bytes) {
    fs::remove_all(root_ / "kernel.cu");
    std::ofstream(root_ / "kernel.cu", std::ios::binary) << bytes;
    return sg::submission_problem_text(sg::locate_submission((root_ / "kernel.cu").string()).problem);
  };
  const std::string zeros(64, '\0');
  EXPECT_EQ(problem("\x7f" "ELF\x02\x01\x01" + zeros), "kernel.cu is not a text file (it looks like an ELF binary)");
  EXPECT_EQ(problem("PK\x03\x04\x14" + zeros), "kernel.cu is not a text file (it looks like a zip archive)");
  EXPECT_EQ(problem("\x1f\x8b\x08" + zeros), "kernel.cu is not a text file (it looks like a gzip archive)");
  EXPECT_NE(problem("int x;\n" + zeros + "int y;\n").find("kernel.cu is not a text file"), std::string::npos);
  EXPECT_NE(problem(std::string("\xff\xfe/\0/\0 \0x\0", 10)).find("UTF-16"), std::string::npos);
  // Text in another 8-bit encoding, or with a stray form feed, is still source text.
  EXPECT_EQ(problem("// caf\xe9 na\xefve\n\fint x;\n"), "");
  // A folder's kernel.cu is named by its place in the folder.
  fs::remove_all(root_ / "kernel.cu");
  write("src/kernel.cu", "\x7f" "ELF" + zeros);
  EXPECT_EQ(sg::submission_problem_text(sg::locate_submission(root_.string()).problem),
            "src/kernel.cu is not a text file (it looks like an ELF binary)");
}

// What cannot be graded is told by names within the submission, never by the
// TA's folders (students read it).
TEST_F(Submissions, ProblemsNameNoFolderOfTheMachine) {
  write("readme.txt", "hi");
  std::vector<std::string> problems = {sg::submission_problem_text(sg::locate_submission(root_.string()).problem)};
  write("one/kernel.cu", "x");
  write("two/kernel.cu", "y");
  problems.push_back(sg::submission_problem_text(sg::locate_submission(root_.string()).problem));
  write("empty/kernel.cu", "");
  problems.push_back(sg::submission_problem_text(sg::locate_submission((root_ / "empty/kernel.cu").string()).problem));
  for (const auto& p : problems) {
    EXPECT_FALSE(p.empty());
    EXPECT_EQ(p.find(root_.string()), std::string::npos) << p;
  }
  EXPECT_NE(problems[1].find("one/kernel.cu"), std::string::npos) << problems[1];
  EXPECT_EQ(problems[2], "kernel.cu is empty");
}

TEST_F(Submissions, HiddenAndArchiveDebrisIgnored) {
  write("kernel.cu", "x");
  write("__MACOSX/kernel.cu", "junk");
  write(".git/kernel.cu", "junk");
  auto s = sg::locate_submission(root_.string());
  EXPECT_FALSE(s.problem) << sg::submission_problem_text(s.problem);
}

}  // namespace

// Each problem's sentence from its facts (words/submission_report.cpp).
TEST(SubmissionWords, EachProblemIsSaid) {
  using K = sg::SubmissionProblem::Kind;
  sg::SubmissionProblem p;
  EXPECT_EQ(sg::submission_problem_text(p), "");
  p.file = "src/kernel.cu";
  p.kind = K::TooLarge;
  p.bytes = 2000000;
  p.limit = sg::kMaxSourceBytes;
  EXPECT_EQ(sg::submission_problem_text(p),
            "src/kernel.cu is 2000000 bytes; a submission may be at most 1048576 bytes (1 MiB)");
  p.kind = K::OverLimit;
  EXPECT_EQ(sg::submission_problem_text(p), "src/kernel.cu is over 1048576 bytes");
  p.kind = K::Grew;
  EXPECT_EQ(sg::submission_problem_text(p), "src/kernel.cu grew past 1048576 bytes while it was read");
  p.kind = K::IsLink;
  EXPECT_EQ(sg::submission_problem_text(p), "src/kernel.cu is a link");
  p.kind = K::TooManyEntries;
  p.limit = 10000;
  EXPECT_EQ(sg::submission_problem_text(p), "the submission holds more than 10000 files and folders; submit the "
                                            "kernel.cu (or a small folder holding it)");
  p.folder = "alice";
  p.kind = K::SeveralKernels;
  p.kernels = {"a/kernel.cu", "b/kernel.cu"};
  EXPECT_EQ(sg::submission_problem_text(p),
            "more than one kernel.cu in the folder alice: a/kernel.cu b/kernel.cu (submit exactly one)");
  p.kind = K::NoKernel;
  EXPECT_EQ(sg::submission_problem_text(p), "no kernel.cu found in the folder alice");
}
