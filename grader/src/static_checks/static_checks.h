// Build of a submission object with nvcc and the static checks on it (grader/ARCHITECTURE.md, "static_checks/").
#pragma once
#include <string>
#include <vector>

#include "process/sandbox.h"

namespace sg {

struct Toolchain {
  std::string nvcc;        // path to nvcc
  std::string arch;        // e.g. "sm_90"; empty = a portable build
  std::string nm = "nm";
  SandboxSupport sandbox;  // this grading's bubblewrap (or none) and uid for the compilers
};

struct CompileResult {
  bool ok = false;
  std::string log;         // compiler output
  std::string object;      // path of the .o
  std::string ptx;         // path of the PTX kept from the same compile (for structure checks)
  double seconds = 0;
};

// nvcc -c of the submission alone, with the grader's flags; keeps the PTX.
CompileResult compile_submission(const Toolchain& tc, const std::string& kernel_cu,
                                 const std::string& workdir, double timeout_s);

struct SymbolReport {
  bool ok = true;
  std::vector<std::string> problems;  // each names the symbol: "defines `main`, which a submission may not define"
};
// Only mysgemm/basicSgemm (and what nvcc emits) defined globally; undefined
// references only from the allowlist; forbidden APIs named.
SymbolReport check_symbols(const Toolchain& tc, const std::string& object);
// The same policy on the object the CPU backend links (kernel.cu compiled
// for the CPU layer): the layer's names are classified by
// classify_cpu_layer_reference, the rest as in an nvcc object.
SymbolReport check_cpu_symbols(const std::string& object, const std::string& nm = "nm");

// Makes every strong global definition of `object` other than mysgemm and
// basicSgemm local (objcopy --localize-symbols), so that a helper of the
// student's can neither collide with nor interpose on anything the runner
// links. Weak definitions (inline functions, templates) are left alone: the
// linker merges their COMDAT groups by name. `helpers` gets the student's own
// names that were made local (demangled, nvcc's stubs left out), for a style
// note. "" on success, else what went wrong.
std::string localise_helpers(const std::string& object, std::vector<std::string>& helpers,
                             const std::string& nm = "nm");

struct StructureReport {
  bool uses_shared = false;
  bool uses_barrier = false;
  bool found_kernel = false;
  std::string detail;
};
// Reads the PTX of mysgemm: a .shared declaration and bar.sync/barrier.sync.
StructureReport check_structure(const std::string& ptx_path);

}  // namespace sg
