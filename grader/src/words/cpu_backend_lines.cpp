#include "words/cpu_backend_lines.h"

namespace sg {

std::string cpu_device_name() { return "host CPU (correctness only)"; }

std::string cpu_sanitizer_log_line() {
  return "sanitizer (CPU backend: red zones, races between blocks, both thread orders)";
}

std::string structure_count_log_line(int m, int k, int n) {
  return "structure: global loads at " + std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n);
}

}  // namespace sg
