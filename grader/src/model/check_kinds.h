// The suite's check kinds as one table: each kind's YAML word and the stages
// of a grading it is scored in. Its scorer sits in pipeline/checks.cpp, in an
// array in the same order (checked there at compile time). A new check kind is
// a value of CheckKind and a row of kCheckKinds here, and a scorer there.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string_view>

namespace sg {

enum class CheckKind {
  Symbols,           // only mysgemm/basicSgemm defined, no forbidden references
  SharedAndBarrier,  // data reuse >= min_reuse, measured (ncu), else shared memory and a barrier in the PTX
  Sanitizer,         // compute-sanitizer memcheck over the small cases + racecheck on a drawn shape
  RegisterTiling,    // the structure check's measured reuse beyond one element of C per thread
  Last = RegisterTiling  // keep equal to the last kind: the table below must have one row per kind
};

// When in a grading a check's evidence exists.
enum class CheckStage {
  AfterBuild,   // the build and the static checks
  BeforeCases,  // tools that run the submission on their own (the sanitizer)
  AfterCases,   // what needs the correctness cases' results
  AfterChecks   // what reads other checks' results (feedback on their figures)
};

// The stages a kind's scorer is called in, one bit a stage.
struct CheckStages {
  unsigned bits = 0;
  constexpr CheckStages(std::initializer_list<CheckStage> stages) {
    for (const CheckStage s : stages) bits |= 1u << static_cast<unsigned>(s);
  }
  constexpr bool has(CheckStage s) const { return ((bits >> static_cast<unsigned>(s)) & 1u) != 0; }
};

struct CheckKindRow {
  CheckKind kind;
  const char* word;  // the suite YAML's word, which reports print too
  CheckStages stages;
};

// One row a kind, in the enum's order, so that a kind's value is its row.
inline constexpr CheckKindRow kCheckKinds[] = {
    {CheckKind::Symbols, "symbols", {CheckStage::AfterBuild}},
    // Measured after the build, or after the cases where the backend's count needs them
    // (Backend::reuse_after_cases: its scorer decides); at AfterCases it also needs a correct case.
    {CheckKind::SharedAndBarrier, "shared_memory_and_barrier", {CheckStage::AfterBuild, CheckStage::AfterCases}},
    // The tool runs before the cases; at AfterCases the cases' failures can still cost its points.
    {CheckKind::Sanitizer, "sanitizer", {CheckStage::BeforeCases, CheckStage::AfterCases}},
    // Reads the structure check's figure, so it comes after every other check.
    {CheckKind::RegisterTiling, "register_tiling", {CheckStage::AfterChecks}},
};
inline constexpr std::size_t kCheckKindCount = sizeof(kCheckKinds) / sizeof(kCheckKinds[0]);

// Whether row i holds kind i for every row: what indexing the table by a kind relies on.
constexpr bool rows_in_enum_order() {
  for (std::size_t i = 0; i < kCheckKindCount; ++i)
    if (static_cast<std::size_t>(kCheckKinds[i].kind) != i) return false;
  return true;
}
static_assert(kCheckKindCount == static_cast<std::size_t>(CheckKind::Last) + 1,
              "every CheckKind needs one row in kCheckKinds");
static_assert(rows_in_enum_order(), "kCheckKinds lists the kinds in the enum's order");

constexpr const CheckKindRow& check_kind_row(CheckKind k) { return kCheckKinds[static_cast<std::size_t>(k)]; }

// The row's word (model/names.cpp), and its inverse: nullopt for any other word.
const char* to_string(CheckKind k);
std::optional<CheckKind> parse_check_kind(std::string_view word);

}  // namespace sg
