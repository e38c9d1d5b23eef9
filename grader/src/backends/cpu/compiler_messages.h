// What the student sees of g++'s messages on the CPU backend: only names they
// wrote. g++ compiles a rewritten kernel.cu against the CPU layer, so its
// spelling suggestions can name the layer's internals ("did you mean
// 'SIZE_WIDTH'?"); those are removed, the messages themselves kept.
#pragma once
#include <string>

namespace sg {

// `log` with every "did you mean 'X'?" suggestion (and its fix-it line) whose
// X does not occur in `student_source` removed.
std::string student_facing_messages(const std::string& log, const std::string& student_source);

// The first "error:" line of a compiler log ("kernel.cu:19:27: error: ..."), or "".
std::string first_error_line(const std::string& log);

// Does the log blame something of the CPU layer rather than the student's text?
bool mentions_cpu_layer(const std::string& log);

}  // namespace sg
