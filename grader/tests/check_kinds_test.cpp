// The check table (model/check_kinds.h): one row a kind, each with its own
// word, scored at some stage, and the word read back gives the kind.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "model/check_kinds.h"

namespace sg {
namespace {

TEST(CheckKinds, EveryKindHasExactlyOneRow) {
  for (int v = 0; v <= static_cast<int>(CheckKind::Last); ++v) {
    int rows = 0;
    for (const CheckKindRow& row : kCheckKinds) rows += row.kind == static_cast<CheckKind>(v);
    EXPECT_EQ(rows, 1) << "kind " << v;
  }
  EXPECT_EQ(kCheckKindCount, static_cast<std::size_t>(CheckKind::Last) + 1);
}

TEST(CheckKinds, WordsAreDistinctAndReadBack) {
  std::set<std::string> words;
  for (const CheckKindRow& row : kCheckKinds) {
    EXPECT_TRUE(words.insert(row.word).second) << "twice: " << row.word;
    EXPECT_EQ(std::string(to_string(row.kind)), row.word);
    EXPECT_EQ(parse_check_kind(to_string(row.kind)), row.kind) << row.word;
  }
  EXPECT_EQ(parse_check_kind("shared_memory"), std::nullopt);
  EXPECT_EQ(parse_check_kind(""), std::nullopt);
  EXPECT_EQ(parse_check_kind("Symbols"), std::nullopt);  // the words are lower case, as in the YAML
}

// A row without a stage would never be scored: its points would stay 0.
TEST(CheckKinds, EveryKindIsScoredAtSomeStage) {
  for (const CheckKindRow& row : kCheckKinds) {
    bool any = false;
    for (const CheckStage s :
         {CheckStage::AfterBuild, CheckStage::BeforeCases, CheckStage::AfterCases, CheckStage::AfterChecks})
      any |= row.stages.has(s);
    EXPECT_TRUE(any) << row.word;
  }
}

// The stages the pipeline relies on: the sanitizer's tool runs before the
// cases and its points wait for them; the register tiling feedback comes last.
TEST(CheckKinds, StagesOfTheShippedKinds) {
  EXPECT_TRUE(check_kind_row(CheckKind::Symbols).stages.has(CheckStage::AfterBuild));
  EXPECT_FALSE(check_kind_row(CheckKind::Symbols).stages.has(CheckStage::AfterCases));
  EXPECT_TRUE(check_kind_row(CheckKind::Sanitizer).stages.has(CheckStage::BeforeCases));
  EXPECT_TRUE(check_kind_row(CheckKind::Sanitizer).stages.has(CheckStage::AfterCases));
  EXPECT_FALSE(check_kind_row(CheckKind::Sanitizer).stages.has(CheckStage::AfterBuild));
  EXPECT_TRUE(check_kind_row(CheckKind::SharedAndBarrier).stages.has(CheckStage::AfterBuild));
  EXPECT_TRUE(check_kind_row(CheckKind::SharedAndBarrier).stages.has(CheckStage::AfterCases));
  EXPECT_TRUE(check_kind_row(CheckKind::RegisterTiling).stages.has(CheckStage::AfterChecks));
  EXPECT_FALSE(check_kind_row(CheckKind::RegisterTiling).stages.has(CheckStage::AfterCases));
}

}  // namespace
}  // namespace sg
