// The CPU backend's own words (backends/cpu/cpu_backend.cpp decides when):
// its device as reports name it and its lines in the grade log.
#pragma once
#include <string>

namespace sg {

// "host CPU (correctness only)": the CPU backend times nothing.
std::string cpu_device_name();

// The grade log's line as the sanitizer check starts on the CPU backend.
std::string cpu_sanitizer_log_line();

// The grade log's line as the structure check counts global loads in a run
// of its own at its shape m x k x n (no correctness case has that shape).
std::string structure_count_log_line(int m, int k, int n);

}  // namespace sg
