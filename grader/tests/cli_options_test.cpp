// Parsing of grade's command line: every bad form is an error naming it.
#include <gtest/gtest.h>

#include <vector>

#include "cli/options.h"

namespace {

bool parse(std::vector<std::string> args, sg::CliOptions& o, std::string& err) {
  args.insert(args.begin(), "grade");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return sg::parse_cli(static_cast<int>(argv.size()), argv.data(), o, err);
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
  EXPECT_EQ(o.backend, "cpu");
  EXPECT_EQ(o.device_arch, "sm_90");
  EXPECT_EQ(o.submission, "sub/");
}

TEST(CliOptions, Errors) {
  struct Bad {
    std::vector<std::string> args;
    const char* mentions;
  };
  for (const Bad& b : std::vector<Bad>{{{}, "no submission"},
                                       {{"--seed", "x", "s"}, "--seed"},
                                       {{"--seed", "-3", "s"}, "--seed"},
                                       {{"--visibility", "secret", "s"}, "--visibility"},
                                       {{"--backend", "tpu", "s"}, "--backend"},
                                       {{"--device-arch", "90", "s"}, "--device-arch: expected"},
                                       {{"--device-arch", "sm_9", "s"}, "--device-arch: expected"},
                                       {{"--device-arch", "sm_90; rm", "s"}, "--device-arch: expected"},
                                       {{"--bogus", "s"}, "--bogus"},
                                       {{"a", "b"}, "more than one"},
                                       {{"s", "--out"}, "--out needs a value"}}) {
    sg::CliOptions o;
    std::string err;
    EXPECT_FALSE(parse(b.args, o, err));
    EXPECT_NE(err.find(b.mentions), std::string::npos) << err;
  }
}

TEST(CliOptions, HelpNeedsNoSubmission) {
  sg::CliOptions o;
  std::string err;
  ASSERT_TRUE(parse({"--help"}, o, err));
  EXPECT_TRUE(o.help);
  EXPECT_NE(sg::usage_text().find("--visibility"), std::string::npos);
}

}  // namespace
