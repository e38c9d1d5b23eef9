// End-to-end tests of the student handout (student/, packed as students get
// it by grader/handout/pack.sh) and the reference kernels (reference/): the
// packed handout holds no reference code and no hidden case, it builds as
// shipped and with the reference solution dropped in (for the GPU where
// there is one, else for the CPU), ./sgemm rejects bad arguments before
// touching the GPU, the skeleton fails while the reference passes, and on the
// CPU a missing barrier and a missing load guard are named.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_guard.h"
#include "shell_run.h"

namespace fs = std::filesystem;

namespace {

using sg::test::read_file;
using sg::test::shell_quote;

fs::path source_root() { return fs::path(SG_SOURCE_ROOT); }

struct RunResult {
  int code = -1;  // exit status; -1 when killed by a signal
  std::string out, err;
  std::string describe() const {
    return "exit " + std::to_string(code) + "\n--- stdout:\n" + out + "--- stderr:\n" + err;
  }
};

// Runs a shell command line in `dir` under a timeout, capturing stdout and
// stderr in files (never pipes) so a hung child cannot block the test.
RunResult run_in(const fs::path& dir, const std::string& command, int timeout_s,
                 const std::string& env = "") {
  const fs::path out = dir / "run.stdout", err = dir / "run.stderr";
  const std::string line = "cd " + shell_quote(dir.string()) + " && env " + env + " timeout -k 5 " +
                           std::to_string(timeout_s) + " " + command + " >" +
                           shell_quote(out.string()) + " 2>" + shell_quote(err.string());
  const int status = std::system(line.c_str());
  RunResult r;
  r.code = (status != -1 && WIFEXITED(status)) ? WEXITSTATUS(status) : -1;
  r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The handout as students get it, laid out in `dest`/sgemm by the packing
// script with the files listed in grader/handout/files.txt. Empty on success,
// else the log.
std::string pack_handout(const fs::path& dest) {
  std::string files;
  std::istringstream list(read_file(source_root() / "grader" / "handout" / "files.txt"));
  for (std::string f; std::getline(list, f);)
    if (!f.empty()) files += " " + shell_quote(f);
  const RunResult r = run_in(dest, "bash " + shell_quote((source_root() / "grader/handout/pack.sh").string()) +
                                       " " + shell_quote(dest.string()) + files, 120);
  return r.code == 0 && fs::exists(dest / "sgemm" / "Makefile") ? "" : "packing the handout:\n" + r.describe();
}

// nvcc as the handout's Makefile finds it: on PATH, else /usr/local/cuda.
std::string find_nvcc() {
  if (std::system("command -v nvcc >/dev/null 2>&1") == 0) return "nvcc";
  if (fs::exists("/usr/local/cuda/bin/nvcc")) return "/usr/local/cuda/bin/nvcc";
  return "";
}

fs::path make_temp_dir(const std::string& stem) {
  std::string pattern = (fs::temp_directory_path() / (stem + "_XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr) return {};
  return pattern;
}

// Builds of the handout, made once per test binary run (nvcc is slow).
struct HandoutBuilds {
  fs::path root;                 // temp folder holding the packed handout and the copies
  fs::path skeleton, reference;  // copies of the packed handout, built
  bool skeleton_ok = false, reference_ok = false;
  bool cpu = false;              // make chose the CPU build (no usable GPU here)
  std::string skeleton_log, reference_log;
  std::string skip_reason;       // set when the builds cannot be attempted
};

// Copies `from` (student/ or an already built copy of it) to `dir`,
// optionally replaces kernel.cu, and runs make there.
bool build_copy(const fs::path& from, const fs::path& dir, const fs::path* kernel,
                bool clean_first, std::string& log) {
  // cp -a keeps timestamps, so objects reused from a built copy stay newer
  // than their sources and only the replaced kernel.cu is recompiled.
  // Run from the temp folder, so no output file lands in the repository.
  const RunResult copied =
      run_in(dir.parent_path(), "cp -a " + shell_quote(from.string()) + " " + shell_quote(dir.string()), 60);
  if (copied.code != 0) {
    log = "copying " + from.string() + " to " + dir.string() + ":\n" + copied.describe();
    return false;
  }
  std::error_code ec;
  fs::remove(dir / "run.stdout", ec);  // left by make in a copied build
  fs::remove(dir / "run.stderr", ec);
  if (kernel) {
    fs::copy_file(*kernel, dir / "kernel.cu", fs::copy_options::overwrite_existing, ec);
    if (ec) {
      log = "copying " + kernel->string() + ": " + ec.message();
      return false;
    }
  }
  // A stale ./sgemm copied from the repository's student/ must not count.
  const RunResult r = run_in(dir, clean_first ? "sh -c 'make clean && make -j2'" : "make -j2", 1200);
  log = r.describe();
  return r.code == 0 && fs::exists(dir / "sgemm");
}

class Handout : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    builds_ = std::make_unique<HandoutBuilds>();
    builds_->root = make_temp_dir("sg_handout");
    if (builds_->root.empty()) {
      builds_->skip_reason = "could not create a temporary folder";
      return;
    }
    builds_->skeleton = builds_->root / "skeleton";
    builds_->reference = builds_->root / "reference";
    const fs::path solution = source_root() / "reference" / "kernel.cu";
    const std::string packed = pack_handout(builds_->root);
    if (!packed.empty()) {
      builds_->skeleton_log = builds_->reference_log = packed;
      return;
    }
    const fs::path student = builds_->root / "sgemm";
    builds_->skeleton_ok =
        build_copy(student, builds_->skeleton, nullptr, true, builds_->skeleton_log);
    // Start from the built skeleton when there is one: nvcc is slow, and only
    // kernel.cu differs.
    const bool reuse = builds_->skeleton_ok;
    builds_->reference_ok = build_copy(reuse ? builds_->skeleton : student, builds_->reference,
                                       &solution, !reuse, builds_->reference_log);
    builds_->cpu = read_file(builds_->skeleton / "build" / "mode").rfind("cpu", 0) == 0;
  }

  static void TearDownTestSuite() {
    if (builds_ && !builds_->root.empty()) {
      std::error_code ec;
      fs::remove_all(builds_->root, ec);
    }
    builds_.reset();
  }

  void SetUp() override {
    if (!builds_->skip_reason.empty()) GTEST_SKIP() << builds_->skip_reason;
  }

  static const HandoutBuilds& builds() { return *builds_; }

  // A copy of the built reference with kernel.cu edited by `edit`, rebuilt.
  static RunResult build_variant(const std::string& name, const std::string& from, const std::string& to,
                                 fs::path& dir) {
    dir = builds_->root / name;
    std::string kernel = read_file(source_root() / "reference" / "kernel.cu");
    const std::size_t at = kernel.find(from);
    if (at == std::string::npos) return {-1, "", "reference/kernel.cu has no `" + from + "`"};
    kernel.replace(at, from.size(), to);
    const fs::path edited = builds_->root / (name + ".cu");
    std::ofstream(edited) << kernel;
    std::string log;
    if (!build_copy(builds_->reference, dir, &edited, false, log)) return {-1, "", log};
    return {0, "", ""};
  }

 private:
  static std::unique_ptr<HandoutBuilds> builds_;
};

std::unique_ptr<HandoutBuilds> Handout::builds_;

// Hides every GPU from the CUDA runtime, so an argument error that reached
// the GPU would show up as exit 3 instead of 2, even on a GPU machine.
const char* const kNoGpu = "CUDA_VISIBLE_DEVICES=-1";

TEST_F(Handout, SkeletonAndReferenceBuild) {
  EXPECT_TRUE(builds().skeleton_ok) << builds().skeleton_log;
  EXPECT_TRUE(builds().reference_ok) << builds().reference_log;
}

TEST_F(Handout, BadArgumentsExit2WithReasonBeforeTouchingTheGpu) {
  ASSERT_TRUE(builds().skeleton_ok) << builds().skeleton_log;
  const struct {
    const char* args;
    const char* reason;
  } cases[] = {
      {"0", "'0' is zero"},
      {"1 2", "got 2"},
      {"x y z", "'x' is not a whole number"},
      {"-5 3 3", "'-5' is negative"},
      {"1 2 3 4", "got 4"},
      {"99999999999", "'99999999999' is too large"},
      {"1.5", "'1.5' is not a whole number"},
      {"10abc", "'10abc' is not a whole number"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string("./sgemm ") + c.args);
    const RunResult r = run_in(builds().skeleton, std::string("./sgemm ") + c.args, 60, kNoGpu);
    EXPECT_EQ(r.code, 2) << r.describe();
    EXPECT_TRUE(contains(r.err, c.reason)) << "expected the reason \"" << c.reason << "\"\n"
                                           << r.describe();
    EXPECT_TRUE(contains(r.err, "usage:")) << r.describe();
    EXPECT_TRUE(r.out.empty()) << "nothing belongs on stdout before the arguments are valid\n"
                               << r.describe();
  }
}

TEST_F(Handout, HelpPrintsUsageAndExits0) {
  ASSERT_TRUE(builds().skeleton_ok) << builds().skeleton_log;
  const RunResult r = run_in(builds().skeleton, "./sgemm --help", 60, kNoGpu);
  EXPECT_EQ(r.code, 0) << r.describe();
  EXPECT_TRUE(contains(r.out, "usage:")) << r.describe();
  EXPECT_TRUE(contains(r.out, "--no-verify")) << r.describe();
}

TEST_F(Handout, NoVisibleGpuExits3WithClearMessage) {
  ASSERT_TRUE(builds().reference_ok) << builds().reference_log;
  if (builds().cpu) GTEST_SKIP() << "make chose the CPU build here; this is about the GPU build";
  const RunResult r = run_in(builds().reference, "./sgemm 64", 60, kNoGpu);
  EXPECT_EQ(r.code, 3) << r.describe();
  EXPECT_TRUE(contains(r.err, "no CUDA device")) << r.describe();
  EXPECT_TRUE(contains(r.err, "make cpu")) << "the message says what to do\n" << r.describe();
  EXPECT_FALSE(contains(r.out, "TEST PASSED")) << r.describe();
}

TEST_F(Handout, SkeletonComputesNothingAndFails) {
  ASSERT_TRUE(builds().skeleton_ok) << builds().skeleton_log;
  if (!builds().cpu) SG_REQUIRE_GPU();
  const RunResult r = run_in(builds().skeleton, "./sgemm 100", 120);
  EXPECT_EQ(r.code, 1) << r.describe();
  EXPECT_TRUE(contains(r.out, "TEST FAILED")) << r.describe();
  // C is poisoned with NaN and the skeleton writes nothing: every element is wrong.
  EXPECT_TRUE(contains(r.out, "10000 of 10000 elements wrong (10000 NaN/Inf")) << r.describe();
}

TEST_F(Handout, ReferencePassesEveryShape) {
  ASSERT_TRUE(builds().reference_ok) << builds().reference_log;
  if (!builds().cpu) SG_REQUIRE_GPU();
  // 4096^3 takes minutes on the CPU.
  std::vector<const char*> shapes = {"1000 777 333", "17", "1 1 1", "1 2049 1"};
  if (!builds().cpu) shapes.push_back("4096");
  for (const char* args : shapes) {
    SCOPED_TRACE(std::string("./sgemm ") + args);
    const RunResult r = run_in(builds().reference, std::string("./sgemm ") + args, 300);
    EXPECT_EQ(r.code, 0) << r.describe();
    EXPECT_TRUE(contains(r.out, "TEST PASSED")) << r.describe();
    if (builds().cpu)
      EXPECT_TRUE(contains(r.out, "not GPU times")) << r.describe();
    else
      EXPECT_TRUE(contains(r.out, "of cuBLAS")) << r.describe();
  }
}

// On the CPU, the bugs a GPU often hides are named: a missing second barrier
// (the values are wrong, and they change with the threads' order) and a load
// without a bounds check (the stray read, with its index and thread).
TEST_F(Handout, CpuBuildNamesAMissingBarrier) {
  ASSERT_TRUE(builds().reference_ok) << builds().reference_log;
  if (!builds().cpu) GTEST_SKIP() << "make chose the GPU build here";
  fs::path dir;
  const RunResult built = build_variant(
      "no_second_barrier", "    __syncthreads();  // everyone done reading before the next phase overwrites\n", "",
      dir);
  ASSERT_EQ(built.code, 0) << built.describe();
  const RunResult r = run_in(dir, "./sgemm 100 70 50", 120);
  EXPECT_EQ(r.code, 1) << r.describe();
  EXPECT_TRUE(contains(r.out, "racecheck: ")) << r.describe();
  EXPECT_TRUE(contains(r.out, "__syncthreads() is missing")) << r.describe();
  EXPECT_TRUE(contains(r.out, "TEST FAILED")) << r.describe();
}

TEST_F(Handout, CpuBuildNamesAnOutOfBoundsRead) {
  ASSERT_TRUE(builds().reference_ok) << builds().reference_log;
  if (!builds().cpu) GTEST_SKIP() << "make chose the GPU build here";
  fs::path dir;
  const RunResult built =
      build_variant("no_b_guard", "(bRow < k && col < n) ? B[bRow * n + col] : 0.0f", "B[bRow * n + col]", dir);
  ASSERT_EQ(built.code, 0) << built.describe();
  // B is 70 x 50: the last phase's rows 70..79 lie past its end.
  const RunResult r = run_in(dir, "./sgemm 100 70 50", 120);
  EXPECT_EQ(r.code, 1) << r.describe();
  EXPECT_TRUE(contains(r.out, "memcheck: out-of-bounds read of B at index ")) << r.describe();
  EXPECT_TRUE(contains(r.out, " by thread (")) << r.describe();
  EXPECT_TRUE(contains(r.out, "TEST FAILED")) << r.describe();
}

TEST_F(Handout, ProblemTooBigForTheGpuExits2) {
  ASSERT_TRUE(builds().reference_ok) << builds().reference_log;
  if (!builds().cpu) SG_REQUIRE_GPU();
  const RunResult r = run_in(builds().reference, "./sgemm 100000 100000 100000", 120);
  EXPECT_EQ(r.code, 2) << r.describe();
  EXPECT_TRUE(contains(r.err, builds().cpu ? "too big for this machine's memory" : "too big for the GPU's memory"))
      << r.describe();
  EXPECT_TRUE(contains(r.err, "usage:")) << r.describe();
}

// Every file of a packed handout (path relative to its root, and its text).
std::vector<std::pair<std::string, std::string>> packed_files(const fs::path& root) {
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file()) files.emplace_back(fs::relative(e.path(), root).string(), read_file(e.path()));
  return files;
}

// Lines of `text` worth looking for elsewhere: long enough to be specific.
std::vector<std::string> distinctive_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const std::size_t b = line.find_first_not_of(" \t");
    if (b == std::string::npos) continue;
    line = line.substr(b);
    if (line.size() >= 30) lines.push_back(line);
  }
  return lines;
}

