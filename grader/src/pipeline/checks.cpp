#include "pipeline/checks.h"

#include "pipeline/case_report.h"

namespace sg {
namespace {

void score_by_status(TestResult& t) { t.score = t.status == Status::Passed ? t.max_score : 0; }

// Only mysgemm/basicSgemm defined, no forbidden API: what the static checks
// found. A submission that breaks the policy is rejected before this runs, so
// here it either passed or was not checked (no nvcc, e.g. on Gradescope).
void symbols_check(const CheckContext& ctx, TestResult& t) {
  if (!ctx.build->symbols_checked) {
    mark_not_run(t, "not checked: nvcc is not installed, so there is no object to read the symbols of",
                 Status::Skipped);
    t.max_score = 0;
    return;
  }
  t.status = Status::Passed;
  t.verdict = "defines only mysgemm and basicSgemm globally and uses no forbidden API";
  score_by_status(t);
}

void structure_check(const CheckContext& ctx, TestResult& t) {
  const StructureReport s = ctx.build->structure.value_or(StructureReport{});
  const bool ok = s.found_kernel && s.uses_shared && s.uses_barrier;
  t.status = ok ? Status::Passed : Status::Failed;
  if (!s.found_kernel) t.verdict = "mysgemm not found in the compiled code";
  else if (ok) t.verdict = "mysgemm uses shared memory and a barrier";
  else if (!s.uses_shared && !s.uses_barrier) t.verdict = "mysgemm uses neither shared memory nor __syncthreads";
  else if (!s.uses_shared) t.verdict = "mysgemm does not use shared memory";
  else t.verdict = "mysgemm never calls __syncthreads";
  t.detail = s.detail;
  if (!ok)
    t.diagnoses.push_back({"structure.not_tiled",
                           "the assignment asks for a tiled kernel: stage 16x16 tiles of A and B in __shared__ "
                           "arrays and separate loading from computing with __syncthreads"});
  score_by_status(t);
}

// A kernel that does nothing is trivially clean: the check only pays for a
// kernel that computes something right.
void sanitizer_needs_a_correct_case(const CheckContext& ctx, TestResult& t) {
  if (t.status == Status::Passed && !ctx.cases_out_of_bounds.empty()) {
    std::string names;
    for (std::size_t i = 0; i < ctx.cases_out_of_bounds.size() && i < 4; ++i)
      names += (i ? ", " : "") + ctx.cases_out_of_bounds[i];
    if (ctx.cases_out_of_bounds.size() > 4) names += ", ...";
    t.status = Status::Failed;
    t.verdict = "no points: out-of-bounds accesses in " + std::to_string(ctx.cases_out_of_bounds.size()) +
                " correctness case" + (ctx.cases_out_of_bounds.size() == 1 ? "" : "s") + " (" + names +
                "; see their details), although the sanitizer's own shape was clean";
    t.diagnoses.push_back(kOutOfBoundsHint);
  } else if (t.status == Status::Passed && !ctx.any_case_correct) {
    t.status = Status::Failed;
    t.verdict = "no points: the sanitizer found nothing, but no correctness case passed "
                "(a kernel that does no work is trivially clean)";
  }
  score_by_status(t);
}

}  // namespace

void run_check(const Check& c, CheckStage stage, const CheckContext& ctx, TestResult& t) {
  switch (c.kind) {
    case CheckKind::Symbols:
      if (stage == CheckStage::AfterBuild) symbols_check(ctx, t);
      return;
    case CheckKind::SharedAndBarrier:
      if (stage == CheckStage::AfterBuild) structure_check(ctx, t);
      return;
    case CheckKind::Sanitizer:
      if (stage == CheckStage::BeforeCases) ctx.backend->sanitizer(c, ctx.sanitizer, t);
      if (stage == CheckStage::AfterCases) sanitizer_needs_a_correct_case(ctx, t);
      return;
  }
}

}  // namespace sg
