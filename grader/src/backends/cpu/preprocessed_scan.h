// What the CPU backend refuses in a submission's preprocessed text (g++ -E
// output of the rewritten kernel.cu): the constructs that would run the
// student's code outside the access hooks of the CPU layer
// (grader/cudacpu/lib/launch_tracking.h), after every macro is expanded and every
// line splice joined, so that neither can hide them. Only the text of the
// student's own file counts (the line markers say which lines are whose):
// the layer's and the system's headers are the kit's.
//  - inline assembly (`asm`, `__asm__`): its accesses are not instrumented;
//  - attributes that turn instrumentation or optimisation settings off for
//    a function (no_sanitize*, no_address_safety_analysis,
//    disable_sanitizer_instrumentation, optimize, naked) and the pragmas
//    that change them for a stretch of code (GCC optimize/push_options);
//  - the x86 builtins (`__builtin_ia32_*`), whose loads are not seen.
// A linear pass over the tokens of the text (backends/cpu/cuda_tokens.h, the
// rewriter's tokenizer), none kept: each byte is looked at a bounded number of times.
#pragma once
#include <string>

#include "model/source_problem.h"

namespace sg {

// One problem per construct found (words/cpu_backend_lines says "kernel.cu:12:
// the attribute `no_sanitize_address` ..."), at most `max_problems` shown.
// `student_file` is the name the line markers give the student's file ("kernel.cu").
SourceProblems scan_preprocessed(const std::string& text, const std::string& student_file,
                                 std::size_t max_problems = 20);

}  // namespace sg
