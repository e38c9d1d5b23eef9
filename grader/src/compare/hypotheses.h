// Diagnoses from evidence: each hypothesis is one classic bug, and predicts
// what a kernel with exactly that bug would have written for this case's
// inputs. A hypothesis is reported only when its prediction reproduces the
// submission's output: the values of the wrong elements (a wrong leading
// dimension, a transposed operand or tile, too few K terms, non-zero padding,
// right sums stored in the wrong row) or the exact set of elements left
// unwritten (a swapped or rounded-down grid, a guard against the wrong size, a
// block of one row), and when no element contradicts it (compare/evidence.h).
// So a diagnosis says what the kernel did, not just what the error pattern
// looks like.
#pragma once
#include <optional>
#include <vector>

#include "model/result.h"

namespace sg {

// One failing case's data. Every pointer is row-major and must stay valid
// during the call.
struct CaseData {
  int m = 0, k = 0, n = 0;
  const float* a = nullptr;        // m x k
  const float* b = nullptr;        // k x n
  const float* c = nullptr;        // m x n, the submission's output
  const double* c64 = nullptr;     // m x n, the FP64 oracle
  const double* abs_ab = nullptr;  // m x n, |A||B|
  double factor = 2;               // the case's tolerance factor
  // What a hypothesis takes a read outside A or B to return; unset: such an
  // element cannot be predicted. Set by the hypotheses themselves.
  bool outside_known = false;
  float outside_value = 0;
};

// The hypotheses that reproduce the output, most specific first (usually
// none or one). Ids are stable ("ld.b_uses_k", "grid.swapped_xy", ...); the
// text names the sizes and the tile edge that fit.
std::vector<Diagnosis> matching_hypotheses(const CaseData& d);

// Whether a diagnosis came from a hypothesis that reproduced the output (the
// across-case size rules have nothing to add to those).
bool is_confirmed_hypothesis(const Diagnosis& d);

// Where no hypothesis is confirmed: which elements are wrong (never written,
// wrong values, NaN), in which rows, columns and tiles, and no cause
// ("wrong.where"). Nothing for an output too large to scan.
std::optional<Diagnosis> describe_wrong_elements(const CaseData& d);

}  // namespace sg
