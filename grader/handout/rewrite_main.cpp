// cudacpu-rewrite: the CPU backend's source rewriter (grader/src/backends/cpu/rewrite.h)
// as a command for the handout's `make cpu`:
//   cudacpu-rewrite kernel.cu out.cpp
// writes the C++ translation unit for the host compiler, or names the lines
// the CUDA-on-CPU layer cannot run and exits 1.
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "backends/cpu/rewrite.h"
#include "words/source_problems.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: " << argv[0] << " KERNEL.cu OUT.cpp\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::cerr << argv[0] << ": cannot read " << argv[1] << "\n";
    return 2;
  }
  std::ostringstream text;
  text << in.rdbuf();
  // Messages and #line name the file as the student wrote it.
  const sg::RewriteResult r = sg::rewrite_for_cpu(text.str(), argv[1]);
  if (!r.ok()) {
    std::cerr << argv[1] << " cannot be built for the CPU (make cpu):\n";
    for (const std::string& p : sg::source_problem_lines(argv[1], r.problems)) std::cerr << "  " << p << "\n";
    return 1;
  }
  std::ofstream out(argv[2], std::ios::binary | std::ios::trunc);
  out << r.source;
  if (!out.flush()) {
    std::cerr << argv[0] << ": cannot write " << argv[2] << "\n";
    return 2;
  }
  return 0;
}
