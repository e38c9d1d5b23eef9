// The catalogue of diagnoses: one entry per id, keys unique, and every id a
// sample's expect.yaml names is one the grader can give.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>

#include "compare/diagnosis_catalogue.h"

namespace sg {
namespace {

namespace fs = std::filesystem;

TEST(DiagnosisCatalogue, KeysAreUniqueAndFindable) {
  std::set<std::string> keys;
  std::size_t entries = 0;
  for (const DiagnosisEntry* e = diagnosis_catalogue_begin(); e != diagnosis_catalogue_end(); ++e, ++entries) {
    EXPECT_TRUE(keys.insert(e->key).second) << "id given twice: " << e->key;
    // "family.name": lower case, one dot, as class summaries group them.
    const std::string k = e->key;
    EXPECT_EQ(std::count(k.begin(), k.end(), '.'), 1) << k;
    EXPECT_EQ(k.find_first_not_of("abcdefghijklmnopqrstuvwxyz_."), std::string::npos) << k;
    ASSERT_EQ(find_diagnosis(k), e) << k;
    EXPECT_EQ(&diagnosis_entry(e->id), e) << k;
  }
  EXPECT_EQ(entries, kDiagnosisCount);
  EXPECT_EQ(find_diagnosis("no.such_id"), nullptr);
}

TEST(DiagnosisCatalogue, MakesTheCataloguedIdAndText) {
  const Diagnosis fixed = make_diagnosis(DiagnosisId::HangTimeout);
  EXPECT_EQ(fixed.id, "hang.timeout");
  EXPECT_EQ(fixed.text, diagnosis_entry(DiagnosisId::HangTimeout).text);
  const Diagnosis filled = make_diagnosis(DiagnosisId::LdBUsesK, "k = 29");
  EXPECT_EQ(filled.id, "ld.b_uses_k");
  EXPECT_EQ(filled.text, "k = 29");
  EXPECT_EQ(diagnosis_entry(DiagnosisId::LdBUsesK).basis, DiagnosisBasis::Reproduced);
  EXPECT_TRUE(diagnosis_entry(DiagnosisId::LdBUsesK).leading_dimension);
  EXPECT_FALSE(diagnosis_entry(DiagnosisId::GridSwappedXy).leading_dimension);
}

// Every id under first_hint_id and first_hint_or in grader/samples/**/expect.yaml.
TEST(DiagnosisCatalogue, EverySampleExpectationNamesACataloguedId) {
  int named = 0;
  for (const auto& f : fs::recursive_directory_iterator(fs::path(SG_SOURCE_ROOT) / "grader/samples")) {
    if (f.path().filename() != "expect.yaml") continue;
    const YAML::Node e = YAML::LoadFile(f.path().string());
    std::vector<std::string> ids;
    for (const auto& id : e["first_hint_id"]) ids.push_back(id.as<std::string>());
    if (e["first_hint_or"] && e["first_hint_or"]["id"]) ids.push_back(e["first_hint_or"]["id"].as<std::string>());
    for (const std::string& id : ids) {
      EXPECT_NE(find_diagnosis(id), nullptr) << f.path() << " names " << id << ", which the grader never gives";
      ++named;
    }
  }
  EXPECT_GT(named, 10);  // the walk found the samples
}

}  // namespace
}  // namespace sg
