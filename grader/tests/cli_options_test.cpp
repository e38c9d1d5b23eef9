// Parsing of grade's command lines (`grade`, `grade batch`, `grade merge`):
// every bad form is an error naming it; the help lists every option.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>
#include <vector>

#include "cli/batch_cli.h"
#include "cli/options.h"

namespace {

bool parse(std::vector<std::string> args, sg::CliOptions& o, std::string& err) {
  args.insert(args.begin(), "grade");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return sg::parse_cli(static_cast<int>(argv.size()), argv.data(), o, err);
}

bool parse_batch(std::vector<std::string> args, sg::batch::BatchOptions& o, std::string& err,
                 bool merge_command = false) {
  args.insert(args.begin(), merge_command ? "merge" : "batch");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return sg::parse_batch_args(static_cast<int>(argv.size()), argv.data(), o, err, merge_command);
}

TEST(CliOptions, FullForm) {
  sg::CliOptions o;
  std::string err;
  ASSERT_TRUE(parse({"--suite", "s.yaml", "--out", "o", "--seed", "42", "--visibility", "public", "--backend", "cpu",
                     "--device-arch", "sm_90", "sub/"},
                    o, err))
      << err;
  EXPECT_EQ(o.suite, "s.yaml");
  EXPECT_EQ(o.out, "o");
  ASSERT_TRUE(o.seed.has_value());
  EXPECT_EQ(*o.seed, 42u);
  EXPECT_TRUE(o.public_only);
  EXPECT_EQ(o.backend, sg::BackendKind::Cpu);
  EXPECT_EQ(o.device_arch, "sm_90");
  EXPECT_EQ(o.submission, "sub/");
}

TEST(CliOptions, DefaultsAndTheBackendParsedOnce) {
  sg::CliOptions o;
  std::string err;
  ASSERT_TRUE(parse({"sub/"}, o, err)) << err;
  EXPECT_EQ(o.out, "results");
  EXPECT_FALSE(o.backend.has_value()) << "auto is the unset choice";
  EXPECT_FALSE(o.seed.has_value());
  EXPECT_FALSE(o.public_only || o.keep_work || o.quiet);
  o = {};
  ASSERT_TRUE(parse({"--backend", "gpu", "--backend", "auto", "--quiet", "--keep-work", "sub/"}, o, err)) << err;
  EXPECT_FALSE(o.backend.has_value()) << "a repeated option takes its last value";
  EXPECT_TRUE(o.quiet && o.keep_work);
  o = {};
  ASSERT_TRUE(parse({"--out", "a", "--out", "b", "--backend", "gpu", "s"}, o, err)) << err;
  EXPECT_EQ(o.out, "b");
  EXPECT_EQ(o.backend, sg::BackendKind::Gpu);
}

TEST(CliOptions, Errors) {
  struct Bad {
    std::vector<std::string> args;
    const char* mentions;
  };
  for (const Bad& b : std::vector<Bad>{{{}, "no submission"},
                                       {{"--seed", "x", "s"}, "--seed: not a non-negative integer: x"},
                                       {{"--seed", "-3", "s"}, "--seed: not a non-negative integer: -3"},
                                       {{"--seed", "99999999999999999999999", "s"}, "--seed: out of range"},
                                       {{"--visibility", "secret", "s"}, "--visibility: expected public or all, got secret"},
                                       {{"--backend", "tpu", "s"}, "--backend: expected gpu, cpu or auto, got tpu"},
                                       {{"--device-arch", "90", "s"}, "--device-arch: expected"},
                                       {{"--device-arch", "sm_9", "s"}, "--device-arch: expected"},
                                       {{"--device-arch", "sm_90; rm", "s"}, "--device-arch: expected"},
                                       {{"--bogus", "s"}, "unknown option --bogus"},
                                       {{"a", "b"}, "more than one submission given (a, b)"},
                                       {{"s", "--out"}, "--out needs a value"}}) {
    sg::CliOptions o;
    std::string err;
    EXPECT_FALSE(parse(b.args, o, err)) << b.mentions;
    EXPECT_NE(err.find(b.mentions), std::string::npos) << err;
  }
}

TEST(CliOptions, HelpNeedsNoSubmission) {
  for (const char* flag : {"--help", "-h"}) {
    sg::CliOptions o;
    std::string err;
    ASSERT_TRUE(parse({flag}, o, err)) << err;
    EXPECT_TRUE(o.help);
  }
  EXPECT_NE(sg::usage_text().find("--visibility"), std::string::npos);
  sg::batch::BatchOptions b;
  std::string err;
  ASSERT_TRUE(parse_batch({"--help"}, b, err)) << err;
  EXPECT_TRUE(b.help);
}

TEST(BatchCliOptions, ValuesChecksAndMerge) {
  sg::batch::BatchOptions o;
  std::string err;
  ASSERT_TRUE(parse_batch({"subs", "--out", "o", "--backend", "cpu", "--sbatch", "--time=10", "--sbatch",
                           "--partition=gpu", "--only", "a,b", "--only", "c", "--time-limit", "2.5", "--export",
                           "canvas", "--seed", "7", "--visibility", "public"},
                          o, err))
      << err;
  EXPECT_EQ(o.submissions, "subs");
  EXPECT_EQ(o.out, "o");
  EXPECT_EQ(o.backend, sg::BackendKind::Cpu);
  EXPECT_EQ(o.sbatch_lines, (std::vector<std::string>{"--time=10", "--partition=gpu"}))
      << "an option's value may start with a dash";
  EXPECT_EQ(o.only, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_DOUBLE_EQ(o.time_limit_s, 2.5);
  EXPECT_TRUE(o.export_canvas && o.public_only);
  EXPECT_EQ(o.seed, std::optional<std::uint64_t>(7));
  EXPECT_EQ(sg::batch::backend_word(o.backend), "cpu");
  EXPECT_EQ(sg::batch::backend_word(std::nullopt), "auto");

  for (const auto& [args, mentions] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"subs", "--out", "o", "--jobs", "0"}, "--jobs: expected a number from 1 to 4096, got 0"},
           {{"subs", "--out", "o", "--gpus", "1,1"}, "--gpus: GPU 1 listed twice in 1,1"},
           {{"subs", "--out", "o", "--export", "csv"}, "--export: the one format is canvas, got csv"},
           {{"subs", "--out", "o", "--only", ","}, "--only: expected student ids"},
           {{"subs", "--out", "o", "--time-limit", "0"}, "--time-limit: expected seconds > 0, got 0"},
           {{"subs", "--out", "o", "--slurm", "x"}, "--slurm: expected a number of shards >= 1, got x"},
           {{"subs", "--out", "o", "--backend", "tpu"}, "--backend: expected gpu, cpu or auto, got tpu"},
           {{"subs", "--out", "o", "--sbatch", "a\nb"}, "--sbatch: an option may not contain a line break"},
           {{"subs", "--out", "o", "--slurm", "2", "--shard", "0/2"}, "--slurm writes the job script"},
           {{"subs", "--out", "o", "--only", "a", "--regrade"}, "--only regrades"},
           {{"a", "b", "--out", "o"}, "more than one submissions folder given (a, b)"},
           {{"subs", "--out", "o", "--device-arch", "sm_90"}, "--device-arch"},
           {{"--merge"}, "--merge needs the batch folder"}}) {
    sg::batch::BatchOptions bad;
    EXPECT_FALSE(parse_batch(args, bad, err)) << mentions;
    EXPECT_NE(err.find(mentions), std::string::npos) << err;
  }

  // `grade merge DIR` is `grade batch --merge DIR`; the folder may come as --out.
  sg::batch::BatchOptions m;
  ASSERT_TRUE(parse_batch({"dir"}, m, err, true)) << err;
  EXPECT_TRUE(m.merge);
  EXPECT_EQ(m.out, "dir");
  m = {};
  ASSERT_TRUE(parse_batch({"--out", "dir", "--title", "T", "--quiet"}, m, err, true)) << err;
  EXPECT_EQ(m.out, "dir");
  EXPECT_EQ(m.title, "T");
  m = {};
  EXPECT_FALSE(parse_batch({}, m, err, true));
  EXPECT_NE(err.find("--merge needs the batch folder"), std::string::npos) << err;
}