// What students get holds no reference code (the reference kernels, built
// objects of them), no hidden case and only the public suite, while it does
// hold what `make cpu` and `make check` need.
TEST(HandoutPack, ShipsNoReferenceCodeAndNoHiddenCase) {
  const fs::path dir = make_temp_dir("sg_pack");
  ASSERT_FALSE(dir.empty()) << "could not create a temporary folder";
  const std::string packed = pack_handout(dir);
  ASSERT_TRUE(packed.empty()) << packed;
  const fs::path root = dir / "sgemm";
  const auto files = packed_files(root);
  for (const char* needed : {"kernel.cu", "Makefile", "cpu_support.cpp", "cudacpu/include/cudacpu.h",
                             "cudacpu/rewriter/rewrite_main.cpp", "check/check.sh", "check/public.yaml",
                             ".github/workflows/check.yml"})
    EXPECT_TRUE(fs::exists(root / needed)) << needed << " is missing from the handout";

  // The reference kernels' own lines (those the skeleton does not share).
  const std::string skeleton = read_file(source_root() / "student" / "kernel.cu");
  std::vector<std::string> reference_lines;
  for (const char* ref : {"kernel.cu", "naive.cu"})
    for (const std::string& line : distinctive_lines(read_file(source_root() / "reference" / ref)))
      if (!contains(skeleton, line)) reference_lines.push_back(line);
  ASSERT_FALSE(reference_lines.empty());

  // Hidden case names, from every suite of the kit.
  std::vector<std::string> hidden;
  for (const auto& e : fs::directory_iterator(source_root() / "testcases")) {
    if (e.path().extension() != ".yaml") continue;
    std::istringstream in(read_file(e.path()));
    for (std::string line; std::getline(in, line);) {
      if (!contains(line, "visibility: hidden")) continue;
      const std::size_t at = line.find("name:");
      ASSERT_NE(at, std::string::npos) << "a hidden entry without its name on the line: " << line;
      std::string name = line.substr(at + 5);
      name = name.substr(name.find_first_not_of(' '));
      name = name.substr(0, name.find_first_of(",} "));
      hidden.push_back(name);
    }
  }
  ASSERT_FALSE(hidden.empty()) << "testcases/default.yaml is expected to hold a hidden case";

  for (const auto& [path, text] : files) {
    SCOPED_TRACE(path);
    const std::string name = fs::path(path).filename().string();
    EXPECT_FALSE(name == "naive.cu" || name.rfind("ref_", 0) == 0 || fs::path(path).extension() == ".o" ||
                 fs::path(path).extension() == ".a")
        << "a reference kernel or a built object is shipped";
    EXPECT_FALSE(contains(path, "reference/")) << "the reference folder is shipped";
    for (const std::string& line : reference_lines)
      EXPECT_FALSE(contains(text, line)) << "a line of the reference kernels is shipped: " << line;
    for (const std::string& h : hidden) EXPECT_FALSE(contains(text, h)) << "the hidden case " << h << " is shipped";
  }
  const std::string suite = read_file(root / "check" / "public.yaml");
  EXPECT_FALSE(contains(suite, "hidden")) << suite;
  EXPECT_TRUE(contains(suite, "odd_1000x777x333")) << "the public cases are kept\n" << suite;
  std::error_code ec;
  fs::remove_all(dir, ec);
}

