// The Gradescope autograder end to end, without a GPU: pack the zip, unpack it
// into a folder laid out like /autograder, run setup.sh's build (no apt) and
// run_autograder, and read results.json. Also the source-level structure
// check that stands in for the PTX check where nvcc is absent.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "backends/cpu/source_structure.h"
#include "suite/suite_loader.h"
#include "shell_run.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using sg::test::read_file;
using sg::test::run_shell;
using sg::test::shell_quote;
using sg::test::ShellRun;

const fs::path kRoot = SG_SOURCE_ROOT;

// A small suite with every kind of test the CPU backend meets: correctness
// cases (one exact), a performance case and both checks. Small, so the whole
// test stays well under a minute on two cores.
const char* const kSuite = R"(suite: gradescope_test
description: small cases plus one performance case, for the Gradescope test
cases:
  - {name: square_48, m: 48, k: 48, n: 48, points: 3}
  - {name: ragged_37x29x41, m: 37, k: 29, n: 41, points: 4}
  - {name: exact_ints, m: 32, k: 40, n: 24, inputs: small_int, points: 2}
  - name: perf_1024
    m: 1024
    k: 1024
    n: 1024
    points: 1
    performance: {points: 6, zero_at: 0.75, full_at: 0.95}
checks:
  - {name: structure, kind: shared_memory_and_barrier, points: 2}
  - {name: sanitizer, kind: sanitizer, points: 1, m: 40, k: 50, n: 36}
)";

