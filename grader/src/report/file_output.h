// Writing a report file so that nobody ever reads half of one.
#pragma once
#include <string>

namespace sg::report {

// Writes `text` to `path` through a temporary file and a rename. Throws
// std::runtime_error("cannot write PATH: reason") on any failure.
void write_text_file(const std::string& path, const std::string& text);

}  // namespace sg::report
