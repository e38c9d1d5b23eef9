// The families of hypotheses behind matching_hypotheses (compare/hypotheses.h).
// Each returns the first hypothesis of its family that explains the output
// (compare/evidence.h), or nothing.
#pragma once
#include <optional>

#include "compare/diagnosis_catalogue.h"
#include "compare/evidence.h"
#include "model/result.h"

namespace sg {

// What the wrong values are: a wrong index or stride, a transposed tile, too
// few K terms, a constant offset.
std::optional<Diagnosis> value_hypotheses(const evidence::CaseView& v);

// The same for a wrong index that reads past the end of A or B, taking what
// lies there to be 0 (unused GPU memory often is).
std::optional<Diagnosis> value_hypotheses_reading_zeros(const evidence::CaseView& v);

// Which elements were never written: C's stride, the grid, the block, a
// store's guard against the wrong size.
std::optional<Diagnosis> pattern_hypotheses(const evidence::CaseView& v);

// Right sums stored at the wrong place: each wrong element holds the right
// value of another row (or column) of C.
std::optional<Diagnosis> misplaced_store_hypotheses(const evidence::CaseView& v);

// Where the computed NaN or Inf come from: reads past the end of A or B.
std::optional<Diagnosis> outside_read_hypotheses(const evidence::CaseView& v);

// Nothing confirmed: which rows, columns and tiles are wrong, and no cause.
Diagnosis where_wrong(const evidence::CaseView& v);

}  // namespace sg
