// The CPU backend's sentences, made in words/ from facts (issue 32, item 3):
// each says exactly what the backend said before they moved, so reports and
// the samples' expected verdicts keep their words.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "words/build_report.h"
#include "words/check_report.h"
#include "words/cpu_backend_lines.h"
#include "words/sanitizer_report.h"
#include "words/source_problems.h"

namespace sg {
namespace {

TEST(CpuWords, SanitizerSaysEachFindingInOrderAndItsDetail) {
  SanitizerFindings f;
  EXPECT_EQ(sanitizer_verdict(f),
            "no out-of-bounds accesses, no races between blocks, and the same result with each block's threads "
            "run in either order (the CPU backend's memcheck and racecheck)");
  EXPECT_EQ(sanitizer_detail(f), "");
  f.stray = "a read 4 bytes past the end of A";
  f.differing = 3;
  f.elements = 256;
  f.row = 2;
  f.col = 5;
  f.descending = 1.5;
  f.ascending = 2;
  EXPECT_EQ(sanitizer_verdict(f), "memcheck found errors; racecheck found errors");
  EXPECT_EQ(sanitizer_detail(f),
            "memcheck: a read 4 bytes past the end of A\n"
            "racecheck: 3 of 256 elements of C depend on the order in which each block's threads run between "
            "barriers; C[2][5] is 1.500000 with each block's threads in descending order and 2.000000 in "
            "ascending order\n");
  f = SanitizerFindings{};
  f.block_race = "C[0][0]";
  EXPECT_EQ(sanitizer_verdict(f), "blocks raced");
  EXPECT_EQ(sanitizer_detail(f), "race between blocks: C[0][0]\n");
  EXPECT_EQ(sanitizer_run_failed(false, "timed out after 10 s"), "the program failed: timed out after 10 s");
  EXPECT_EQ(sanitizer_run_failed(true, "x"), "the program failed with the threads in ascending order: x");
}

TEST(CpuWords, BuildSaysWhyItStopped) {
  EXPECT_EQ(rejected_why({"calls system", "defines main"}), "rejected: calls system; defines main");
  EXPECT_EQ(cpu_build_failed_why(false), "the submission did not build for the CPU backend");
  EXPECT_NE(cpu_build_failed_why(true).find(" (the compiler's message names the CPU layer"), std::string::npos);
  EXPECT_EQ(cpu_limit_nvcc_compiles_why("").substr(0, 57),
            "not supported on the CPU backend: g++ refused kernel.cu. ");
  EXPECT_EQ(cannot_build_for_cpu({"a", "b"}), "kernel.cu cannot be built for the CPU backend:\na\nb\n");
  EXPECT_EQ(preprocessed_too_large(64),
            "kernel.cu is larger than 64 MiB once preprocessed; it cannot be built for the CPU backend\n");
  EXPECT_EQ(tool_ended_line("g++", "exited with code 1"), "g++ exited with code 1\n");
}

TEST(CpuWords, TheStructureCheckAndTheGradeLog) {
  EXPECT_EQ(reuse_not_completed("timed out"), "the kernel did not complete at the check's shape: timed out");
  EXPECT_EQ(reuse_nothing_counted(true), "basicSgemm launched no kernel at the check's shape");
  EXPECT_EQ(reuse_nothing_counted(false), "the kernel loaded nothing from global memory at the check's shape");
  EXPECT_EQ(structure_count_log_line(512, 256, 128), "structure: global loads at 512x256x128");
  EXPECT_EQ(cpu_device_name(), "host CPU (correctness only)");
}

// What the rewriter and the preprocessed scan found, a line each, as the
// CPU backend said it before the facts moved out (one line per kind).
TEST(CpuWords, WhatTheCpuBackendCannotBuild) {
  SourceProblems p;
  const auto add = [&](long line, SourceProblemKind kind, std::string text = {}) {
    p.shown.push_back({line, kind, std::move(text)});
  };
  add(1, SourceProblemKind::Header, "cuda_fp16.h");
  add(2, SourceProblemKind::Identifier, "__shfl_down_sync");
  add(3, SourceProblemKind::SharedAtFileScope);
  add(4, SourceProblemKind::SharedDeclarationForm);
  add(5, SourceProblemKind::ExternSharedForm);
  add(6, SourceProblemKind::ExternSharedAtFileScope);
  add(7, SourceProblemKind::DeviceSideLaunch);
  add(8, SourceProblemKind::KernelNameUnreadable);
  add(9, SourceProblemKind::UnterminatedLaunch);
  add(10, SourceProblemKind::LaunchArgumentCount);
  add(11, SourceProblemKind::GccPragma, "optimize");
  add(12, SourceProblemKind::InlineAssembly, "__asm__");
  add(13, SourceProblemKind::X86Builtin, "__builtin_ia32_pause");
  add(14, SourceProblemKind::Attribute, "no_sanitize_address");
  p.more = 3;
  const std::string no = " is not supported on the CPU backend";
  const std::vector<std::string> want = {
      "kernel.cu:1: `#include <cuda_fp16.h>`" + no,
      "kernel.cu:2: `__shfl_down_sync`" + no,
      "kernel.cu:3: `__shared__` at file scope (declare it inside the kernel)" + no,
      "kernel.cu:4: this form of `__shared__` declaration (use `__shared__ T name[N]...;`, one or more names, no "
      "initializer)" + no,
      "kernel.cu:5: this form of `extern __shared__` (use `extern __shared__ T name[];`)" + no,
      "kernel.cu:6: `extern __shared__` at file scope (declare it inside the kernel)" + no,
      "kernel.cu:7: a kernel launch inside device code (dynamic parallelism)" + no,
      "kernel.cu:8: cannot read the kernel name before `<<<`",
      "kernel.cu:9: unterminated kernel launch configuration (no matching `>>>`)",
      "kernel.cu:10: a kernel launch needs 2 to 4 configuration arguments inside <<< >>> (grid, block, shared "
      "memory bytes, stream)",
      "kernel.cu:11: `#pragma GCC optimize`" + no,
      "kernel.cu:12: inline assembly (`__asm__`)" + no,
      "kernel.cu:13: the x86 builtin `__builtin_ia32_pause`" + no,
      "kernel.cu:14: the attribute `no_sanitize_address`" + no,
      "(3 more not shown)",
  };
  EXPECT_EQ(source_problem_lines("kernel.cu", p), want);
  EXPECT_TRUE(source_problem_lines("kernel.cu", SourceProblems{}).empty());
}

}  // namespace
}  // namespace sg
