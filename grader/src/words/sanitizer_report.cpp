#include "words/sanitizer_report.h"

namespace sg {

std::string sanitizer_run_failed(bool ascending, const std::string& cause) {
  return std::string("the program failed") + (ascending ? " with the threads in ascending order" : "") + ": " +
         cause;
}

std::string sanitizer_verdict(const SanitizerFindings& f) {
  std::string verdict;
  // Each finding in the order of the detail's lines: memcheck, the race check between blocks, racecheck.
  const auto add = [&verdict](const char* found) { verdict += (verdict.empty() ? "" : "; ") + std::string(found); };
  if (!f.stray.empty()) add("memcheck found errors");
  if (!f.block_race.empty()) add("blocks raced");
  if (f.differing > 0) add("racecheck found errors");
  if (verdict.empty())
    return "no out-of-bounds accesses, no races between blocks, and the same result with each block's threads "
           "run in either order (the CPU backend's memcheck and racecheck)";
  return verdict;
}

std::string sanitizer_detail(const SanitizerFindings& f) {
  std::string detail;
  if (!f.stray.empty()) detail += "memcheck: " + f.stray + "\n";
  if (!f.block_race.empty()) detail += "race between blocks: " + f.block_race + "\n";
  if (f.differing > 0)
    detail += "racecheck: " + std::to_string(f.differing) + " of " + std::to_string(f.elements) +
              " elements of C depend on the order in which each block's threads run between barriers; C[" +
              std::to_string(f.row) + "][" + std::to_string(f.col) + "] is " + std::to_string(f.descending) +
              " with each block's threads in descending order and " + std::to_string(f.ascending) +
              " in ascending order\n";
  return detail;
}

}  // namespace sg
