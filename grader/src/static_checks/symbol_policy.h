// Which symbols a submission object may define and reference. Pure functions
// over symbol names, separate from running nm so they can be tested directly.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace sg::build {

// The two functions of the student contract, as the Itanium ABI mangles them.
constexpr const char* kMysgemmSymbol = "_Z7mysgemmiiiPKfS0_Pf";
constexpr const char* kBasicSgemmSymbol = "_Z10basicSgemmiiiPKfS0_Pf";

// One line of `nm -P`: the symbol name and nm's type letter.
struct NmSymbol {
  std::string name;
  char type = '?';
  bool undefined() const { return type == 'U' || type == 'w' || type == 'v'; }
};

// Parses `nm -P` output (name, type, optional value and size per line).
// Lines that do not have that shape are ignored.
std::vector<NmSymbol> parse_nm_posix(const std::string& text);

// Human-readable form of a C++ symbol; anything else is returned unchanged.
std::string demangle(const std::string& symbol);

// The name without an ELF version suffix ("fopen@GLIBC_2.2.5" -> "fopen").
std::string unversioned(const std::string& symbol);

// The bare function name: "_ZN2ns1fIiEEvi" (void ns::f<int>(int)) -> "f".
std::string plain_function_name(const std::string& symbol);

struct ReferenceVerdict {
  bool allowed = false;
  std::string category;  // why it is forbidden; empty when allowed or unknown
};
// Classifies an undefined reference of a submission object.
ReferenceVerdict classify_reference(const std::string& symbol);

// An undefined reference of an object built for the CPU layer
// (grader/cudacpu) that names the layer itself: allowed for what a
// launch, a barrier, a __shared__ variable or an atomic compiles to; the
// layer's stand-ins for CUDA calls (cudaMemcpyToSymbol, cudaFuncSetAttribute)
// get those calls' verdicts; any other of its names is forbidden. nullopt:
// not the layer's, classify_reference decides.
std::optional<ReferenceVerdict> classify_cpu_layer_reference(const std::string& symbol);

// nvcc names a kernel's host stub `__device_stub__` + the kernel's mangled
// name without its leading '_' (as the first name component of the stub).
std::string device_stub_component(const std::string& kernel_symbol);
// The kernel symbol a stub belongs to, or "" when `symbol` is not a stub.
std::string stub_kernel(const std::string& symbol);

// For a globally defined symbol other than mysgemm/basicSgemm: the problem
// when defining it would interpose on the grader, the CUDA runtime or a
// library (or breaks the contract); nullopt otherwise.
std::optional<std::string> classify_definition(const std::string& symbol, char type);

// A definition of the student's own (a helper function or variable, another
// kernel): not a problem, but it must not stay visible to the linker, so the
// build makes it local before linking (localise.h) and the report notes it.
bool is_own_helper(const std::string& symbol, char type);

}  // namespace sg::build
