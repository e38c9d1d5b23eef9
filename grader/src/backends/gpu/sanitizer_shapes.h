// Which shapes the GPU's sanitizer check runs the submission at, which of
// them a tool's error belongs to, and the lines of its output the feedback
// keeps. Pure functions, tested without a GPU.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/suite.h"
#include "process/tool_run.h"
#include "proto/protocol.h"
#include "words/sanitizer_report.h"

namespace sg {

struct SanitizerShape {
  int m = 0, k = 0, n = 0;
  std::string label;  // "40x50x36 (m_not_multiple)"
};

// memcheck's shapes: the check's own first, then every case of `cases` it
// covers (model/suite.h, memcheck_covers), smallest first (m*k*n), each
// shape once.
std::vector<SanitizerShape> memcheck_shapes(const Check& check, const std::vector<Case>& cases);

// racecheck's shape, drawn from the grading's seed so that no fixed shape can
// be detected: every dimension in [17, 79] and not a multiple of 16, k >= 33
// (at least three K tiles, where a missing second barrier shows).
SanitizerShape racecheck_shape(std::uint64_t seed);

// The shape the runner's selftest was at when the tool's first error came:
// its "selftest: failed at MxKxN" line, else the last "selftest: shape" line
// before the first error line (compute-sanitizer's "========= Invalid" or a
// hazard), else "".
std::string shape_of_first_error(const std::string& output);

// One Selftest request (proto/protocol.h) per shape, in order, each on
// inputs of its own drawn from `seed`.
std::vector<proto::RunCaseRequest> selftest_requests(const std::vector<SanitizerShape>& shapes, std::uint64_t seed);

// How one compute-sanitizer run over a runner's Selftest requests ended:
// the facts, and the ending in the verdict's words (words/sanitizer_report.h).
struct SanitizerToolOutcome {
  bool clean = false;  // ended with status 0 and every launch answered
  bool hung = false;   // past its limit, or stopped for its quiet limit
  SanitizerEnding ending = SanitizerEnding::Failed;  // when not clean
  std::string what;    // "found errors", "timed out", ... (when not clean)
  std::string shape;   // the shape it concerns ("" when unknown)
};
// `shapes` are the shapes of the run's requests, in order; quiet_s its quiet limit.
SanitizerToolOutcome sanitizer_tool_outcome(const ToolRun& run, const std::vector<SanitizerShape>& shapes,
                                            double quiet_s);

// The tool's name, how it ended and the lines that say what it found (at
// most 12; else the start of its output), so the feedback is short.
std::string sanitizer_summary(const std::string& tool, const ToolRun& r);

}  // namespace sg