// The help comes from the option tables: each command's lists every option
// it takes. The grade binary itself is asked, as a user would.
struct Ran {
  int code = -1;
  std::string out;
};

Ran run(const std::string& args) {
  const std::string cmd = "'" + std::string(SG_BUILD_DIR) + "/grade' " + args + " 2>&1";
  Ran r;
  std::FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
  const int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

TEST(CliHelp, GradeAndBatchHelpListEveryOption) {
  const Ran grade = run("--help");
  EXPECT_EQ(grade.code, 0) << grade.out;
  for (const char* o : {"SUBMISSION", "--suite", "--out", "--seed", "--visibility", "--backend", "--student",
                        "--gpu-lock", "--device-arch", "--keep-work", "--quiet", "--help", "grade batch", "grade merge",
                        "Exit status"})
    EXPECT_NE(grade.out.find(o), std::string::npos) << o << " missing from grade --help:\n" << grade.out;

  const Ran batch = run("batch --help");
  EXPECT_EQ(batch.code, 0) << batch.out;
  for (const char* o : {"SUBMISSIONS_DIR", "--out", "--suite", "--seed", "--backend", "--visibility", "--gpus",
                        "--jobs", "--resume", "--regrade", "--only", "--export", "--roster", "--canvas-column",
                        "--points-possible", "--time-limit", "--title", "--quiet",
                        "--shard", "--slurm", "--sbatch", "--merge", "--grader", "--help", "Exit status"})
    EXPECT_NE(batch.out.find(o), std::string::npos) << o << " missing from grade batch --help:\n" << batch.out;

  const Ran merge = run("merge --help");
  EXPECT_EQ(merge.code, 0) << merge.out;
  for (const char* o : {"--out", "--title", "--export", "--roster", "--canvas-column", "--points-possible", "--help"})
    EXPECT_NE(merge.out.find(o), std::string::npos) << o << " missing from grade merge --help:\n" << merge.out;
}

TEST(CliHelp, UsageErrorsExitTwoNamingTheOptionAndTheValue) {
  for (const auto& [args, mentions] : std::vector<std::pair<std::string, std::string>>{
           {"--backend tpu sub", "grade: --backend: expected gpu, cpu or auto, got tpu"},
           {"--bogus sub", "--bogus"},
           {"", "grade: no submission given"},
           {"batch subs --out o --jobs 0", "grade batch: --jobs: expected a number from 1 to 4096, got 0"},
           {"batch subs", "grade batch: --out DIR is required"},
           {"merge", "grade merge: --merge needs the batch folder"}}) {
    const Ran r = run(args);
    EXPECT_EQ(r.code, 2) << args << ":\n" << r.out;
    EXPECT_NE(r.out.find(mentions), std::string::npos) << args << ":\n" << r.out;
  }
}

}  // namespace
