// Tests of batch/similarity: copies, renamed copies and reformatted copies of
// a kernel are found; distinct kernels and the handout's skeleton are not.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "batch/similarity.h"

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

}  // namespace
