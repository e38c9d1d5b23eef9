// Build of a submission object with nvcc and the static checks on it (grader/ARCHITECTURE.md, "static_checks/").
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "process/sandbox.h"
#include "static_checks/symbol_policy.h"

namespace sg {

struct Toolchain {
  std::string nvcc;        // path to nvcc
  std::string arch;        // e.g. "sm_90"; empty = a portable build
  std::string nm = "nm";
  SandboxSupport sandbox;  // this grading's bubblewrap (or none) and uid for the compilers
};

// Why compile_submission stopped where a sentence of the grader's says it,
// as facts (words/build_report.h, compile_log, says each as the build log's
// last line). A system call's or nvcc's own error is in the log as it came.
struct CompileProblem {
  enum class Kind {
    None,
    SourceMissing, SourceIsFolder, SourceUnreadable, SourceEmpty,  // the submission's file: `path`
    TimedOut,   // nvcc ran past `timeout_s`
    Signalled,  // nvcc was killed by `signal`
    Failed,     // nvcc exited with `code`
    NoObject,   // nvcc said it succeeded but wrote no object at `path`
    NoPtx,      // nvcc kept no PTX in the folder `path`
  };
  Kind kind = Kind::None;
  std::string path;
  double timeout_s = 0;
  int signal = 0, code = 0;
};

struct CompileResult {
  bool ok = false;
  std::string log;         // the command and the compiler's output (words/build_report.h's compile_log adds `problem`)
  CompileProblem problem;  // why it stopped, where the grader says it
  std::string object;      // path of the .o
  std::string ptx;         // path of the PTX kept from the same compile (for structure checks)
  double seconds = 0;
};

// nvcc -c of the submission alone, with the grader's flags; keeps the PTX.
CompileResult compile_submission(const Toolchain& tc, const std::string& kernel_cu,
                                 const std::string& workdir, double timeout_s);

// One problem the symbol check found, as facts (words/symbol_report.h says
// each as the line reports show: "defines `main`, which a submission may not define").
struct SymbolProblem {
  enum class Kind {
    TableUnreadable,  // nm could not list the object's symbols: `object`, and `why`
    TableTooLarge,    // nm's listing of `object` is over `cap_mib` MiB
    Defines,          // a definition the policy refuses: `definition`
    Missing,          // `missing`, a function of the contract, is not defined
    Uses,             // an undefined reference the policy refuses: `symbol`, `verdict`
  };
  Kind kind = Kind::Uses;
  std::string object;  // TableUnreadable, TableTooLarge: the object's path
  std::string why;     // TableUnreadable: how nm failed ("nm timed out", ...), with what it said
  std::size_t cap_mib = 0;  // TableTooLarge: the most nm's listing may hold
  build::DefinitionProblem definition;                                    // Defines
  build::ContractFunction missing = build::ContractFunction::Mysgemm;     // Missing
  std::string symbol;               // Uses: demangled, version suffix dropped
  build::ReferenceVerdict verdict;  // Uses
};

struct SymbolReport {
  bool ok = true;
  std::vector<SymbolProblem> problems;
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

// Where the PTX first shows shared memory or a barrier, as facts
// (words/structure_report.h says them): a .shared declaration, an instruction
// on the shared space or a barrier (`opcode`), or an instruction naming a
// module-scope shared variable (`opcode`, `variable`); in mysgemm itself, or
// in a device function it calls (`function`, demangled).
struct PtxEvidence {
  enum class Kind { SharedDeclaration, Instruction, SharedVariable };
  Kind kind = Kind::Instruction;
  std::string opcode;
  std::string variable;
  std::string function;  // "" in mysgemm's own body
};

struct StructureReport {
  bool uses_shared = false;
  bool uses_barrier = false;
  bool found_kernel = false;
  // The PTX check's facts (check_structure): the file at `ptx_path` could not
  // be read; where shared memory and a barrier were seen (set when used).
  bool read_failed = false;
  std::string ptx_path;
  PtxEvidence shared_at, barrier_at;
  // What reports show: the PTX check's, from its facts (words/structure_report.h,
  // filled by the backend that ran it); the CPU backend's source check's own.
  std::string detail;
};
// Reads the PTX of mysgemm: a .shared declaration and bar.sync/barrier.sync.
// Facts only: `detail` is left for words/structure_report.h.
StructureReport check_structure(const std::string& ptx_path);

}  // namespace sg
