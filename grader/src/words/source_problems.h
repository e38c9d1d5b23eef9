// What the CPU backend cannot build in a submission's source, said: a line
// each, naming the file and line. Plain C++ (no fmt): it ships in the
// handout with the rewriter (grader/handout/stage_cudacpu.sh), where the
// student's `make cpu` says the same lines as the grader.
#pragma once
#include <string>
#include <vector>

#include "model/source_problem.h"

namespace sg {

// "kernel.cu:5: `__shfl_down_sync` is not supported on the CPU backend", one
// per problem, then "(N more not shown)" where some were left out.
std::vector<std::string> source_problem_lines(const std::string& file, const SourceProblems& problems);

}  // namespace sg
