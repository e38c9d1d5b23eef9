// The symbol check's and the PTX structure check's sentences, made in words/
// from the facts static_checks/ finds (issue 32, item 3): each says exactly
// what static_checks/ said before they moved, so reports, build logs and the
// samples' expected verdicts keep their words. No compiler needed.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "static_checks/static_checks.h"
#include "static_checks/symbol_policy.h"
#include "words/build_report.h"
#include "words/structure_report.h"
#include "words/symbol_report.h"

namespace sg {
namespace {

using build::ContractFunction;
using build::DefinitionKind;
using build::SymbolFamily;

std::string family(SymbolFamily f, const std::string& library = "") {
  build::ReferenceVerdict v;
  v.family = f;
  v.library = library;
  return family_text(v);
}

TEST(SymbolWords, EachForbiddenFamily) {
  EXPECT_EQ(family(SymbolFamily::None), "");
  EXPECT_EQ(family(SymbolFamily::Exit), "ends the process: a submission may not exit or abort");
  EXPECT_EQ(family(SymbolFamily::Process), "processes: a submission may not start or control processes");
  EXPECT_EQ(family(SymbolFamily::Syscall), "raw system calls are not allowed");
  EXPECT_EQ(family(SymbolFamily::DynamicLoading), "dynamic loading: it could reach any library");
  EXPECT_EQ(family(SymbolFamily::Signal), "signals and non-local jumps: a submission may not intercept crashes");
  EXPECT_EQ(family(SymbolFamily::File), "file I/O: a submission may not touch files");
  EXPECT_EQ(family(SymbolFamily::Network), "network I/O: a submission may not use the network");
  EXPECT_EQ(family(SymbolFamily::MemoryMapping), "memory mapping: a submission may not map or protect memory");
  EXPECT_EQ(family(SymbolFamily::Environment), "environment: a submission may not read or change the environment");
  EXPECT_EQ(family(SymbolFamily::Thread), "threads: a submission may not start threads");
  EXPECT_EQ(family(SymbolFamily::Stream), "streams: a submission launches on the default stream");
  EXPECT_EQ(family(SymbolFamily::Event), "events: timing is the grader's job");
  EXPECT_EQ(family(SymbolFamily::DeviceMemory), "device memory management: the grader owns every buffer");
  EXPECT_EQ(family(SymbolFamily::DeviceManagement), "device management: the device belongs to the grader");
  EXPECT_EQ(family(SymbolFamily::Graph), "CUDA graphs are not allowed");
  EXPECT_EQ(family(SymbolFamily::LaunchApi), "a launch API other than <<<...>>> and cudaLaunchKernel");
  EXPECT_EQ(family(SymbolFamily::Ipc), "CUDA inter-process communication is not allowed");
  EXPECT_EQ(family(SymbolFamily::CudaOther), "a CUDA runtime function that is not on the allowlist");
  EXPECT_EQ(family(SymbolFamily::DriverApi), "CUDA driver API is not allowed");
  EXPECT_EQ(family(SymbolFamily::RuntimeCompilation), "runtime compilation is not allowed");
  EXPECT_EQ(family(SymbolFamily::Nvml), "NVML is not allowed");
  EXPECT_EQ(family(SymbolFamily::LibraryGemm, "cuBLAS"), "cuBLAS: library GEMM is not allowed");
  EXPECT_EQ(family(SymbolFamily::CpuLayer), "the CPU layer's own functions are not for submissions");
}

TEST(SymbolWords, PolicyFactsBecomeTheSameSentences) {
  // The policy's facts for real names, said as before they moved.
  EXPECT_EQ(family_text(build::classify_reference("cublasSgemm_v2")), "cuBLAS: library GEMM is not allowed");
  EXPECT_EQ(family_text(build::classify_reference("cublasXtSgemm")), "cuBLAS-XT: library GEMM is not allowed");
  EXPECT_EQ(family_text(build::classify_reference("sgemm_")), "BLAS: library GEMM is not allowed");
  EXPECT_EQ(family_text(build::classify_reference("_ZN7cutlass4gemmEv")), "CUTLASS: library GEMM is not allowed");
  EXPECT_EQ(family_text(build::classify_reference("system@GLIBC_2.2.5")),
            "processes: a submission may not start or control processes");
  const auto layer = build::classify_cpu_layer_reference("_ZN7cudacpu6detail8whateverEv");
  ASSERT_TRUE(layer.has_value());
  EXPECT_EQ(layer->family, SymbolFamily::CpuLayer);
  EXPECT_EQ(family_text(*layer), "the CPU layer's own functions are not for submissions");
}

build::DefinitionProblem definition(DefinitionKind kind, const std::string& symbol) {
  build::DefinitionProblem p;
  p.kind = kind;
  p.symbol = symbol;
  return p;
}

TEST(SymbolWords, EachDefinitionProblem) {
  EXPECT_EQ(definition_problem_text(definition(DefinitionKind::Main, "main")),
            "defines `main`, which a submission may not define");
  build::DefinitionProblem wrong = definition(DefinitionKind::WrongSignature,
                                              "basicSgemm(int, int, int, double const*, double const*, double*)");
  wrong.function = ContractFunction::BasicSgemm;
  EXPECT_EQ(definition_problem_text(wrong),
            "basicSgemm has the wrong signature: defines `basicSgemm(int, int, int, double const*, double const*, "
            "double*)`, expected `basicSgemm(int, int, int, float const*, float const*, float*)`");
  build::DefinitionProblem c_name = definition(DefinitionKind::WrongSignature, "mysgemm");
  c_name.function = ContractFunction::Mysgemm;
  c_name.unmangled = true;
  EXPECT_EQ(definition_problem_text(c_name),
            "mysgemm has the wrong signature: defines `mysgemm`, expected `mysgemm(int, int, int, float const*, "
            "float const*, float*)` (declared extern \"C\"?)");
  EXPECT_EQ(definition_problem_text(definition(DefinitionKind::CudaTiming, "cudaEventElapsedTime")),
            "defines `cudaEventElapsedTime`, a CUDA runtime function (would interpose on the grader's timing)");
  EXPECT_EQ(definition_problem_text(definition(DefinitionKind::CudaFunction, "cudaMalloc")),
            "defines `cudaMalloc`, a CUDA function (would interpose on the CUDA runtime)");
  EXPECT_EQ(definition_problem_text(definition(DefinitionKind::LibraryFunction, "std::cout")),
            "defines `std::cout`, a function of the C/C++ or CUDA libraries (would interpose on what the grader "
            "links)");
  // The policy's own facts for the same names.
  EXPECT_EQ(definition_problem_text(build::classify_definition("basicSgemm", 'T').value()),
            "basicSgemm has the wrong signature: defines `basicSgemm`, expected `basicSgemm(int, int, int, float "
            "const*, float const*, float*)` (declared extern \"C\"?)");
  EXPECT_EQ(definition_problem_text(build::classify_definition("_ZSt4cout", 'B').value()),
            "defines `std::cout`, a function of the C/C++ or CUDA libraries (would interpose on what the grader "
            "links)");
}

TEST(SymbolWords, EachKindOfSymbolProblem) {
  SymbolProblem unreadable;
  unreadable.kind = SymbolProblem::Kind::TableUnreadable;
  unreadable.object = "/w/student.o";
  unreadable.why = "nm exited with code 1: bad file";
  EXPECT_EQ(symbol_problem_text(unreadable),
            "cannot read the symbol table of `/w/student.o` (nm exited with code 1: bad file)");
  SymbolProblem large;
  large.kind = SymbolProblem::Kind::TableTooLarge;
  large.object = "/w/student.o";
  large.cap_mib = 16;
  EXPECT_EQ(symbol_problem_text(large),
            "the symbol table of `/w/student.o` is larger than 16 MiB; it cannot be checked");
  SymbolProblem defines;
  defines.kind = SymbolProblem::Kind::Defines;
  defines.definition = definition(DefinitionKind::Main, "main");
  EXPECT_EQ(symbol_problem_text(defines), "defines `main`, which a submission may not define");
  SymbolProblem missing;
  missing.kind = SymbolProblem::Kind::Missing;
  missing.missing = ContractFunction::BasicSgemm;
  EXPECT_EQ(symbol_problem_text(missing),
            "does not define basicSgemm(int, int, int, const float*, const float*, float*)");
  missing.missing = ContractFunction::Mysgemm;
  EXPECT_EQ(symbol_problem_text(missing),
            "does not define mysgemm(int, int, int, const float*, const float*, float*)");
  SymbolProblem uses;
  uses.kind = SymbolProblem::Kind::Uses;
  uses.symbol = "system";
  uses.verdict.family = SymbolFamily::Process;
  EXPECT_EQ(symbol_problem_text(uses),
            "uses `system` (processes: a submission may not start or control processes)");
  uses.symbol = "some_unknown_function";
  uses.verdict.family = SymbolFamily::None;
  EXPECT_EQ(symbol_problem_text(uses),
            "uses `some_unknown_function`, which is not on the list of functions a submission may call");
  SymbolReport report;
  report.ok = false;
  report.problems = {defines, uses};
  EXPECT_EQ(symbol_problem_lines(report),
            (std::vector<std::string>{"defines `main`, which a submission may not define",
                                      "uses `some_unknown_function`, which is not on the list of functions a "
                                      "submission may call"}));
}

PtxEvidence evidence(PtxEvidence::Kind kind, const std::string& opcode, const std::string& variable = "",
                     const std::string& function = "") {
  PtxEvidence e;
  e.kind = kind;
  e.opcode = opcode;
  e.variable = variable;
  e.function = function;
  return e;
}

TEST(SymbolWords, PtxStructureDetail) {
  StructureReport unread;
  unread.read_failed = true;
  unread.ptx_path = "/w/student.ptx";
  EXPECT_EQ(ptx_structure_detail(unread), "cannot read the PTX file `/w/student.ptx`");
  StructureReport no_kernel;
  EXPECT_EQ(ptx_structure_detail(no_kernel),
            "no kernel `mysgemm(int, int, int, const float*, const float*, float*)` in the compiled code (is it "
            "declared __global__ with exactly that signature?)");
  StructureReport tiled;
  tiled.found_kernel = tiled.uses_shared = tiled.uses_barrier = true;
  tiled.shared_at = evidence(PtxEvidence::Kind::SharedDeclaration, "");
  tiled.barrier_at = evidence(PtxEvidence::Kind::Instruction, "bar.sync");
  EXPECT_EQ(ptx_structure_detail(tiled), "mysgemm uses shared memory (.shared declaration) and a barrier (bar.sync)");
  tiled.shared_at = evidence(PtxEvidence::Kind::SharedVariable, "mov.u64", "dyn_tile");
  tiled.barrier_at = evidence(PtxEvidence::Kind::Instruction, "barrier.sync.aligned", "", "wait_for_block()");
  EXPECT_EQ(with_ptx_detail(tiled).detail,
            "mysgemm uses shared memory (mov.u64 of shared variable dyn_tile) and a barrier (barrier.sync.aligned "
            "(in wait_for_block()))");
  EXPECT_EQ(ptx_evidence_text(evidence(PtxEvidence::Kind::Instruction, "st.shared.f32", "", "load(float*)")),
            "st.shared.f32 (in load(float*))");
  StructureReport naive;
  naive.found_kernel = true;
  EXPECT_EQ(ptx_structure_detail(naive),
            "mysgemm does not use shared memory: its compiled code declares and accesses no __shared__ data (a "
            "shared array the compiler removed because it is never read does not count); the assignment asks for "
            "a shared-memory tiled kernel\n"
            "mysgemm has no barrier: its compiled code has no bar.sync/barrier.sync; __syncthreads() is needed "
            "after loading a tile and before overwriting it");
  StructureReport shared_only;
  shared_only.found_kernel = shared_only.uses_shared = true;
  shared_only.shared_at = evidence(PtxEvidence::Kind::Instruction, "st.shared.f32");
  EXPECT_EQ(ptx_structure_detail(shared_only),
            "mysgemm has no barrier: its compiled code has no bar.sync/barrier.sync; __syncthreads() is needed "
            "after loading a tile and before overwriting it");
}

// nvcc's build log: the command and output as they came, then the grader's
// line for why it stopped (static_checks/nvcc_compile.cpp said these itself).
TEST(SymbolWords, CompileLogEndsWithWhyTheCompileStopped) {
  using K = CompileProblem::Kind;
  auto log = [](K kind, const std::string& path = "", double timeout_s = 0, int signal = 0, int code = 0) {
    CompileResult r;
    r.log = "$ nvcc -c x.cu\nout\n";
    r.problem.kind = kind;
    r.problem.path = path;
    r.problem.timeout_s = timeout_s;
    r.problem.signal = signal;
    r.problem.code = code;
    return compile_log(r);
  };
  const std::string head = "$ nvcc -c x.cu\nout\n";
  EXPECT_EQ(log(K::None), head);
  EXPECT_EQ(log(K::SourceMissing, "/s/kernel.cu"), head + "cannot read submission `/s/kernel.cu`: no such file\n");
  EXPECT_EQ(log(K::SourceIsFolder, "/s/k.cu"), head + "submission `/s/k.cu` is a folder, not a kernel.cu file\n");
  EXPECT_EQ(log(K::SourceUnreadable, "/s/k.cu"),
            head + "cannot read submission `/s/k.cu`: permission denied or unreadable\n");
  EXPECT_EQ(log(K::SourceEmpty, "/s/k.cu"), head + "submission `/s/k.cu` is empty\n");
  EXPECT_EQ(log(K::TimedOut, "", 180), head + "compilation timed out after 180 s\n");
  EXPECT_EQ(log(K::TimedOut, "", 1.5), head + "compilation timed out after 1.5 s\n");
  EXPECT_EQ(log(K::Signalled, "", 0, 9), head + "the compiler was killed by signal 9\n");
  EXPECT_EQ(log(K::Failed, "", 0, 0, 2), head + "compilation failed (nvcc exit code 2)\n");
  EXPECT_EQ(log(K::NoObject, "/w/student.o"), head + "nvcc reported success but wrote no object `/w/student.o`\n");
  EXPECT_EQ(log(K::NoPtx, "/w/keep"), head + "nvcc kept no PTX in `/w/keep`; the structure check needs it\n");
}

}  // namespace
}  // namespace sg
