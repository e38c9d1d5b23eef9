// The preambles that open the verdict of a test that did not run, was not
// graded or was not measured. The words/ files that make those verdicts start
// them so, and a view short of room drops them (report/lead.cpp): one place
// for both, so that a changed preamble is still recognised.
#pragma once
#include <string>
#include <string_view>

namespace sg {

inline constexpr std::string_view kNotRun = "not run: ";
inline constexpr std::string_view kNotGraded = "not graded: ";
inline constexpr std::string_view kNotMeasured = "not measured: ";
inline constexpr std::string_view kVerdictPreambles[] = {kNotRun, kNotGraded, kNotMeasured};

// "not run: " and why (a stopped grading's tests, a case the device cannot hold).
inline std::string not_run(const std::string& why) { return std::string(kNotRun) + why; }
// "not graded: " and why (a batch's student whose grading did not finish).
inline std::string not_graded(const std::string& why) { return std::string(kNotGraded) + why; }
// "not measured: " and why (a timed case or a figure that could not be measured).
inline std::string not_measured(const std::string& why) { return std::string(kNotMeasured) + why; }

}  // namespace sg
