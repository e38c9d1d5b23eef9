// The preambles that open the verdict of a test that did not run, was not
// graded or was not measured. The words/ files that make those verdicts start
// them so, and a view short of room drops them (report/lead.cpp): one place
// for both, so that a changed preamble is still recognised.
#pragma once
#include <string_view>

namespace sg {

inline constexpr std::string_view kNotRun = "not run: ";
inline constexpr std::string_view kNotGraded = "not graded: ";
inline constexpr std::string_view kNotMeasured = "not measured: ";
inline constexpr std::string_view kVerdictPreambles[] = {kNotRun, kNotGraded, kNotMeasured};

}  // namespace sg
