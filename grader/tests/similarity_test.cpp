// Tests of batch/similarity: copies, renamed copies and reformatted copies of
// a kernel are found; distinct kernels and the handout's skeleton are not; and
// what is compared is the file the grading graded, read without following a
// link and never past the submission cap.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "batch/similarity.h"
#include "services/submission.h"

namespace {

using sg::batch::SimilarPair;
using sg::batch::SourceOf;

std::string read_kit_file(const std::string& rel) {
  std::ifstream in(std::string(SG_SOURCE_ROOT) + "/" + rel, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The reference with every local name changed, comments rewritten and the
// layout changed: what a student hiding a copy would do.
std::string disguised(std::string src) {
  const std::vector<std::pair<std::string, std::string>> names = {
      {"tileA", "sharedLeft"}, {"tileB", "sharedRight"}, {"tx", "lx"}, {"ty", "ly"},  {"row", "r"},
      {"col", "c"},            {"sum", "acc"},           {"phases", "steps"},          {"aCol", "ai"},
      {"bRow", "bi"},          {"block", "threads"},     {"grid", "blocks"}};
  for (const auto& [from, to] : names) src = std::regex_replace(src, std::regex("\\b" + from + "\\b"), to);
  src = std::regex_replace(src, std::regex("//[^\n]*"), "/* my own idea */");
  src = std::regex_replace(src, std::regex("  "), "\t");
  return src;
}

const SimilarPair* find_pair(const std::vector<SimilarPair>& pairs, const std::string& a, const std::string& b) {
  for (const auto& p : pairs)
    if (p.a == a && p.b == b) return &p;
  return nullptr;
}

TEST(Similarity, CopiesAndRenamedCopiesAreFlaggedDistinctKernelsAreNot) {
  const std::string reference = read_kit_file("reference/kernel.cu");
  const std::string skeleton = read_kit_file("student/kernel.cu");
  const std::string naive = read_kit_file("reference/naive.cu");
  ASSERT_FALSE(reference.empty());
  ASSERT_FALSE(skeleton.empty());
  ASSERT_FALSE(naive.empty());
  const std::vector<SourceOf> sources = {{"ann", reference},          {"bob", reference},  {"cat", disguised(reference)},
                                         {"dan", naive},              {"eve", skeleton},   {"fay", skeleton},
                                         {"gus", ""}};
  const auto pairs = sg::batch::similar_pairs(sources, skeleton);

  const SimilarPair* copy = find_pair(pairs, "ann", "bob");
  ASSERT_NE(copy, nullptr);
  EXPECT_TRUE(copy->identical);
  for (const char* other : {"ann", "bob"}) {
    const SimilarPair* renamed = find_pair(pairs, other, "cat");
    ASSERT_NE(renamed, nullptr) << "renamed copy not found";
    EXPECT_FALSE(renamed->identical);
    EXPECT_GE(renamed->similarity, 0.99) << "renaming and comments do not change the token stream";
  }
  // The naive kernel is another program; two untouched skeletons share only the handout.
  for (const auto& p : pairs) {
    EXPECT_NE(p.a, "dan") << p.b;
    EXPECT_NE(p.b, "dan") << p.a;
    EXPECT_FALSE(p.a == "eve" || p.a == "fay") << p.a << " " << p.b;
  }
  EXPECT_EQ(pairs.size(), 3u);
  EXPECT_TRUE(pairs.front().identical) << "identical pairs first";

  const std::string csv = sg::batch::similarity_csv(pairs);
  EXPECT_EQ(csv.rfind("kind,student_a,student_b,similarity\r\nidentical,ann,bob,1\r\n", 0), 0u) << csv;
  const std::string html = sg::batch::similarity_html(pairs);
  EXPECT_NE(html.find("skeleton is excluded"), std::string::npos);
  EXPECT_NE(html.find("<td>near-identical</td><td>ann</td><td>cat</td>"), std::string::npos) << html;
}

TEST(Similarity, TokensIgnoreCommentsLayoutAndNames) {
  const auto a = sg::batch::normalised_tokens("int total = x[i] * 2; // sum\n");
  const auto b = sg::batch::normalised_tokens("int   acc=x[ j ]*7;/* other */");
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, (std::vector<std::string>{"int", "id", "=", "x", "[", "id", "]", "*", "num", ";"}));
  EXPECT_NE(sg::batch::normalised_tokens("if (a < b) c = 1;"), sg::batch::normalised_tokens("while (a < b) c = 1;"));
}

// Bytes this process has read through read(2) and its kin so far (/proc/self/io's rchar).
std::uint64_t bytes_read_so_far() {
  std::ifstream io("/proc/self/io");
  std::string key;
  std::uint64_t value = 0;
  while (io >> key >> value)
    if (key == "rchar:") return value;
  return 0;
}

class SimilaritySource : public testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() / ("sg-similarity-" + std::to_string(::getpid()));
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  std::string write(const std::string& rel, const std::string& text) {
    const std::filesystem::path p = root_ / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
  // A file of `bytes` zero bytes (sparse: made at once, read in full).
  std::string big(const std::string& rel, std::uintmax_t bytes) {
    const std::string p = write(rel, "");
    std::filesystem::resize_file(p, bytes);
    return p;
  }
  std::filesystem::path root_;
};

// A 40 MB decoy beside the graded kernel, and a 40 MB kernel.cu that the
// grading refused: the comparison reads at most the cap, whatever lies there.
TEST_F(SimilaritySource, ReadsNoMoreThanTheSubmissionCap) {
  constexpr std::uintmax_t k40MB = 40u << 20;
  static_assert(sg::kMaxSourceBytes < k40MB, "the decoy must be over the cap");
  const std::string graded = "__global__ void mysgemm() {}\n";
  write("decoy/kernel.cu", graded);
  big("decoy/.cache/kernel.cu", k40MB);
  big("decoy/__MACOSX/kernel.cu", k40MB);
  std::uint64_t before = bytes_read_so_far();
  std::string got = sg::batch::kernel_source((root_ / "decoy").string());
  EXPECT_LE(bytes_read_so_far() - before, sg::kMaxSourceBytes) << "read past the cap";
  EXPECT_TRUE(got == graded) << "compared " << got.size() << " bytes, not the graded kernel.cu";

  big("huge/kernel.cu", k40MB);
  before = bytes_read_so_far();
  got = sg::batch::kernel_source((root_ / "huge").string());
  EXPECT_LE(bytes_read_so_far() - before, sg::kMaxSourceBytes) << "read past the cap";
  EXPECT_TRUE(got.empty()) << "compared " << got.size() << " bytes where the grading graded nothing";
}

// The file the grading graded, not the first kernel.cu in path order (a
// decoy in a dot-folder or __MACOSX), and never the target of a link.
TEST_F(SimilaritySource, ComparesTheGradedFileAndFollowsNoLink) {
  const std::string victim = write("victim/kernel.cu", "__global__ void victim() {}\n");
  write("copier/kernel.cu", "copied\n");
  write("copier/.old/kernel.cu", "decoy\n");
  write("copier/__MACOSX/kernel.cu", "decoy\n");
  EXPECT_EQ(sg::batch::kernel_source((root_ / "copier").string()), "copied\n");

  write("framer/kernel.cu", "own\n");
  std::filesystem::create_directories(root_ / "framer/a");
  std::filesystem::create_symlink(victim, root_ / "framer/a/kernel.cu");
  EXPECT_EQ(sg::batch::kernel_source((root_ / "framer").string()), "own\n");

  std::filesystem::create_directories(root_ / "linked");
  std::filesystem::create_symlink(victim, root_ / "linked/kernel.cu");
  EXPECT_EQ(sg::batch::kernel_source((root_ / "linked").string()), "") << "a link inside a submission is not read";
  EXPECT_TRUE(sg::read_submission_text((root_ / "linked/kernel.cu").string()).problem);
}

}  // namespace