// The grader compiles the reference kernels under other names so they can be
// linked next to a submission; the renamed objects must define the new names
// and not the student's.
TEST(ReferenceKernels, CompileUnderTheGradersNames) {
  const std::string nvcc = find_nvcc();
  if (nvcc.empty()) GTEST_SKIP() << "nvcc not found on PATH or in /usr/local/cuda/bin";
  const fs::path dir = make_temp_dir("sg_reference");
  ASSERT_FALSE(dir.empty()) << "could not create a temporary folder";

  const struct {
    const char* file;
    const char* kernel;
    const char* launcher;
  } builds[] = {{"kernel.cu", "ref_tiled_kernel", "ref_tiled_sgemm"},
                {"naive.cu", "ref_naive_kernel", "ref_naive_sgemm"}};
  for (const auto& b : builds) {
    SCOPED_TRACE(b.file);
    const fs::path src = source_root() / "reference" / b.file;
    const std::string object = std::string(b.kernel) + ".o";
    const RunResult compiled =
        run_in(dir,
               shell_quote(nvcc) + " -c " + shell_quote(src.string()) + " -Dmysgemm=" + b.kernel +
                   " -DbasicSgemm=" + b.launcher + " -o " + object,
               300);
    ASSERT_EQ(compiled.code, 0) << compiled.describe();

    const RunResult symbols = run_in(dir, "nm -C --defined-only -g " + object, 60);
    ASSERT_EQ(symbols.code, 0) << symbols.describe();
    const std::string signature = "(int, int, int, float const*, float const*, float*)";
    EXPECT_TRUE(contains(symbols.out, std::string(" T ") + b.kernel + signature)) << symbols.out;
    EXPECT_TRUE(contains(symbols.out, std::string(" T ") + b.launcher + signature)) << symbols.out;
    EXPECT_FALSE(contains(symbols.out, "mysgemm")) << symbols.out;
    EXPECT_FALSE(contains(symbols.out, "basicSgemm")) << symbols.out;

    // Every strong global symbol is one of the two functions or the launch
    // stub nvcc emits for the kernel; anything else could clash at link time.
    std::istringstream lines(symbols.out);
    std::string address, type, name;
    while (lines >> address >> type && std::getline(lines >> std::ws, name)) {
      if (type.size() != 1 || std::string("TDBR").find(type[0]) == std::string::npos) continue;
      const bool allowed = name.rfind(std::string(b.kernel) + "(", 0) == 0 ||
                           name.rfind(std::string(b.launcher) + "(", 0) == 0 ||
                           name.rfind("__device_stub__", 0) == 0;
      EXPECT_TRUE(allowed) << "unexpected global symbol `" << name << "` in " << b.file;
    }
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
}

}  // namespace
