#include "words/case_report.h"

#include <cmath>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "compare/diagnosis.h"
#include "compare/diagnosis_catalogue.h"
#include "words/timing_report.h"
#include "words/verdict_preambles.h"

namespace sg {

void mark_not_run(TestResult& t, const std::string& why, Status status) {
  t.status = status;
  t.score = 0;
  t.verdict = why;
}

void mark_stopped(TestResult& t, const std::string& verdict, const std::string& why) {
  mark_not_run(t, verdict);
  t.stopped_by = why;
}

std::string not_measured_verdict(const TimedFailure& f) {
  const std::string baseline = "the grader's baseline runner failed: ";
  switch (f.step) {
    case TimedStep::Yardstick:
    case TimedStep::Baselines: return not_measured(baseline + runner_failure(f.request));
    case TimedStep::ReferenceOutput:
      return not_measured(baseline + "the reference's own timed output failed the check: " +
                          output_fault_text(f.reference_wrong));
    case TimedStep::StudentSamples: return not_measured("the timed launches failed: " + runner_failure(f.request));
    case TimedStep::Probe:
      return not_measured("the timed launches failed: the grader's baseline runner failed between the samples: " +
                          runner_failure(f.request));
  }
  return "";
}

void mark_not_run(TestResult& t, const std::optional<TimedFailure>& failure) {
  mark_not_run(t, failure ? not_measured_verdict(*failure) : std::string());
}

namespace {

// The runner named the faulting thread, and its block's shape, in its
// message (the CPU layer's "... by thread (255,0) of block (0,0) (blocks of
// 256x1 threads)"): nothing to add about the launch.
bool thread_named(const proto::LaunchFacts& f) {
  return f.fault == proto::FaultKind::OutOfBounds || f.fault == proto::FaultKind::ThreadFault;
}

// A launch the runner saw (a zero dimension is a fact too: a refused launch).
bool launch_known(const proto::LaunchFacts& f) { return (f.block_x | f.block_y | f.grid_x | f.grid_y) != 0; }

// A block of one row of threads for a kernel with square shared tiles is the
// launch bug behind an overrun: the kernel indexes its tiles with threadIdx.x
// up to blockDim.x - 1. Where the runner (the CPU layer) named the overrun
// of a __shared__ array, the diagnosis points at it, and the tile edge is the
// array's where its element count is a square.
std::optional<Diagnosis> block_shape_diagnosis(const proto::LaunchFacts& f) {
  const unsigned bx = f.block_x;
  if (f.block_y != 1 || bx < 2) return std::nullopt;
  const bool shared_array = f.fault == proto::FaultKind::OutOfBounds && f.fault_shared != 0;
  std::string tile = "TILE_SIZE";
  if (shared_array && f.fault_elements > 0) {
    const unsigned long long count = f.fault_elements;
    const auto edge = static_cast<unsigned long long>(std::llround(std::sqrt(double(count))));
    if (edge > 1 && edge * edge == count && edge < bx) tile = std::to_string(edge);
  }
  const std::string b = std::to_string(bx);
  return make_diagnosis(DiagnosisId::BlockOneRow,
                        "the kernel ran with blocks of " + b +
                            " x 1 threads (blockDim.y = 1): threadIdx.y is always 0, "
                            "so only one row of each tile is loaded and computed, and threadIdx.x runs up to " +
                            std::to_string(bx - 1) + ", past the edge of a " + tile + " x " + tile + " tile" +
                            (shared_array ? " (the access named above)" : "") + " — launch dim3 block(" + tile +
                            ", " + tile + ") and a two-dimensional grid, dim3 grid((n + " + tile + " - 1) / " + tile +
                            ", (m + " + tile + " - 1) / " + tile + ")");
}

}  // namespace

std::string quota_text(const QuotaOverrun& over) {
  return "its " + over.folder + "'s quota (" + std::to_string(over.quota.bytes >> 20) + " MiB or " +
         std::to_string(over.quota.files) + " files)";
}

std::string quota_verdict(const QuotaOverrun& over) {
  return "the submission wrote more than " + quota_text(over) + ": a submission may not write files";
}

namespace {

// What happened, before how the runner ended.
std::string what_failed(const CaseOutcome& o) {
  using F = CaseOutcome::Failure;
  switch (o.failure) {
    case F::None: return "";
    case F::NotStarted: return "could not start the runner: " + o.message;
    case F::OutputOverQuota:
      return "the runner could not be started: the submission's output and files took more than " +
             (o.quota ? quota_text(*o.quota) : std::string());
    case F::OverQuota: return o.quota ? quota_verdict(*o.quota) : "";
    case F::TimedOut: return "timed out after " + std::to_string(static_cast<int>(o.after_s + 0.5)) + " s";
    case F::TimedOutExtended:
      return fmt::format(
          "timed out after {:.0f} s while its blocks kept completing (its limit of {:.0f} s was extended as "
          "long as they did, up to {:.0f} times that and {:.0f} s in all per grading)",
          o.after_s, o.limit_s, o.extension_factor, o.extension_budget_s);
    case F::DiedBeforeReading: return "the runner died before reading the case";
    case F::DiedWhileRunning: return "the runner died while running the case";
    case F::MalformedReply: return "the runner sent a malformed reply (" + o.message + ")";
    case F::ReplyToOther: return "the runner sent a reply to another request";
    case F::Rejected: return "the runner rejected the request: " + o.message;
    case F::OutOfMemory: return "out of GPU memory: " + o.message;
    case F::LaunchFailed: return o.message;
    case F::CudaError: return "CUDA error: " + o.message;
  }
  return "";
}

}  // namespace

std::string runner_failure(const CaseOutcome& o) {
  switch (o.runner_end) {
    case CaseOutcome::RunnerEnd::Unknown: break;
    case CaseOutcome::RunnerEnd::Killed: return what_failed(o) + " (the runner did not end by itself and was killed)";
    case CaseOutcome::RunnerEnd::Ended: return what_failed(o) + " (runner " + o.runner_exit.describe() + ")";
  }
  return what_failed(o);
}

std::string failure_cause(const CaseOutcome& o) {
  const proto::LaunchFacts& f = o.facts;
  const std::string cause = runner_failure(o);
  if (!launch_known(f) || thread_named(f)) return cause;
  return cause + " (blocks of " + std::to_string(f.block_x) + "x" + std::to_string(f.block_y) + " threads, grid " +
         std::to_string(f.grid_x) + "x" + std::to_string(f.grid_y) + ")";
}

void record_runner_failure(TestResult& t, const CaseOutcome& o) {
  t.status = Status::Failed;
  t.score = 0;
  const std::string cause = failure_cause(o);
  switch (o.kind) {
    case CaseOutcome::Kind::TimedOut: t.verdict = cause + " (killed)"; break;
    case CaseOutcome::Kind::Crashed: t.verdict = "crashed: " + cause; break;
    case CaseOutcome::Kind::LaunchError: t.verdict = cause; break;
    case CaseOutcome::Kind::OutOfMemory: t.verdict = cause; break;
    default: t.verdict = cause; break;
  }
  if (auto shape = block_shape_diagnosis(o.facts)) t.diagnoses.push_back(*shape);
  if (o.kind == CaseOutcome::Kind::TimedOut && o.extended)
    t.diagnoses.push_back(make_diagnosis(DiagnosisId::GridSlowOnCpu));
  else if (o.kind == CaseOutcome::Kind::TimedOut)
    t.diagnoses.push_back(make_diagnosis(DiagnosisId::HangTimeout));
  if (o.kind == CaseOutcome::Kind::CudaError && o.facts.fault == proto::FaultKind::IllegalAddress)
    t.diagnoses.push_back(make_diagnosis(DiagnosisId::MemoryIllegalAddress));
}

std::string ran_alone_again_note(std::size_t replayed, bool failed_in_replay) {
  std::string note =
      "it timed out while other gradings shared the device, so it ran again with the device to itself and the "
      "same limit";
  if (replayed > 0 || failed_in_replay)
    note += ", on a fresh runner that first made again the " + std::to_string(replayed + (failed_in_replay ? 1 : 0)) +
            " checked launch" + (replayed + (failed_in_replay ? 1 : 0) == 1 ? "" : "es") +
            " its runner had made before it (the case is then the same call of the program)";
  if (failed_in_replay) return note + "; one of those failed, and this is that failure\n";
  return note + "; this is that run's verdict\n";
}

std::string shortened_limit_note(double limit_s, double usual_s) {
  return fmt::format(
      "its limit was {:.1f} s instead of {:.0f} s because an earlier case hung: a kernel that completes "
      "needs only the time for the case's work\n",
      limit_s, usual_s);
}

std::string partition_note(unsigned sms) {
  return "checked on a partition of " + std::to_string(sms) +
         " SMs (as every case after the runner failed once); timed launches use the whole GPU\n";
}

std::string extended_limit_note(double took_s, double limit_s) {
  return fmt::format(
      "took {:.1f} s, past its limit of {:.0f} s, which was extended because its blocks kept completing: "
      "the CPU backend runs blocks a few at a time, so a grid larger than C needs (or more K tiles "
      "than k has) costs time here that a GPU hides\n",
      took_s, limit_s);
}

std::string describe_comparison(const Comparison& cmp, int m, int n) {
  std::ostringstream s;
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
      s << fmt::format("; worst error {:.3g} times its bound", cmp.worst_ratio);
    }
  }
  s << "\n";
  if (!cmp.first_wrong.empty()) {
    s << "first wrong elements (row, col): got / expected (bound)\n";
    for (const Mismatch& w : cmp.first_wrong) {
      s << fmt::format("  C[{}][{}]: {:.9g} / {:.9g} (+-{:.3g})\n", w.row, w.col, double(w.got), w.expected, w.bound);
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
