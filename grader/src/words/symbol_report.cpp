#include "words/symbol_report.h"

#include <fmt/format.h>

namespace sg {
namespace {

using build::ContractFunction;

const char* contract_name(ContractFunction f) {
  switch (f) {
    case ContractFunction::Mysgemm: return "mysgemm";
    case ContractFunction::BasicSgemm: return "basicSgemm";
  }
  return "";
}

}  // namespace

std::string family_text(const build::ReferenceVerdict& v) {
  using F = build::SymbolFamily;
  switch (v.family) {
    case F::None: return "";
    case F::Exit: return "ends the process: a submission may not exit or abort";
    case F::Process: return "processes: a submission may not start or control processes";
    case F::Syscall: return "raw system calls are not allowed";
    case F::DynamicLoading: return "dynamic loading: it could reach any library";
    case F::Signal: return "signals and non-local jumps: a submission may not intercept crashes";
    case F::File: return "file I/O: a submission may not touch files";
    case F::Network: return "network I/O: a submission may not use the network";
    case F::MemoryMapping: return "memory mapping: a submission may not map or protect memory";
    case F::Environment: return "environment: a submission may not read or change the environment";
    case F::Thread: return "threads: a submission may not start threads";
    case F::Stream: return "streams: a submission launches on the default stream";
    case F::Event: return "events: timing is the grader's job";
    case F::DeviceMemory: return "device memory management: the grader owns every buffer";
    case F::DeviceManagement: return "device management: the device belongs to the grader";
    case F::Graph: return "CUDA graphs are not allowed";
    case F::LaunchApi: return "a launch API other than <<<...>>> and cudaLaunchKernel";
    case F::Ipc: return "CUDA inter-process communication is not allowed";
    case F::CudaOther: return "a CUDA runtime function that is not on the allowlist";
    case F::DriverApi: return "CUDA driver API is not allowed";
    case F::RuntimeCompilation: return "runtime compilation is not allowed";
    case F::Nvml: return "NVML is not allowed";
    case F::LibraryGemm: return fmt::format("{}: library GEMM is not allowed", v.library);
    case F::CpuLayer: return "the CPU layer's own functions are not for submissions";
  }
  return "";
}

std::string definition_problem_text(const build::DefinitionProblem& p) {
  using K = build::DefinitionKind;
  switch (p.kind) {
    case K::Main: return "defines `main`, which a submission may not define";
    case K::WrongSignature: {
      const char* want = contract_name(p.function);
      return fmt::format("{} has the wrong signature: defines `{}`, expected `{}(int, int, int, float const*, "
                         "float const*, float*)`{}",
                         want, p.symbol, want, p.unmangled ? " (declared extern \"C\"?)" : "");
    }
    case K::CudaTiming:
      return fmt::format("defines `{}`, a CUDA runtime function (would interpose on the grader's timing)", p.symbol);
    case K::CudaFunction:
      return fmt::format("defines `{}`, a CUDA function (would interpose on the CUDA runtime)", p.symbol);
    case K::LibraryFunction:
      return fmt::format(
          "defines `{}`, a function of the C/C++ or CUDA libraries (would interpose on what the grader links)",
          p.symbol);
  }
  return "";
}

std::string symbol_problem_text(const SymbolProblem& p) {
  using K = SymbolProblem::Kind;
  switch (p.kind) {
    case K::TableUnreadable: return fmt::format("cannot read the symbol table of `{}` ({})", p.object, p.why);
    case K::TableTooLarge:
      return fmt::format("the symbol table of `{}` is larger than {} MiB; it cannot be checked", p.object, p.cap_mib);
    case K::Defines: return definition_problem_text(p.definition);
    case K::Missing:
      return fmt::format("does not define {}(int, int, int, const float*, const float*, float*)",
                         contract_name(p.missing));
    case K::Uses: {
      const std::string family = family_text(p.verdict);
      return family.empty()
                 ? fmt::format("uses `{}`, which is not on the list of functions a submission may call", p.symbol)
                 : fmt::format("uses `{}` ({})", p.symbol, family);
    }
  }
  return "";
}

std::vector<std::string> symbol_problem_lines(const SymbolReport& r) {
  std::vector<std::string> lines;
  lines.reserve(r.problems.size());
  for (const SymbolProblem& p : r.problems) lines.push_back(symbol_problem_text(p));
  return lines;
}

}  // namespace sg
