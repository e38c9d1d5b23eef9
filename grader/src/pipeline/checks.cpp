#include "pipeline/checks.h"

#include "compare/diagnosis_catalogue.h"
#include "words/case_report.h"
#include "words/check_report.h"

#include <algorithm>
#include <optional>
#include <string>

namespace sg {
namespace {

void score_by_status(TestResult& t) { t.score = t.status == Status::Passed ? t.max_score : 0; }

// Only mysgemm/basicSgemm defined, no forbidden API: what the static checks
// found. A submission that breaks the policy is rejected before this runs, so
// here it either passed or was not checked (no nvcc, e.g. on Gradescope).
void symbols_check(const CheckContext& ctx, TestResult& t) {
  if (!ctx.build->symbols_checked) {
    mark_not_run(t, symbols_not_checked(), Status::Skipped);
    t.max_score = 0;
    return;
  }
  t.status = Status::Passed;
  t.verdict = symbols_passed();
  score_by_status(t);
}

// The 16x16 tiled reference loads one value of A and one of B per thread and
// K tile, a sixteenth of the naive kernel's loads (computed from its tiles;
// grader/tools/gpu_check_structure.sh measures it on the GPU).
constexpr double kReferenceReuse = 16;

// Passes on the data reuse the backend measured (ncu on the GPU) when it
// can; where nothing counts loads, on the static structure, and says so.
void structure_check(const Check& c, const CheckContext& ctx, TestResult& t) {
  const StructureReport s = ctx.build->structure.value_or(StructureReport{});
  const ReuseMeasurement m = ctx.backend->measure_reuse(c, ctx.sanitizer);
  Reuse reuse;
  reuse.source = m.source;
  reuse.reference = kReferenceReuse;
  reuse.min_factor = c.min_reuse;
  reuse.naive_loads = m.naive_loads;
  t.seconds = m.seconds;
  switch (m.outcome) {
    case ReuseMeasurement::Outcome::Measured: {
      const double factor = m.naive_loads / m.loads;
      reuse.factor = factor;
      reuse.loads = m.loads;
      t.status = factor >= c.min_reuse ? Status::Passed : Status::Failed;
      t.verdict = reuse_verdict(factor, kReferenceReuse,
                                t.status == Status::Failed ? std::optional<double>(c.min_reuse) : std::nullopt);
      t.detail = reuse_detail(m.source, m.loads, m.kernels, c, m.naive_loads, s);
      if (factor < c.min_reuse) t.diagnoses.push_back(make_diagnosis(DiagnosisId::StructureLowReuse));
      break;
    }
    case ReuseMeasurement::Outcome::Unavailable: {
      reuse.source = ReuseSource::Static;
      reuse.naive_loads = 0;
      t.m = t.k = t.n = 0;  // nothing ran at the check's shape
      const bool ok = s.found_kernel && s.uses_shared && s.uses_barrier;
      t.status = ok ? Status::Passed : Status::Failed;
      t.verdict = structure_checked_statically(m.why, m.fallback, static_verdict(s));
      t.detail = s.detail;
      if (!ok) t.diagnoses.push_back(make_diagnosis(DiagnosisId::StructureNotTiled));
      break;
    }
    case ReuseMeasurement::Outcome::NotMeasured:
      t.status = Status::Failed;
      t.verdict = reuse_not_measured_verdict(m.why);
      t.detail = reuse_not_measured_detail(static_verdict(s), s.detail);
      break;
  }
  t.reuse = reuse;
  score_by_status(t);
}

// The structure check pays only for a kernel that computes something right
// (as the sanitizer check): a correctness case must have passed. Backends
// count the loads of whatever basicSgemm launches, also of a kernel whose
// result is wrong.
void structure_needs_a_correct_case(const CheckContext& ctx, TestResult& t) {
  if (t.status != Status::Passed || ctx.any_case_correct) return;
  t.status = Status::Failed;
  t.verdict = structure_without_a_correct_case(t.verdict);
  score_by_status(t);
}

// A tile of one element of C per thread reuses each loaded value at most 32
// times (32x32 threads; reuse = 2*BM*BN/(BM+BN) <= sqrt(BM*BN)), so a higher
// measured reuse means several elements of C per thread (register tiling) or
// vector loads (one 16-byte load is one instruction). 5% above, so that a
// 32x32 tile's exact 32 never passes on a rounding.
constexpr double kOneElementPerThreadReuse = 32;

// Feedback on the structure check's measured figure; it runs nothing. With
// no points in the suite it is set aside where the figure is lower or missing.
void register_tiling_check(const CheckContext& ctx, TestResult& t) {
  const Reuse* measured = nullptr;
  for (const TestResult& s : *ctx.tests)
    if (s.kind == TestKind::Check && s.reuse && s.reuse->factor) measured = &*s.reuse;
  const Status short_of_it = t.max_score > 0 ? Status::Failed : Status::Skipped;
  if (!measured) {
    mark_not_run(t, register_tiling_not_measured(), short_of_it);
    return;
  }
  const double f = *measured->factor;
  const bool seen = f > 1.05 * kOneElementPerThreadReuse;
  t.status = seen ? Status::Passed : short_of_it;
  t.verdict = register_tiling_verdict(seen, f, kOneElementPerThreadReuse);
  score_by_status(t);
}

// A kernel that does nothing is trivially clean: the check only pays for a
// kernel that computes something right. And memcheck covers the small cases
// (memcheck_covers): where the backend's own tool did not run them (the CPU
// backend) and the runner failed in one (a crash, a hang, a refused launch),
// the check fails as compute-sanitizer does on a GPU.
void sanitizer_needs_a_correct_case(const Check& c, const CheckContext& ctx, TestResult& t) {
  std::vector<std::string> failed_runs;
  if (!ctx.backend->sanitizer_runs_cases())
    for (const Case& cs : ctx.sanitizer.cases)
      if (memcheck_covers(c, cs) && std::find(ctx.cases_runner_failed.begin(), ctx.cases_runner_failed.end(),
                                              cs.name) != ctx.cases_runner_failed.end())
        failed_runs.push_back(cs.name);
  if (t.status == Status::Passed && !failed_runs.empty()) {
    t.status = Status::Failed;
    t.verdict = sanitizer_failed_in_covered_cases(failed_runs);
  } else if (t.status == Status::Passed && !ctx.cases_with_block_races.empty()) {
    t.status = Status::Failed;
    t.verdict = sanitizer_but_block_races(ctx.cases_with_block_races);
    t.diagnoses.push_back(make_diagnosis(DiagnosisId::RaceBetweenBlocks));
  } else if (t.status == Status::Passed && !ctx.cases_out_of_bounds.empty()) {
    t.status = Status::Failed;
    t.verdict = sanitizer_but_out_of_bounds(ctx.cases_out_of_bounds);
    t.diagnoses.push_back(make_diagnosis(DiagnosisId::MemoryOutOfBounds));
  } else if (t.status == Status::Passed && !ctx.any_case_correct) {
    t.status = Status::Failed;
    t.verdict = sanitizer_but_nothing_correct();
  }
  score_by_status(t);
}

// The scorers, one a kind, each called only at the stages its row lists.
void score_symbols(const Check&, CheckStage, const CheckContext& ctx, TestResult& t) { symbols_check(ctx, t); }

// Where the backend's count needs the correctness cases' counts, the measurement waits for them.
void score_structure(const Check& c, CheckStage stage, const CheckContext& ctx, TestResult& t) {
  if (stage == (ctx.backend->reuse_after_cases() ? CheckStage::AfterCases : CheckStage::AfterBuild))
    structure_check(c, ctx, t);
  if (stage == CheckStage::AfterCases) structure_needs_a_correct_case(ctx, t);
}

void score_sanitizer(const Check& c, CheckStage stage, const CheckContext& ctx, TestResult& t) {
  if (stage == CheckStage::BeforeCases) ctx.backend->sanitizer(c, ctx.sanitizer, t);
  if (stage == CheckStage::AfterCases) sanitizer_needs_a_correct_case(c, ctx, t);
}

void score_register_tiling(const Check&, CheckStage, const CheckContext& ctx, TestResult& t) {
  register_tiling_check(ctx, t);
}

struct KindScorer {
  CheckKind kind;
  void (*score)(const Check&, CheckStage, const CheckContext&, TestResult&);
};

// In kCheckKinds' order, so that a kind's value is its scorer's index.
constexpr KindScorer kScorers[] = {
    {CheckKind::Symbols, score_symbols},
    {CheckKind::SharedAndBarrier, score_structure},
    {CheckKind::Sanitizer, score_sanitizer},
    {CheckKind::RegisterTiling, score_register_tiling},
};

constexpr bool scorers_follow_the_table() {
  if (sizeof(kScorers) / sizeof(kScorers[0]) != kCheckKindCount) return false;
  for (std::size_t i = 0; i < kCheckKindCount; ++i)
    if (kScorers[i].kind != kCheckKinds[i].kind) return false;
  return true;
}
static_assert(scorers_follow_the_table(), "kScorers needs one scorer a row of kCheckKinds, in its order");

}  // namespace

void run_check(const Check& c, CheckStage stage, const CheckContext& ctx, TestResult& t) {
  if (check_kind_row(c.kind).stages.has(stage)) kScorers[static_cast<std::size_t>(c.kind)].score(c, stage, ctx, t);
}

}  // namespace sg
