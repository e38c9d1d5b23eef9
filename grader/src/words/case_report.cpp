#include "words/case_report.h"

#include <cmath>
#include <cstdio>
#include <optional>
#include <sstream>

#include "compare/diagnosis.h"
#include "compare/diagnosis_catalogue.h"

namespace sg {

void mark_not_run(TestResult& t, const std::string& why, Status status) {
  t.status = status;
  t.score = 0;
  t.verdict = why;
}

namespace {

// A fault message names the block shape: the CPU backend's ("... of block
// (0,0) (blocks of 256x1 threads)"), and the GPU runner's note of the
// submission's launch ("... (blocks of 256x1 threads, grid 256x1)"). A block of one row of threads for a
// kernel with square shared tiles is the launch bug behind the overrun: the
// kernel indexes its tiles with threadIdx.x up to blockDim.x - 1.
std::optional<Diagnosis> block_shape_diagnosis(const std::string& cause) {
  unsigned bx = 0, by = 0;
  const std::size_t at = cause.find("(blocks of ");
  if (at == std::string::npos || std::sscanf(cause.c_str() + at, "(blocks of %ux%u threads)", &bx, &by) != 2 ||
      by != 1 || bx < 2)
    return std::nullopt;
  // The tile edge, where the overrun array is a square tile.
  std::string tile = "TILE_SIZE";
  unsigned long count = 0;
  const std::size_t alloc = cause.find("(allocation of ");
  if (cause.find("__shared__") != std::string::npos && alloc != std::string::npos &&
      std::sscanf(cause.c_str() + alloc, "(allocation of %lu", &count) == 1) {
    const auto edge = static_cast<unsigned long>(std::lround(std::sqrt(double(count))));
    if (edge > 1 && edge * edge == count && edge < bx) tile = std::to_string(edge);
  }
  const std::string b = std::to_string(bx);
  return make_diagnosis(DiagnosisId::BlockOneRow,
                        "the kernel ran with blocks of " + b +
                            " x 1 threads (blockDim.y = 1): threadIdx.y is always 0, "
                            "so only one row of each tile is loaded and computed, and threadIdx.x runs up to " +
                            std::to_string(bx - 1) + ", past the edge of a " + tile + " x " + tile + " tile" +
                            (cause.find("__shared__") != std::string::npos ? " (the access named above)" : "") +
                            " — launch dim3 block(" + tile + ", " + tile +
                            ") and a two-dimensional grid, dim3 grid((n + " + tile + " - 1) / " + tile + ", (m + " +
                            tile + " - 1) / " + tile + ")");
}

}  // namespace

void record_runner_failure(TestResult& t, const CaseOutcome& o) {
  t.status = Status::Failed;
  t.score = 0;
  switch (o.kind) {
    case CaseOutcome::Kind::TimedOut: t.verdict = o.cause + " (killed)"; break;
    case CaseOutcome::Kind::Crashed: t.verdict = "crashed: " + o.cause; break;
    case CaseOutcome::Kind::LaunchError: t.verdict = o.cause; break;
    case CaseOutcome::Kind::OutOfMemory: t.verdict = o.cause; break;
    default: t.verdict = o.cause; break;
  }
  if (auto shape = block_shape_diagnosis(o.cause)) t.diagnoses.push_back(*shape);
  if (o.kind == CaseOutcome::Kind::TimedOut && o.extended)
    t.diagnoses.push_back(make_diagnosis(DiagnosisId::GridSlowOnCpu));
  else if (o.kind == CaseOutcome::Kind::TimedOut)
    t.diagnoses.push_back(make_diagnosis(DiagnosisId::HangTimeout));
  if (o.kind == CaseOutcome::Kind::CudaError && o.cause.find("IllegalAddress") != std::string::npos)
    t.diagnoses.push_back(make_diagnosis(DiagnosisId::MemoryIllegalAddress));
}

std::string describe_comparison(const Comparison& cmp, int m, int n) {
  std::ostringstream s;
  char buf[256];
  s << cmp.wrong << " of " << cmp.checked << " elements wrong";
  if (cmp.non_finite) {
    s << " (" << cmp.non_finite << " NaN or Inf";
    if (cmp.unwritten == cmp.non_finite) s << ": never written";
    else if (cmp.unwritten > 0) s << ": " << cmp.unwritten << " never written, " << cmp.non_finite - cmp.unwritten << " computed";
    else s << ": written by the kernel";
    s << ")";
  }
  if (cmp.wrong > cmp.non_finite) {
    if (std::isinf(cmp.worst_ratio)) {
      s << "; an exact match is required for these inputs";
    } else {
      std::snprintf(buf, sizeof buf, "; worst error %.3g times its bound", cmp.worst_ratio);
      s << buf;
    }
  }
  s << "\n";
  if (!cmp.first_wrong.empty()) {
    s << "first wrong elements (row, col): got / expected (bound)\n";
    for (const Mismatch& w : cmp.first_wrong) {
      std::snprintf(buf, sizeof buf, "  C[%d][%d]: %.9g / %.9g (+-%.3g)\n", w.row, w.col, double(w.got), w.expected,
                    w.bound);
      s << buf;
    }
  }
  if (!cmp.tile_map.empty()) {
    s << "wrong output tiles ('#' = some element wrong), C is " << m << " x " << n << ":\n";
    for (const std::string& row : cmp.tile_map) s << "  " << row << "\n";
  }
  return s.str();
}

bool record_comparison(TestResult& t, const Case& c, Comparison cmp, bool differs_between_runs, const CaseData* data) {
  bool reproduced = false;
  if (cmp.wrong == 0) {
    t.status = Status::Passed;
    t.score = t.max_score;
    t.verdict = c.exact ? "passed (exact match)" : "passed";
  } else {
    t.status = Status::Failed;
    t.score = 0;
    t.verdict = "wrong result: " + std::to_string(cmp.wrong) + " of " + std::to_string(cmp.checked) + " elements";
    t.detail = describe_comparison(cmp, c.m, c.n);
    CaseEvidence e;
    e.m = c.m;
    e.k = c.k;
    e.n = c.n;
    e.first = cmp;
    e.outputs_differ_between_runs = differs_between_runs;
    e.data = data;
    CaseDiagnosis found = diagnose(e);
    reproduced = found.reproduced;
    for (Diagnosis& d : found.causes) t.diagnoses.push_back(std::move(d));
    if (differs_between_runs) t.detail += "the output changed between two runs on the same inputs\n";
  }
  t.comparison = std::move(cmp);
  return reproduced;
}

void note_block_race(TestResult& t, const std::string& first, unsigned long long stores) {
  if (t.status == Status::Passed) t.verdict += ", but with a race between blocks (see the details)";
  t.detail += "race between blocks: " + first + " (" + std::to_string(stores) + " store" + (stores == 1 ? "" : "s") +
              " in all to elements another block had written with other values in the same launch)\n"
              "(on a GPU the blocks run at once and such updates are lost or overwritten in no fixed order; "
              "the sanitizer check takes points for it)\n";
  t.diagnoses.push_back(make_diagnosis(DiagnosisId::RaceBetweenBlocks));
}

void note_out_of_bounds(TestResult& t, const std::string& access) {
  if (t.status == Status::Passed) t.verdict += ", but with an out-of-bounds access (see the details)";
  t.detail += "out-of-bounds access: " + access +
              "\n(the kernel went on, as it would on a GPU: such a read gives garbage and such a write lands in "
              "memory that is not C; the sanitizer check takes points for it)\n";
  t.diagnoses.push_back(make_diagnosis(DiagnosisId::MemoryOutOfBounds));
}

}  // namespace sg
