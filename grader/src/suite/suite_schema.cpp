#include "suite/suite_schema.h"

#include <string>
#include <unordered_map>
#include <vector>

#include "suite/entry_schema.h"
#include "suite/yaml_fields.h"

namespace sg::suite_yaml {
namespace {

// A list value; an empty value (`checks:`) counts as an empty list.
std::vector<YAML::Node> list_items(const Fields& top, const std::string& key,
                                   const std::string& meaning) {
  std::vector<YAML::Node> items;
  const YAML::Node* node = top.node(key);
  if (!node || node->IsNull()) return items;
  if (!node->IsSequence())
    top.fail(key, key + " must be a list of " + meaning + " (each starting with '- '), got " +
                      show(*node));
  for (const auto& item : *node) items.push_back(item);
  return items;
}

// Names key results, reports and gradebook columns, so they must be unique
// across cases and checks alike.
void check_unique_names(const Suite& s, const Source& src) {
  std::unordered_map<std::string, SourceLocation> seen;
  auto visit = [&](const std::string& kind, const std::string& name, const SourceLocation& at) {
    const auto [it, inserted] = seen.emplace(name, at);
    if (!inserted)
      src.fail(at, "duplicate name '" + name + "': this " + kind + " and the entry at " +
                       location_text(it->second) + " share it; names must be unique");
  };
  for (const Case& c : s.cases) visit("case", c.name, c.where);
  for (const Check& c : s.checks) visit("check", c.name, c.where);
}

// The words of without_gpu, in the enum's order, so that a choice's index is its rule.
std::vector<std::string> without_gpu_words() {
  std::vector<std::string> words;
  for (int v = 0; v <= static_cast<int>(WithoutGpu::Last); ++v) words.push_back(to_string(static_cast<WithoutGpu>(v)));
  return words;
}

// to_correctness gives the timed cases' points to the untimed correctness
// cases: a suite with timed cases needs one such case worth points to take them.
void check_without_gpu(const Suite& s, const Fields& top) {
  if (s.without_gpu != WithoutGpu::ToCorrectness) return;
  bool timed = false, taker = false;
  for (const Case& c : s.cases) {
    timed = timed || c.has_performance;
    taker = taker || (!c.has_performance && c.points > 0);
  }
  if (timed && !taker)
    top.fail("without_gpu", "without_gpu is to_correctness, which gives the timed cases' points to the correctness "
                            "cases without a performance part, and this suite has none worth points; add one, or "
                            "use not_measured");
}

}  // namespace

Suite parse_suite(const YAML::Node& root, const Source& src) {
  if (!root.IsDefined() || root.IsNull())
    src.fail(SourceLocation{src.file(), 1, 1},
             "the suite is empty; it needs at least the keys 'suite' and 'cases'");
  Fields top(root, "the suite", src);
  top.allow_only({"suite", "description", "without_gpu", "defaults", "cases", "checks"});
  top.require({"suite", "cases"});

  Suite s;
  s.path = src.file();
  s.name = *top.identifier("suite");
  s.description = top.text("description").value_or("");
  if (const auto rule = top.choice("without_gpu", without_gpu_words())) s.without_gpu = static_cast<WithoutGpu>(*rule);
  const Defaults defaults = parse_defaults(top, src);

  const std::vector<YAML::Node> cases = list_items(top, "cases", "cases");
  if (cases.empty()) top.fail("cases", "cases is empty; a suite needs at least one case");
  for (std::size_t i = 0; i < cases.size(); ++i)
    s.cases.push_back(parse_case(cases[i], i, defaults, src, top.where("cases")));

  const std::vector<YAML::Node> checks = list_items(top, "checks", "checks");
  for (std::size_t i = 0; i < checks.size(); ++i)
    s.checks.push_back(parse_check(checks[i], i, defaults, src, top.where("checks")));

  check_unique_names(s, src);
  check_without_gpu(s, top);
  if (!(s.max_points() > 0))
    src.fail(top.where(), "the suite is worth 0 points; give some case or check points");
  return s;
}

}  // namespace sg::suite_yaml
