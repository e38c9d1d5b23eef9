// The one PATH look-up for every program the grader starts.
#pragma once
#include <string>
#include <vector>

namespace sg {

// An executable regular file for `name`: `name` itself when it holds a '/',
// else the first match in $PATH (an empty entry is "."; no PATH means
// /usr/local/bin:/usr/bin:/bin), else the first executable of `fallbacks`.
// "" when there is none.
std::string find_program(const std::string& name, const std::vector<std::string>& fallbacks = {});

}  // namespace sg
