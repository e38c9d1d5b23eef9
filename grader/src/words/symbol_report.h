// Sentences of the symbol check (static_checks/ decides from nm's listing,
// these say): why a reference or a definition is refused, one line a problem,
// as the build log and the "rejected: ..." verdict show them.
#pragma once
#include <string>
#include <vector>

#include "static_checks/static_checks.h"
#include "static_checks/symbol_policy.h"

namespace sg {

// Why a family of functions is forbidden: "ends the process: a submission may
// not exit or abort"; a GEMM library's: "<library>: library GEMM is not
// allowed"; "" for None (allowed, or not on the allowlist).
std::string family_text(const build::ReferenceVerdict& v);

// A definition the policy refuses: "defines `main`, which a submission may not define", ...
std::string definition_problem_text(const build::DefinitionProblem& p);

// One problem of the symbol check as one line.
std::string symbol_problem_text(const SymbolProblem& p);
// Every problem of `r`, one line each, in the order the check found them.
std::vector<std::string> symbol_problem_lines(const SymbolReport& r);

}  // namespace sg
