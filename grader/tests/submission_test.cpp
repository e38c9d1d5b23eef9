// Finding kernel.cu in what a student handed in.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "services/submission.h"

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
  EXPECT_TRUE(s.problem.empty()) << s.problem;
  EXPECT_EQ(fs::path(s.kernel).filename(), "kernel.cu");
  auto f = sg::locate_submission((root_ / "a/deep/kernel.cu").string());
  EXPECT_TRUE(f.problem.empty());
}

TEST_F(Submissions, ProblemsAreNamed) {
  write("readme.txt", "hi");
  EXPECT_NE(sg::locate_submission(root_.string()).problem.find("no kernel.cu"), std::string::npos);
  write("one/kernel.cu", "x");
  write("two/kernel.cu", "y");
  EXPECT_NE(sg::locate_submission(root_.string()).problem.find("more than one kernel.cu"), std::string::npos);
  write("empty/kernel.cu", "");
  EXPECT_NE(sg::locate_submission((root_ / "empty/kernel.cu").string()).problem.find("empty"), std::string::npos);
}

TEST_F(Submissions, HiddenAndArchiveDebrisIgnored) {
  write("kernel.cu", "x");
  write("__MACOSX/kernel.cu", "junk");
  write(".git/kernel.cu", "junk");
  auto s = sg::locate_submission(root_.string());
  EXPECT_TRUE(s.problem.empty()) << s.problem;
}

}  // namespace
