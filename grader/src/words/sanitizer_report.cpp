#include "words/sanitizer_report.h"

#include <fmt/format.h>

#include "words/verdict_preambles.h"

namespace sg {
namespace {

// "12.3 s": the check's cost as its verdict and detail say it.
std::string cost(double seconds) { return fmt::format("{:.1f} s", seconds); }

std::string dims(int m, int k, int n) {
  return std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n);
}

}  // namespace

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

std::string named_shape_label(int m, int k, int n, const std::vector<std::string>& names) {
  std::string joined;
  for (std::size_t i = 0; i < names.size(); ++i) joined += (i == 0 ? "" : ", ") + names[i];
  return dims(m, k, n) + " (" + joined + ")";
}

std::string drawn_shape_label(int m, int k, int n) { return dims(m, k, n) + " (drawn from the seed)"; }

std::string sanitizer_not_installed() { return not_run("compute-sanitizer is not installed on this machine"); }

std::string sanitizer_ending(SanitizerEnding e, const std::string& said, double quiet_s) {
  switch (e) {
    case SanitizerEnding::NotStarted: return "could not start: " + said;
    case SanitizerEnding::QuietBeforeLaunches:
      return fmt::format("stopped: its program had not started its launches after {:.0f} s (it hung before them)",
                         quiet_s);
    case SanitizerEnding::WentQuiet: return fmt::format("stopped: no progress for {:.0f} s, the kernel hung", quiet_s);
    case SanitizerEnding::TimedOut: return "timed out";
    case SanitizerEnding::FoundErrors: return "found errors";
    case SanitizerEnding::LaunchFailed: return "the launch failed (" + said + ")";
    case SanitizerEnding::EndedEarly: return "the program ended before its launches completed (" + said + ")";
    case SanitizerEnding::Failed: break;
  }
  return "the program failed (" + said + ")";
}

std::string sanitizer_ran_again_line(const std::string& tool) {
  return tool + " hung while other gradings shared the GPU, so it ran again with the GPU to itself\n";
}

std::string gpu_sanitizer_detail(const std::vector<std::string>& memcheck_shapes, const std::string& race_shape,
                                 const std::string& ran_again, double seconds) {
  std::string shapes;
  for (const std::string& s : memcheck_shapes) shapes += (shapes.empty() ? "" : ", ") + s;
  const std::size_t n = memcheck_shapes.size();
  return "memcheck ran " + std::to_string(n) + " shape" + (n == 1 ? "" : "s") + " in one process: " + shapes +
         "\nracecheck ran " + race_shape + "\n" + ran_again + "the sanitizer took " + cost(seconds) + "\n";
}

std::string gpu_sanitizer_clean_verdict(std::size_t memcheck_shapes, const std::string& race_shape, double seconds) {
  return "compute-sanitizer memcheck (" + std::to_string(memcheck_shapes) + " shapes) and racecheck (" + race_shape +
         ") found no errors (" + cost(seconds) + ")";
}

std::string sanitizer_finding(const std::string& tool, const std::string& ending, const std::string& shape) {
  return tool + " " + ending + (shape.empty() ? "" : " at " + shape);
}

std::string gpu_sanitizer_failed_verdict(const std::vector<std::string>& findings, double seconds) {
  std::string verdict;
  for (const std::string& f : findings) verdict += (verdict.empty() ? "" : "; ") + f;
  return verdict + " (" + cost(seconds) + ")";
}

std::string sanitizer_output_summary(const std::string& tool, const std::string& how, const std::string& kept) {
  return tool + ": " + how + "\n" + kept;
}

}  // namespace sg
