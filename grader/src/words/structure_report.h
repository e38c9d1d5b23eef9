// Sentences of the PTX structure check (static_checks/ptx_structure.cpp finds,
// these say): the detail reports show beside the structure check's verdict.
#pragma once
#include <string>

#include "static_checks/static_checks.h"

namespace sg {

// Where the PTX showed it: "bar.sync", ".shared declaration", "ld.shared.f32
// (in helper(float*))", "ld.u32 of shared variable tile".
std::string ptx_evidence_text(const PtxEvidence& e);

// check_structure's findings as lines for people: the PTX file could not be
// read; no kernel mysgemm with the contract's signature; else what mysgemm
// uses, or lacks and why it matters (one line each, joined by "\n").
std::string ptx_structure_detail(const StructureReport& r);

// check_structure's report with its `detail` filled in from its facts.
StructureReport with_ptx_detail(StructureReport r);

}  // namespace sg
