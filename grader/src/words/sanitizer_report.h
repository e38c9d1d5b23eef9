// Sentences of the sanitizer check on the CPU backend
// (backends/cpu/cpu_sanitizer.cpp decides, these say): its verdict and the
// detail of each finding, from the facts of its two runs.
#pragma once
#include <cstddef>
#include <string>

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

}  // namespace sg
