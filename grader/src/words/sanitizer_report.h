// Sentences of the sanitizer check (backends/cpu/cpu_sanitizer.cpp and
// backends/gpu/gpu_backend.cpp decide, these say): its verdict and the
// detail of each finding, from the facts of its runs: the CPU backend's two
// runs, the GPU backend's compute-sanitizer tools.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace sg {

// What the check's two runs found; an empty text or a zero count: nothing.
struct SanitizerFindings {
  std::string stray;       // memcheck: the first stray access, as the runner named it
  std::string block_race;  // the first store that raced with another block's, as the runner named it
  std::size_t differing = 0;  // racecheck: elements of C that differ between the two thread orders
  std::size_t elements = 0;   // of C's elements
  std::size_t row = 0, col = 0;  // the first differing element of C
  double descending = 0;      // its value with each block's threads in descending order
  double ascending = 0;       // and in ascending order
};

// "the program failed with the threads in ascending order: <cause>" (`ascending`
// false: the first run, with no order named).
std::string sanitizer_run_failed(bool ascending, const std::string& cause);

// The verdict: what was found ("memcheck found errors; blocks raced"), or,
// with nothing found, that the kernel passed both checks.
std::string sanitizer_verdict(const SanitizerFindings& f);

// The detail: one line a finding ("memcheck: ...\n"); "" with none.
std::string sanitizer_detail(const SanitizerFindings& f);

// The GPU backend's check: compute-sanitizer's memcheck over the shapes
// labelled `memcheck_shapes` ("40x50x36 (m_not_multiple)") in one process,
// racecheck at `race_shape`.

// A shape as the check names it: "40x50x36 (m_not_multiple, odd)", after
// the check or cases of that shape (`names`); racecheck's, drawn from the seed.
std::string named_shape_label(int m, int k, int n, const std::vector<std::string>& names);
std::string drawn_shape_label(int m, int k, int n);

// compute-sanitizer is not on this machine: the check is skipped.
std::string sanitizer_not_installed();

// How a tool's run ended when it was not clean (backends/gpu/sanitizer_shapes.cpp
// tells which): it could not start (`said`: why), went quiet for `quiet_s`
// before its launches began or within them, ran past its limit, reported
// errors, had its launch fail (`said`: the runner's message), ended before its
// launches completed or failed otherwise (`said`: how it ended).
enum class SanitizerEnding {
  NotStarted, QuietBeforeLaunches, WentQuiet, TimedOut, FoundErrors, LaunchFailed, EndedEarly, Failed
};
std::string sanitizer_ending(SanitizerEnding e, const std::string& said, double quiet_s);

// A hung tool ran again with the GPU to itself: a line of the detail.
std::string sanitizer_ran_again_line(const std::string& tool);

// The detail's opening: what each tool ran, the lines of `ran_again`, and
// the check's `seconds`.
std::string gpu_sanitizer_detail(const std::vector<std::string>& memcheck_shapes, const std::string& race_shape,
                                 const std::string& ran_again, double seconds);

// The verdict with no error found; or each tool's finding ("memcheck found
// errors at 40x50x36 (a)"), in the tools' order, and the check's `seconds`.
std::string gpu_sanitizer_clean_verdict(std::size_t memcheck_shapes, const std::string& race_shape, double seconds);
std::string sanitizer_finding(const std::string& tool, const std::string& ending, const std::string& shape);
std::string gpu_sanitizer_failed_verdict(const std::vector<std::string>& findings, double seconds);

// A tool's part of the detail: its name, how it ended (`how`, as process/
// describes an exit) and `kept`, the lines of its output that say what it
// found (already indented, each ending in a newline).
std::string sanitizer_output_summary(const std::string& tool, const std::string& how, const std::string& kept);

}  // namespace sg
