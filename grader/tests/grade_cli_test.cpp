// The grade binary's answers to bad input: each names what is wrong and
// exits 2, before any grading work; an unusable submission is graded as 0.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

struct Ran {
  int code = -1;
  std::string err;
};

class GradeCli : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("sg-cli-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    ::chmod(dir_.c_str(), 0755);
    fs::remove_all(dir_);
  }
  Ran grade(const std::string& args) {
    const std::string cmd = "timeout -k 5 300 '" + std::string(SG_BUILD_DIR) + "/grade' --quiet --backend cpu " + args +
                            " >/dev/null 2>'" + (dir_ / "err.txt").string() + "' </dev/null";
    int rc = std::system(cmd.c_str());
    Ran r;
    r.code = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    std::ifstream f(dir_ / "err.txt");
    std::stringstream ss;
    ss << f.rdbuf();
    r.err = ss.str();
    return r;
  }
  fs::path dir_;
};

TEST_F(GradeCli, MissingSubmissionIsAUsageError) {
  Ran r = grade("--out '" + (dir_ / "out").string() + "' '" + (dir_ / "nope").string() + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("submission not found"), std::string::npos) << r.err;
}

TEST_F(GradeCli, UnwritableOutputFolderIsNamedBeforeGrading) {
  if (::geteuid() == 0) {
    // root writes anywhere: use a path under a regular file instead.
    std::ofstream(dir_ / "file") << "x";
    Ran r = grade("--out '" + (dir_ / "file" / "out").string() + "' '" SG_SOURCE_ROOT "/student'");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("output folder"), std::string::npos) << r.err;
    return;
  }
  fs::create_directories(dir_ / "ro");
  ::chmod((dir_ / "ro").c_str(), 0555);
  Ran r = grade("--out '" + (dir_ / "ro").string() + "' '" SG_SOURCE_ROOT "/student'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("output folder"), std::string::npos) << r.err;
}

TEST_F(GradeCli, BadSuiteNamesFileLineAndColumn) {
  std::ofstream(dir_ / "bad.yaml") << "suite: x\ncases:\n  - {name: a, m: 4, k: 4, n: oops, points: 1}\n";
  Ran r = grade("--suite '" + (dir_ / "bad.yaml").string() + "' --out '" + (dir_ / "out").string() + "' '" SG_SOURCE_ROOT
                "/student'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("bad.yaml:3:"), std::string::npos) << r.err;
}

TEST_F(GradeCli, FolderWithTwoKernelsIsGradedZeroWithTheReason) {
  fs::create_directories(dir_ / "sub/a");
  fs::create_directories(dir_ / "sub/b");
  fs::copy_file(SG_SOURCE_ROOT "/student/kernel.cu", dir_ / "sub/a/kernel.cu");
  fs::copy_file(SG_SOURCE_ROOT "/student/kernel.cu", dir_ / "sub/b/kernel.cu");
  Ran r = grade("--out '" + (dir_ / "out").string() + "' '" + (dir_ / "sub").string() + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream f(dir_ / "out/results.json");
  nlohmann::json j = nlohmann::json::parse(f);
  EXPECT_EQ(j["score"].get<double>(), 0.0);
  EXPECT_EQ(j["extra_data"]["state"], "invalid submission");
  EXPECT_NE(j.dump().find("more than one kernel.cu"), std::string::npos);
}

}  // namespace
