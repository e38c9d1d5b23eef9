// Turns error patterns into likely causes a student can act on. Pure
// functions over comparisons; no I/O.
#pragma once
#include <string>
#include <vector>

#include "compare/hypotheses.h"
#include "model/result.h"

namespace sg {

// What is known about one failing case when diagnosing it.
struct CaseEvidence {
  int m = 0, k = 0, n = 0;
  // The inputs and the output, when the caller has them: the hypotheses of
  // compare/hypotheses.h are then tested against the actual values.
  const CaseData* data = nullptr;
  Comparison first;                  // the checked launch
  const Comparison* repeat = nullptr;  // a second run on the same inputs, if made
  bool outputs_differ_between_runs = false;
};

// One case's diagnoses, most specific first (may be empty), and whether a
// bug's prediction reproduced the output (then they say what the kernel did,
// and the rules across sizes have nothing to add). Ids come from
// compare/diagnosis_catalogue.h; the text holds the case's sizes.
struct CaseDiagnosis {
  std::vector<Diagnosis> causes;
  bool reproduced = false;
};
CaseDiagnosis diagnose(const CaseEvidence& e);
// diagnose(e).causes.
std::vector<Diagnosis> diagnose_case(const CaseEvidence& e);

// Diagnoses across all cases of a submission, e.g. "fails only when k is not a
// multiple of 16 -> the last K tile", "fails only when k != n -> leading dimension".
// `outcomes` holds the size of every correctness case that ran and whether it passed.
struct SizeOutcome { int m, k, n; bool passed; };
std::vector<Diagnosis> diagnose_across(const std::vector<SizeOutcome>& outcomes);

}  // namespace sg
