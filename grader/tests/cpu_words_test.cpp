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

}  // namespace
}  // namespace sg
