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

// Why a reference is forbidden, as a fact: the family of functions it
// belongs to (words/symbol_report.h says each). None: allowed, or simply not
// on the allowlist. The policy decides, the wording folder says (issue 32).
enum class SymbolFamily {
  None,
  Exit,             // exit, abort, ...
  Process,          // system, fork, exec*, kill, ...
  Syscall,          // syscall
  DynamicLoading,   // dlopen, dlsym, ...
  Signal,           // signal handlers and non-local jumps
  File,             // file I/O, C's and C++'s
  Network,          // sockets
  MemoryMapping,    // mmap, mprotect, ...
  Environment,      // getenv, setenv, ...
  Thread,           // pthread_create, std::thread
  Stream,           // cudaStream*
  Event,            // cudaEvent*
  DeviceMemory,     // cudaMalloc, cudaMemcpy, ...
  DeviceManagement, // cudaSetDevice, cudaDeviceReset, ...
  Graph,            // CUDA graphs
  LaunchApi,        // cudaLaunch* other than cudaLaunchKernel
  Ipc,              // cudaIpc*
  CudaOther,        // a CUDA runtime function not on the allowlist
  DriverApi,        // cuInit, cuMemAlloc, ...
  RuntimeCompilation,  // nvrtc, nvJitLink, ...
  Nvml,             // nvml*
  LibraryGemm,      // a GEMM library's function: ReferenceVerdict::library names it
  CpuLayer,         // the CPU layer's own functions (classify_cpu_layer_reference)
};

struct ReferenceVerdict {
  bool allowed = false;
  SymbolFamily family = SymbolFamily::None;  // why it is forbidden; None when allowed or unknown
  std::string library;  // LibraryGemm's library as it calls itself: "cuBLAS", "BLAS", "CUTLASS"
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

// The two functions of the student contract.
enum class ContractFunction { Mysgemm, BasicSgemm };

// Why a submission may not define a symbol, as a fact (words/symbol_report.h
// says it): `main`; mysgemm or basicSgemm with another signature; a CUDA
// runtime function of the grader's timing (cudaEvent*); another CUDA runtime
// or driver function; a function of the C/C++ or CUDA libraries.
enum class DefinitionKind { Main, WrongSignature, CudaTiming, CudaFunction, LibraryFunction };
struct DefinitionProblem {
  DefinitionKind kind = DefinitionKind::Main;
  std::string symbol;  // demangled, version suffix dropped
  ContractFunction function = ContractFunction::Mysgemm;  // WrongSignature: which one
  bool unmangled = false;  // WrongSignature: a C name (declared extern "C"?)
};

// For a globally defined symbol other than mysgemm/basicSgemm: the problem
// when defining it would interpose on the grader, the CUDA runtime or a
// library (or breaks the contract); nullopt otherwise.
std::optional<DefinitionProblem> classify_definition(const std::string& symbol, char type);

// A definition of the student's own (a helper function or variable, another
// kernel): not a problem, but it must not stay visible to the linker, so the
// build makes it local before linking (localise.h) and the report notes it.
bool is_own_helper(const std::string& symbol, char type);

}  // namespace sg::build