class Gradescope : public testing::Test {
 protected:
  // One zip and one build for all tests: the build is most of the time. The
  // unpacked tree lives in the build folder and only its build/ survives from
  // one run to the next, so setup.sh's make rebuilds just what changed (unzip
  // keeps the sources' times); the first run builds everything (1-2 min).
  static void SetUpTestSuite() {
    std::string tmpl = (fs::temp_directory_path() / "sg-gradescope-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr) << "mkdtemp " << tmpl;
    tmp_ = tmpl;
    zip_ = tmp_ / "gradescope-autograder.zip";
    const ShellRun pack = run_shell("cd " + shell_quote(kRoot.string()) + " && bash grader/gradescope/make_zip.sh " +
                                   shell_quote(zip_.string()),
                               tmp_ / "pack.log", 60);
    ASSERT_EQ(pack.code, 0) << pack.output;
    source_ = fs::path(SG_BUILD_DIR) / "gradescope-test" / "autograder" / "source";
    fs::create_directories(source_);
    for (const auto& e : fs::directory_iterator(source_))
      if (e.path().filename() != "build") fs::remove_all(e.path());
    // Python's zipfile where unzip is not installed (e.g. the GPU machines).
    const ShellRun unzip = run_shell("cd " + shell_quote(source_.string()) + " && if command -v unzip >/dev/null; then unzip -q -o " +
                                    shell_quote(zip_.string()) +
                                    "; else python3 -c 'import sys,zipfile,os\nz=zipfile.ZipFile(sys.argv[1])\n"
                                    "for i in z.infolist():\n  p=z.extract(i)\n  os.chmod(p,(i.external_attr>>16) or 0o644)' " +
                                    shell_quote(zip_.string()) + "; fi",
                                tmp_ / "unzip.log", 60);
    ASSERT_EQ(unzip.code, 0) << unzip.output;
    // Everything setup.sh would install is present here: --no-apt proves it builds without apt.
    // Its build starts from nothing, on CI's 2 cores beside the other test shards: 400 s was once
    // not enough there (each compile was cut short, not failed), so the bound is generous.
    setup_ = run_shell("cd " + shell_quote(source_.string()) + " && bash setup.sh --no-apt", tmp_ / "setup.log", 900);
    std::ofstream(tmp_ / "suite.yaml") << kSuite;
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    if (!tmp_.empty()) fs::remove_all(tmp_, ec);
  }
  void SetUp() override {
    // A machine without a package registry (the GPU machines) may lack a -dev package that
    // setup.sh --no-apt rightly refuses to build without; that is the machine, not the kit.
    if (setup_.code != 0 && setup_.output.find("setup.sh: missing ") != std::string::npos)
      GTEST_SKIP() << "this machine lacks a package setup.sh needs and the test installs nothing: " << setup_.output;
    ASSERT_EQ(setup_.code, 0) << "setup.sh failed:\n" << setup_.output;
  }

  // Grades `kernel_text` as /autograder/submission/kernel.cu under a fresh
  // autograder root that shares the built source/; returns results.json.
  static json autograde(const std::string& name, const std::string& kernel_text, const std::string& suite,
                        ShellRun* ran = nullptr) {
    const fs::path ag = tmp_ / ("root-" + name);
    fs::create_directories(ag / "submission");
    fs::create_directories(ag / "results");
    fs::create_directory_symlink(source_, ag / "source");
    std::ofstream(ag / "submission" / "kernel.cu") << kernel_text;
    const ShellRun r = run_shell("AUTOGRADER_ROOT=" + shell_quote(ag.string()) + " SG_SUITE=" + shell_quote(suite) +
                                " bash " + shell_quote((ag / "source" / "run_autograder").string()),
                            tmp_ / (name + ".log"), 180);
    if (ran) *ran = r;
    EXPECT_EQ(r.code, 0) << r.output;
    const std::string text = read_file(ag / "results" / "results.json");
    json j = json::parse(text, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << "results.json is not valid JSON:\n" << text << "\n" << r.output;
    return j;
  }

  static const json* find_test(const json& results, const std::string& name) {
    for (const auto& t : results.at("tests"))
      if (t.at("name") == name) return &t;
    return nullptr;
  }

  static fs::path tmp_, zip_, source_;
  static ShellRun setup_;
};
fs::path Gradescope::tmp_, Gradescope::zip_, Gradescope::source_;
ShellRun Gradescope::setup_;

// Gradescope shows setup.sh's log to the course staff: what the kit's own
// Makefile prints there is clean (no "No such file or directory" from it).
TEST_F(Gradescope, BuildLogHasNoMissingFileComplaints) {
  EXPECT_EQ(setup_.output.find("No such file or directory"), std::string::npos) << setup_.output;
}

TEST_F(Gradescope, ZipHoldsTheEntryPointsAndNoSolution) {
  const ShellRun list = run_shell("python3 -c 'import sys,zipfile\nfor n in zipfile.ZipFile(sys.argv[1]).namelist(): print(n)' " +
                                 shell_quote(zip_.string()),
                             tmp_ / "list.log", 30);
  ASSERT_EQ(list.code, 0) << list.output;
  std::istringstream entries(list.output);
  std::set<std::string> names;
  for (std::string e; std::getline(entries, e);) names.insert(e);
  EXPECT_TRUE(names.count("setup.sh") && names.count("run_autograder")) << "not at the top of the zip:\n" << list.output;
  EXPECT_TRUE(names.count("Makefile") && names.count("testcases/default.yaml")) << list.output;
  for (const std::string& e : names) {
    EXPECT_NE(e.rfind("reference/", 0), 0u) << "the zip ships " << e;
    EXPECT_NE(e.rfind("student/", 0), 0u) << "the zip ships " << e;
    const std::string base = fs::path(e).filename().string();
    EXPECT_TRUE(base != "kernel.cu" && base != "naive.cu") << "the zip ships " << e;
  }
  for (const char* entry : {"setup.sh", "run_autograder"}) {
    struct stat st {};
    ASSERT_EQ(::stat((source_ / entry).c_str(), &st), 0) << entry;
    EXPECT_TRUE(st.st_mode & S_IXUSR) << entry << " is not executable after unzip";
  }
}

TEST_F(Gradescope, BuildIsCudaFree) {
  const ShellRun ldd = run_shell("ldd " + shell_quote((source_ / "build" / "grade").string()), tmp_ / "ldd.log", 30);
  ASSERT_EQ(ldd.code, 0) << ldd.output;
  EXPECT_EQ(ldd.output.find("cublas"), std::string::npos) << ldd.output;
  EXPECT_EQ(ldd.output.find("cudart"), std::string::npos) << ldd.output;
  // Asking this build for the GPU is a usage error that says why.
  const ShellRun gpu = run_shell(shell_quote((source_ / "build" / "grade").string()) + " --backend gpu --out " +
                                shell_quote((tmp_ / "gpu-out").string()) + " " +
                                shell_quote((kRoot / "reference" / "kernel.cu").string()),
                            tmp_ / "gpu.log", 60);
  EXPECT_EQ(gpu.code, 2) << gpu.output;
  EXPECT_NE(gpu.output.find("built without CUDA"), std::string::npos) << gpu.output;
}

TEST_F(Gradescope, ReferenceScoresTheCorrectnessTotal) {
  const std::string suite_path = (tmp_ / "suite.yaml").string();
  const sg::Suite suite = sg::load_suite_file(suite_path);
  // What the CPU backend can award: correctness cases without a performance
  // part (those are not measured there), the structure and sanitizer checks.
  double expected = 0;
  for (const auto& c : suite.cases)
    if (!c.has_performance) expected += c.points;
  for (const auto& c : suite.checks)
    if (c.kind == sg::CheckKind::SharedAndBarrier || c.kind == sg::CheckKind::Sanitizer) expected += c.points;
  ASSERT_GT(expected, 0);

  const json r = autograde("reference", read_file(kRoot / "reference" / "kernel.cu"), suite_path);
  ASSERT_TRUE(r.is_object());
  EXPECT_DOUBLE_EQ(r.at("score").get<double>(), expected) << r.dump(2);
  double max_total = 0;
  for (const auto& t : r.at("tests")) max_total += t.value("max_score", 0.0);
  EXPECT_DOUBLE_EQ(max_total, expected);

  // Performance is reported as not measured, with nothing to earn.
  for (const char* name : {"perf_1024", "perf_1024/performance"}) {
    const json* t = find_test(r, name);
    ASSERT_NE(t, nullptr) << name << " missing from results.json";
    // Neither passed nor failed: no status, no max_score, nothing earned.
    EXPECT_FALSE(t->contains("status")) << t->dump();
    EXPECT_FALSE(t->contains("max_score")) << t->dump();
    EXPECT_EQ(t->at("score").get<double>(), 0) << t->dump();
    EXPECT_NE(t->at("output").get<std::string>().find("not measured"), std::string::npos) << t->dump();
  }
  const json* structure = find_test(r, "structure");
  ASSERT_NE(structure, nullptr);
  EXPECT_EQ(structure->at("score").get<double>(), 2) << structure->dump();
}

TEST_F(Gradescope, SkeletonScoresZero) {
  const json r = autograde("skeleton", read_file(kRoot / "student" / "kernel.cu"), (tmp_ / "suite.yaml").string());
  ASSERT_TRUE(r.is_object());
  EXPECT_EQ(r.at("score").get<double>(), 0) << r.dump(2);
  EXPECT_EQ(r.at("extra_data").at("state"), "graded") << "the skeleton must build";
  const json* t = find_test(r, "square_48");
  ASSERT_NE(t, nullptr);
  EXPECT_GT(t->at("max_score").get<double>(), 0);
}

TEST_F(Gradescope, DefaultSuiteIsShippedAndUsedWithoutOverride) {
  // Only check the wiring (no grading): run_autograder names default.yaml.
  const std::string script = read_file(source_ / "run_autograder");
  EXPECT_NE(script.find("testcases/default.yaml"), std::string::npos);
  EXPECT_NO_THROW(sg::load_suite_file((source_ / "testcases" / "default.yaml").string()));
}

TEST_F(Gradescope, GraderFailureStillLeavesResults) {
  const fs::path bad = tmp_ / "broken.yaml";
  std::ofstream(bad) << "suite: broken\ncases:\n  - {name: x, m: -3, k: 1, n: 1, points: 1}\n";
  ShellRun ran;
  const json r = autograde("broken-suite", read_file(kRoot / "reference" / "kernel.cu"), bad.string(), &ran);
  ASSERT_TRUE(r.is_object());
  EXPECT_EQ(r.at("score").get<double>(), 0);
  const std::string out = r.at("output").get<std::string>();
  EXPECT_NE(out.find("autograder failed"), std::string::npos) << out;
  EXPECT_NE(out.find("broken.yaml"), std::string::npos) << "the suite error should be quoted: " << out;
}

// A submission that prints its arguments on every call, prints the previous
// call's later (the runner is one process), and writes out of bounds only in
// the hidden case, so that the public sanitizer check lists that case. Nothing
// a student sees before publication (the top-level output, the visible tests'
// names and outputs) holds the hidden case's shape or name; the output waits
// on the hidden test, which Gradescope shows after publication.
TEST_F(Gradescope, HiddenCaseShapesReachNoFieldStudentsSeeBeforePublication) {
  const fs::path suite = tmp_ / "hidden.yaml";
  std::ofstream(suite) << "suite: hidden_output\n"
                          "cases:\n"
                          "  - {name: square_48, m: 48, k: 48, n: 48, points: 2}\n"
                          "  - {name: secret_case, m: 123, k: 45, n: 67, points: 2, visibility: hidden}\n"
                          "  - {name: ragged_37x29x41, m: 37, k: 29, n: 41, points: 2}\n"
                          "checks:\n"
                          "  - {name: sanitizer, kind: sanitizer, points: 1, m: 40, k: 50, n: 36}\n";
  std::string kernel = read_file(kRoot / "reference" / "kernel.cu");
  const std::string launch = "void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {";
  const std::string body = "  const int tx = threadIdx.x, ty = threadIdx.y;";
  ASSERT_NE(kernel.find(launch), std::string::npos);
  ASSERT_NE(kernel.find(body), std::string::npos);
  kernel.replace(kernel.find(launch), launch.size(),
                 "static int seen_m, seen_n, seen_k;\n" + launch +
                     "\n  printf(\"ARGS m=%d n=%d k=%d, before: m=%d n=%d k=%d\\n\", m, n, k, seen_m, seen_n, seen_k);"
                     "\n  fprintf(stderr, \"ERR m=%d\\n\", m);\n  seen_m = m, seen_n = n, seen_k = k;");
  kernel.replace(kernel.find(body), body.size(),
                 body + "\n  if (m == 123 && tx == 0 && ty == 0 && blockIdx.x == 0 && blockIdx.y == 0) C[m * n + 5] = 1;");
  const json r = autograde("hidden-output", kernel, suite.string());
  ASSERT_TRUE(r.is_object());

  std::string seen = r.at("output").get<std::string>();
  for (const auto& t : r.at("tests"))
    if (t.at("visibility") == "visible") seen += "\n" + t.at("name").get<std::string>() + "\n" + t.at("output").get<std::string>();
  for (const char* secret : {"m=123", "n=67", "k=45", "123x45x67", "secret_case"})
    EXPECT_EQ(seen.find(secret), std::string::npos) << secret << " is visible before publication:\n" << seen;
  EXPECT_NE(r.at("output").get<std::string>().find("withheld until grades are published"), std::string::npos)
      << r.at("output");
  // What it printed before the hidden case (stderr is unbuffered) is shown at once.
  EXPECT_NE(r.at("output").get<std::string>().find("ERR m=48"), std::string::npos) << r.at("output");
  const json* sanitizer = find_test(r, "sanitizer");
  ASSERT_NE(sanitizer, nullptr);
  EXPECT_EQ(sanitizer->at("status"), "failed") << sanitizer->dump();
  const json* hidden = find_test(r, "secret_case");
  ASSERT_NE(hidden, nullptr);
  EXPECT_EQ(hidden->at("visibility"), "after_published");
  EXPECT_NE(hidden->at("output").get<std::string>().find("ARGS m=123 n=67 k=45"), std::string::npos)
      << "the output is shown after publication: " << hidden->dump();
}

// ---- check_structure_source ----

TEST(SourceStructure, ReferenceUsesSharedAndBarrier) {
  const sg::StructureReport s = sg::check_structure_source(read_file(kRoot / "reference" / "kernel.cu"));
  EXPECT_TRUE(s.found_kernel);
  EXPECT_TRUE(s.uses_shared) << s.detail;
  EXPECT_TRUE(s.uses_barrier) << s.detail;
  EXPECT_NE(s.detail.find("kernel.cu:"), std::string::npos) << s.detail;
}

TEST(SourceStructure, SkeletonMentionsInCommentsDoNotCount) {
  // The skeleton's TODO comments talk about __shared__ and barriers.
  const sg::StructureReport s = sg::check_structure_source(read_file(kRoot / "student" / "kernel.cu"));
  EXPECT_TRUE(s.found_kernel);
  EXPECT_FALSE(s.uses_shared) << s.detail;
  EXPECT_FALSE(s.uses_barrier) << s.detail;
  EXPECT_NE(s.detail.find("no __shared__"), std::string::npos) << s.detail;
}

TEST(SourceStructure, FollowsHelpersAndMacrosButNotOtherKernels) {
  const char* src = R"SRC(
#define SYNC() __syncthreads()
__device__ static void load(float (*t)[16]) { t[0][0] = 0; SYNC(); }
__global__ void other() { __shared__ int x; __syncthreads(); }
__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  __shared__ float t[16][16];
  if (m > 0) { load(t); }
  const char* s = "__syncthreads()";
}
)SRC";
  const sg::StructureReport s = sg::check_structure_source(src);
  EXPECT_TRUE(s.found_kernel);
  EXPECT_TRUE(s.uses_shared);
  EXPECT_TRUE(s.uses_barrier) << "the barrier is in a helper, through a macro: " << s.detail;
  EXPECT_NE(s.detail.find("kernel.cu:2"), std::string::npos) << s.detail;

  const char* other_only = R"SRC(
__global__ void other() { __shared__ int x; __syncthreads(); }
__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  // __syncthreads(); __shared__
  if (m) C[0] = A[0] * B[0] + n + k;
}
)SRC";
  const sg::StructureReport o = sg::check_structure_source(other_only);
  EXPECT_TRUE(o.found_kernel);
  EXPECT_FALSE(o.uses_shared) << o.detail;
  EXPECT_FALSE(o.uses_barrier) << o.detail;
}

TEST(SourceStructure, MissingKernelIsNamed) {
  const sg::StructureReport s = sg::check_structure_source("__global__ void mysgemm_v2() { __syncthreads(); }\n"
                                                           "void basicSgemm() { mysgemm(1); }\n");
  EXPECT_FALSE(s.found_kernel);
  EXPECT_NE(s.detail.find("mysgemm"), std::string::npos) << s.detail;
}

}  // namespace
