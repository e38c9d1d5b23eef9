// The CPU backend: the source rewriter on its own, then whole kernels built
// with build_cpu_runner and run through the runner protocol, checked against
// an FP64 product computed here. Needs the layer built by make
// (SG_BUILD_DIR/cpu/libcudacpu.a and cpu_runner.o) and a host compiler; no GPU.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "backends/cpu/cpu_build.h"
#include "backends/cpu/rewrite.h"
#include "services/runner_session.h"
#include "process/tool_run.h"
#include "cpu_runner_fixture.h"
#include "proc_tree.h"
#include "proto/protocol.h"
#include "words/case_report.h"
#include "words/source_problems.h"

namespace fs = std::filesystem;
using sg::rewrite_for_cpu;
using sg::RewriteResult;

namespace {

using namespace cpu_fixture;

// ---------------------------------------------------------------------------
// Helpers of the rewriter tests

int count_lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

// Line `n` (1-based) of the student's file as it appears in the rewritten
// source, which starts with two lines of its own (#include, #line).
std::string rewritten_line(const RewriteResult& r, int n) {
  std::istringstream in(r.source);
  std::string line;
  for (int i = 0; i < n + 2 && std::getline(in, line); ++i) {
  }
  return line;
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += s + "\n";
  return out;
}

// ---------------------------------------------------------------------------
// The rewriter

TEST(CpuRewrite, LaunchesWithTwoThreeAndFourConfigArgsKeepTheirLines) {
  const std::string src =
      "void f(float* p, cudaStream_t s) {\n"     // 1
      "  kern<<<grid, block>>>(p, 1);\n"         // 2
      "  kern <<< grid, block, 0 >>> (p, 2);\n"  // 3
      "  kern<<<grid, block, 64, s>>>(p, 3);\n"  // 4
      "}\n";
  const RewriteResult r = rewrite_for_cpu(src);
  ASSERT_TRUE(r.ok()) << join(sg::source_problem_lines("kernel.cu", r.problems));
  EXPECT_EQ(r.launches, 3);
  EXPECT_EQ(count_lines(r.source), count_lines(src) + 2);
  EXPECT_EQ(rewritten_line(r, 2), "  ::cudacpu::launch(kern, grid, block)(p, 1);");
  EXPECT_EQ(rewritten_line(r, 3), "  ::cudacpu::launch(kern ,  grid, block, 0 ) (p, 2);");
  EXPECT_EQ(rewritten_line(r, 4), "  ::cudacpu::launch(kern, grid, block, 64, s)(p, 3);");
  EXPECT_EQ(r.source.rfind("#include \"cudacpu.h\"\n#line 1 \"kernel.cu\"\n", 0), 0u) << r.source;
}

TEST(CpuRewrite, ConfigurationWithTemplatesParensAndCommasAcrossLines) {
  const std::string src =
      "void f() {\n"
      "  ns::kern<float, 16><<<dim3((n + 15) / 16, std::max<int>(1, (m + 15) / 16)),\n"
      "                          dim3(16, 16), sizeof(float) * (a, b)>>>(x, y);\n"
      "  (*fp)<<<g, b>>>();\n"
      "  int x = a >> 3, y = v<w<int>>>(1);\n"
      "}\n";
  const RewriteResult r = rewrite_for_cpu(src);
  ASSERT_TRUE(r.ok()) << join(sg::source_problem_lines("kernel.cu", r.problems));
  EXPECT_EQ(r.launches, 2);
  EXPECT_EQ(rewritten_line(r, 2),
            "  ::cudacpu::launch(ns::kern<float, 16>, dim3((n + 15) / 16, std::max<int>(1, (m + 15) / 16)),");
  EXPECT_EQ(rewritten_line(r, 3), "                          dim3(16, 16), sizeof(float) * (a, b))(x, y);");
  EXPECT_EQ(rewritten_line(r, 4), "  ::cudacpu::launch((*fp), g, b)();");
  EXPECT_EQ(rewritten_line(r, 5), "  int x = a >> 3, y = v<w<int>>>(1);") << "a `>>>` closing templates is not a launch";
}

TEST(CpuRewrite, SharedMemoryBecomesStaticAndDynamicSharedAPointer) {
  const std::string src =
      "__global__ void k() {\n"
      "  __shared__ float a[16][16];\n"
      "  static __shared__ int b;\n"
      "  extern __shared__ __align__(16) float dyn[];\n"
      "  extern __shared__\n"
      "      unsigned char raw[];\n"
      "}\n";
  const RewriteResult r = rewrite_for_cpu(src);
  ASSERT_TRUE(r.ok()) << join(sg::source_problem_lines("kernel.cu", r.problems));
  EXPECT_EQ(count_lines(r.source), count_lines(src) + 2);
  // Every __shared__ variable gets bounds-checked storage of its own for each resident block.
  EXPECT_EQ(rewritten_line(r, 2),
            "  static thread_local ::cudacpu::detail::SharedArray<float [16][16]> a_cudacpu_shared_; "
            "float (&a)[16][16] = a_cudacpu_shared_.get(\"a\");");
  EXPECT_EQ(rewritten_line(r, 3),
            "  static thread_local ::cudacpu::detail::SharedArray<int> b_cudacpu_shared_; "
            "int (&b) = b_cudacpu_shared_.get(\"b\");");
  EXPECT_EQ(rewritten_line(r, 4),
            "  float* dyn = reinterpret_cast<float*>(::cudacpu::detail::dynamic_shared_base());");
  EXPECT_EQ(rewritten_line(r, 5), "  unsigned char* raw = reinterpret_cast<unsigned "
                                  "char*>(::cudacpu::detail::dynamic_shared_base());");
  EXPECT_EQ(rewritten_line(r, 7), "}");
}

TEST(CpuRewrite, UnsupportedConstructsAreNamedWithTheirLine) {
  const std::string src =
      "#include <cuda_fp16.h>\n"                                   // 1
      "__global__ void k(float* p, int* q) {\n"                    // 2
      "  float v = p[threadIdx.x];\n"                              // 3
      "  atomicAdd(p, v);\n"                                       // 4: supported
      "  v += __shfl_down_sync(0xffffffff, v, 16);\n"              // 5
      "  atomicCAS(q, 0, 1);\n"                                    // 6: supported
      "  asm volatile(\"membar.gl;\");\n"                          // 7
      "  other<<<1, 1>>>(p);\n"                                    // 8
      "  // __ballot_sync in a comment, \"__syncwarp\" in a string\n"  // 9
      "  const char* s = \"__activemask()\";\n"                    // 10
      "}\n"
      "void host() { k<<<1, 32>>>(nullptr, nullptr); }\n";         // 12: fine
  const RewriteResult r = rewrite_for_cpu(src);
  const std::vector<std::string> expected = {
      "kernel.cu:1: `#include <cuda_fp16.h>` is not supported on the CPU backend",
      "kernel.cu:5: `__shfl_down_sync` is not supported on the CPU backend",
      "kernel.cu:7: `asm` is not supported on the CPU backend",
      "kernel.cu:8: a kernel launch inside device code (dynamic parallelism) is not supported on the CPU backend",
  };
  EXPECT_EQ(sg::source_problem_lines("kernel.cu", r.problems), expected) << join(sg::source_problem_lines("kernel.cu", r.problems));
  EXPECT_FALSE(r.ok());
}

TEST(CpuRewrite, LaunchWithOneConfigArgumentIsRejected) {
  const RewriteResult r = rewrite_for_cpu("void f() {\n  k<<<4>>>(1);\n}\n");
  const std::vector<std::string> lines = sg::source_problem_lines("kernel.cu", r.problems);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(r.problems.shown[0].kind, sg::SourceProblemKind::LaunchArgumentCount);
  EXPECT_NE(lines[0].find("kernel.cu:2: a kernel launch needs 2 to 4 configuration arguments"), std::string::npos)
      << lines[0];
}

TEST(CpuRewrite, MacrosDoNotOpenDeviceScopes) {
  // `__device__` inside a #define must not make the next host function look like device code.
  const std::string src =
      "#define HD __host__ __device__\n"
      "#define LAUNCH(k) k<<<1, 1>>>()\n"
      "void host() { kern<<<1, 1>>>(); }\n";
  const RewriteResult r = rewrite_for_cpu(src);
  ASSERT_TRUE(r.ok()) << join(sg::source_problem_lines("kernel.cu", r.problems));
  EXPECT_EQ(r.launches, 2);
  EXPECT_EQ(rewritten_line(r, 3), "void host() { ::cudacpu::launch(kern, 1, 1)(); }");
}

// ---------------------------------------------------------------------------
// Whole kernels through build_cpu_runner and the runner protocol

TEST(CpuBackend, TestKernelHasItsBarriersWhereTheVariantsExpect) {
  std::istringstream in(kTiled);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  ASSERT_GE(lines.size(), 22u);
  EXPECT_NE(lines[18].find("FIRST_BARRIER"), std::string::npos);
  EXPECT_NE(lines[21].find("SECOND_BARRIER"), std::string::npos);
}

TEST(CpuBackend, ReferenceKernelMatchesFp64OnOddAndLargeSizes) {
  const fs::path reference = fs::path(SG_SOURCE_ROOT) / "reference" / "kernel.cu";
  ASSERT_TRUE(fs::exists(reference)) << reference;
  std::ifstream in(reference);
  std::stringstream text;
  text << in.rdbuf();
  Built b;
  BUILD_OR_FAIL(text.str(), b);
  const int sizes[][3] = {{1, 1, 1}, {17, 33, 15}, {50, 7, 70}, {300, 200, 1}, {2000, 64, 17}, {120, 201, 250}};
  unsigned seed = 1;
  for (const auto& s : sizes) {
    const Matrices x = random_inputs(s[0], s[1], s[2], seed++);
    EXPECT_EQ(wrong_after_run(b.build.runner, x), 0) << s[0] << "x" << s[1] << "x" << s[2];
  }
  // The largest odd case of the default suite; its time is printed for the record.
  const Matrices big = random_inputs(1000, 777, 333, 99);
  const auto t0 = std::chrono::steady_clock::now();
  const RunOutcome r = run_case(b.build.runner, big);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(r.replied) << r.error << r.output;
  ASSERT_EQ(r.reply.header.status, sg::proto::ReplyStatus::Ok) << r.reply.message;
  EXPECT_EQ(wrong_elements(big, r.reply.c), 0);
  std::printf("[ timing ] 1000x777x333 on the CPU backend: %.2f s in the runner (kernel %.2f s), build %.2f s\n", s,
              r.reply.header.checked_launch_wall_ms / 1000, b.build.seconds);
}

// A missing barrier must give a wrong answer on every case with more than
// one K tile, for any inputs, and the same answer on every run.
void expect_always_wrong(const std::string& runner, const char* which) {
  const int sizes[][3] = {{1000, 777, 333}, {2000, 64, 17}, {128, 200, 96}, {120, 201, 250}, {17, 64, 40}};
  for (const auto& s : sizes) {
    std::vector<float> first, second;
    const Matrices x = random_inputs(s[0], s[1], s[2], 7);
    const long long wrong = wrong_after_run(runner, x, &first);
    EXPECT_GT(wrong, 0) << which << " went unnoticed on " << s[0] << "x" << s[1] << "x" << s[2];
    EXPECT_GT(wrong_after_run(runner, random_inputs(s[0], s[1], s[2], 8)), 0) << which << ", second inputs";
    wrong_after_run(runner, x, &second);
    EXPECT_EQ(std::memcmp(first.data(), second.data(), first.size() * sizeof(float)), 0)
        << which << ": the same inputs gave different outputs";
  }
}

TEST(CpuBackend, MissingFirstBarrierIsWrongEveryTime) {
  Built b;
  BUILD_OR_FAIL(tiled_variant("__syncthreads();  // FIRST_BARRIER", ""), b);
  expect_always_wrong(b.build.runner, "a missing first barrier");
}

TEST(CpuBackend, MissingSecondBarrierIsWrongEveryTime) {
  Built b;
  BUILD_OR_FAIL(tiled_variant("__syncthreads();  // SECOND_BARRIER", ""), b);
  expect_always_wrong(b.build.runner, "a missing second barrier");
}

// The tiled kernel without boundary checks on its loads.
std::string unguarded_loads_variant() {
  std::string src = tiled_variant("(row < m && a_col < k) ? A[row * k + a_col] : 0.0f", "A[row * k + a_col]");
  return replace_once(src, "(b_row < k && col < n) ? B[b_row * n + col] : 0.0f", "B[b_row * n + col]");
}

TEST(CpuBackend, OutOfBoundsLoadIsReportedAndTheKernelGoesOn) {
  Built b;
  BUILD_OR_FAIL(unguarded_loads_variant(), b);
  const int m = 40, k = 37, n = 20;
  const Matrices x = random_inputs(m, k, n, 3);
  // Twice in one runner: the red zones close after each launch and report again.
  const RunOutcome r = run_case(b.build.runner, x, {}, 2);
  ASSERT_TRUE(r.replied) << r.error << "\n" << r.output;
  ASSERT_EQ(r.replies.size(), 2u);
  // As on a GPU the kernel runs to the end: an Ok reply whose message names
  // the access that first touched the red zone. Block (0,0) runs first, and in
  // it thread (15,15) (descending order) reads B at row 32 + 15 of the last K
  // tile, column 15: index 47 * n + 15, past the end at k * n.
  const std::string expected = "out-of-bounds read of B at index " + std::to_string(47 * n + 15) +
                               " (allocation of " + std::to_string(k * n) +
                               " floats) by thread (15,15) of block (0,0) (blocks of 16x16 threads)";
  for (const auto& reply : r.replies) {
    EXPECT_EQ(reply.header.status, sg::proto::ReplyStatus::Ok);
    EXPECT_EQ(reply.message, expected);
    // The garbage read past B's end enters every sum of the last K tile.
    EXPECT_EQ(wrong_elements(x, reply.c), static_cast<long long>(m) * n);
  }
  EXPECT_EQ(std::memcmp(r.replies[0].c.data(), r.replies[1].c.data(), r.reply.c.size() * sizeof(float)), 0);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  // Another seed (other turns of the resident blocks) reports the same first
  // access: the first in the order of blocks and threads, not of the turns.
  const RunOutcome other_turns = run_case(b.build.runner, x, {}, 1, 0x5eedull);
  EXPECT_EQ(other_turns.reply.message, expected);
}

TEST(CpuBackend, OutOfBoundsStoreIsReportedAndLost) {
  Built b;
  BUILD_OR_FAIL(tiled_variant("if (row < m && col < n) C[row * n + col] = sum;", "C[row * n + col] = sum;"), b);
  const int m = 20, k = 16, n = 16;  // rows 20..31 of the second block row do not exist
  const Matrices x = random_inputs(m, k, n, 4);
  const RunOutcome r = run_case(b.build.runner, x);
  ASSERT_TRUE(r.replied) << r.error << "\n" << r.output;
  // Block (0,1) holds rows 16..31; its thread (15,15), the first to run, writes row 31.
  EXPECT_EQ(r.reply.message, "out-of-bounds write of C at index 511 (allocation of 320 floats) by thread (15,15) "
                             "of block (0,1) (blocks of 16x16 threads)");
  // The rows that exist are right; the stray writes went nowhere.
  EXPECT_EQ(wrong_elements(x, r.reply.c), 0);
}

// Device memory is device memory: host code that computes C itself (a cheat
// that would score on a CPU layer whose device memory is host memory) or
// reads a device pointer by mistake fails as it does on a GPU.
TEST(CpuBackend, HostCodeCannotTouchDeviceMemory) {
  const std::string host_gemm = R"(#include <cuda_runtime.h>
__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  __shared__ float t[1]; t[0] = 0; __syncthreads();
}
void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float s = 0;
      for (int p = 0; p < k; ++p) s += A[i * k + p] * B[p * n + j];
      C[i * n + j] = s;
    }
  mysgemm<<<1, 1>>>(m, n, k, A, B, C);
}
)";
  Built b;
  BUILD_OR_FAIL(host_gemm, b);
  const RunOutcome r = run_case(b.build.runner, random_inputs(20, 12, 16, 9));
  ASSERT_TRUE(r.replied) << r.error << "\n" << r.output;
  EXPECT_EQ(r.reply.header.status, sg::proto::ReplyStatus::CudaError) << r.reply.message;
  EXPECT_EQ(r.reply.message.rfind("host code read device memory at 0x", 0), 0u) << r.reply.message;
  EXPECT_NE(r.reply.message.find("(A, an allocation of 240 floats): on a GPU this is an illegal access"),
            std::string::npos)
      << r.reply.message;
  // Host code: no kernel's launch, no fault kind the judge names.
  EXPECT_EQ(r.reply.header.launch.fault, sg::proto::FaultKind::None);
  EXPECT_EQ(r.reply.header.launch.block_x, 0u);
  // The same runtime still serves kernels and copies: the tiled kernel is right.
  Built good;
  BUILD_OR_FAIL(tiled_variant("", ""), good);
  EXPECT_EQ(wrong_after_run(good.build.runner, random_inputs(45, 70, 33, 5)), 0);
}

TEST(CpuBackend, SharedArrayOverrunIsFatalAndNamed) {
  // 256 threads in one dimension index the 16-wide tiles past their end.
  Built b;
  BUILD_OR_FAIL(tiled_variant("dim3 block(TILE_SIZE, TILE_SIZE);", "dim3 block(TILE_SIZE * TILE_SIZE);"), b);
  const RunOutcome r = run_case(b.build.runner, random_inputs(32, 32, 32, 6));
  ASSERT_TRUE(r.replied) << r.error << "\n" << r.output;
  // Fatal, as leaving the block's shared window is on a GPU. Thread 255
  // (first in descending order) stores its own tile entries in bounds, then
  // reads Bs[1][255]: index 16 + 255.
  EXPECT_EQ(r.reply.header.status, sg::proto::ReplyStatus::CudaError) << r.reply.message;
  EXPECT_EQ(r.exit_code, 86) << r.output;
  // The block is the first to get there in the seed's turns of the resident blocks.
  const std::string start = "out-of-bounds read of __shared__ Bs at index 271 (allocation of 256 floats) by "
                            "thread (255,0) of block (";
  const std::string end = ") (blocks of 256x1 threads)";
  EXPECT_EQ(r.reply.message.rfind(start, 0), 0u) << r.reply.message;
  EXPECT_EQ(r.reply.message.size() - std::min(r.reply.message.size(), end.size()), r.reply.message.rfind(end))
      << r.reply.message;
  // The same as facts in the header, for the judge's words (words/case_report.cpp).
  const sg::proto::LaunchFacts& f = r.reply.header.launch;
  EXPECT_EQ(f.fault, sg::proto::FaultKind::OutOfBounds);
  EXPECT_EQ(f.block_x, 256u);
  EXPECT_EQ(f.block_y, 1u);
  EXPECT_EQ(f.grid_x * f.grid_y, 4u) << f.grid_x << "x" << f.grid_y;
  EXPECT_EQ(f.fault_shared, 1u);
  EXPECT_EQ(f.fault_elements, 256u);
  // In bounds, a shared array behaves as before: the tiled kernel is right.
  Built good;
  BUILD_OR_FAIL(tiled_variant("", ""), good);
  EXPECT_EQ(wrong_after_run(good.build.runner, random_inputs(45, 70, 33, 5)), 0);
}

TEST(CpuBackend, WildAccessFarFromEveryAllocationIsFatal) {
  Built b;
  BUILD_OR_FAIL(tiled_variant("(row < m && a_col < k) ? A[row * k + a_col] : 0.0f",
                              "(row < m && a_col < k) ? A[row * k + a_col + (1ll << 40)] : 0.0f"),
                b);
  const RunOutcome r = run_case(b.build.runner, random_inputs(20, 20, 20, 5));
  ASSERT_TRUE(r.replied) << r.error << "\n" << r.output;
  EXPECT_EQ(r.reply.header.status, sg::proto::ReplyStatus::CudaError);
  EXPECT_EQ(r.reply.message.rfind("invalid ", 0), 0u) << r.reply.message;
  EXPECT_NE(r.reply.message.find(" by thread (15,15) of block (0,0)"), std::string::npos) << r.reply.message;
  EXPECT_EQ(r.exit_code, 86) << r.output;
  // Outside every allocation: a fault of a kernel thread, with its launch and no allocation.
  const sg::proto::LaunchFacts& f = r.reply.header.launch;
  EXPECT_EQ(f.fault, sg::proto::FaultKind::ThreadFault);
  EXPECT_EQ(f.block_x, 16u);
  EXPECT_EQ(f.block_y, 16u);
  EXPECT_EQ(f.grid_x, 2u);
  EXPECT_EQ(f.grid_y, 2u);
  EXPECT_EQ(f.fault_elements, 0u);
}

// The race check's premise: a race-free kernel computes the same bits with
// each block's threads in the opposite order; a missing barrier does not.
TEST(CpuBackend, ReverseScheduleChangesOnlyRacyResults) {
  const fs::path reference = fs::path(SG_SOURCE_ROOT) / "reference" / "kernel.cu";
  std::ifstream in(reference);
  std::stringstream text;
  text << in.rdbuf();
  Built good, loads, first, second;
  BUILD_OR_FAIL(text.str(), good);
  BUILD_OR_FAIL(unguarded_loads_variant(), loads);
  BUILD_OR_FAIL(tiled_variant("__syncthreads();  // FIRST_BARRIER", ""), first);
  BUILD_OR_FAIL(tiled_variant("__syncthreads();  // SECOND_BARRIER", ""), second);
  auto same_both_ways = [](const Built& b, int m, int k, int n) {
    const Matrices x = random_inputs(m, k, n, 12);
    const RunOutcome fwd = run_case(b.build.runner, x);
    const RunOutcome rev = run_case(b.build.runner, x, {}, 1, 0, true);
    EXPECT_TRUE(fwd.replied && rev.replied) << fwd.error << rev.error;
    if (!fwd.replied || !rev.replied || fwd.reply.c.size() != rev.reply.c.size()) return false;
    return std::memcmp(fwd.reply.c.data(), rev.reply.c.data(), fwd.reply.c.size() * sizeof(float)) == 0;
  };
  EXPECT_TRUE(same_both_ways(good, 40, 50, 36));
  EXPECT_TRUE(same_both_ways(good, 120, 201, 250));
  // Out-of-bounds reads find the same garbage in either order: not a race.
  EXPECT_TRUE(same_both_ways(loads, 40, 50, 36));
  EXPECT_FALSE(same_both_ways(first, 40, 50, 36)) << "missing first barrier";
  EXPECT_FALSE(same_both_ways(second, 40, 50, 36)) << "missing second barrier";
  // With a single K tile there is nothing to race on.
  EXPECT_TRUE(same_both_ways(second, 40, 16, 36));
}

TEST(CpuBackend, ThreeAndFourConfigArgumentsAndDynamicSharedMemory) {
  const std::vector<std::string> variants = {
      tiled_variant("mysgemm<<<grid, block>>>", "mysgemm<<<grid, block, 0>>>"),
      tiled_variant("mysgemm<<<grid, block>>>", "cudaStream_t s = 0;\n  mysgemm<<<grid, block, 0, s>>>"),
      // Tiles in dynamic shared memory, sized by the third argument.
      replace_once(replace_once(tiled_variant("mysgemm<<<grid, block>>>",
                                              "mysgemm<<<grid, block, 2 * TILE_SIZE * TILE_SIZE * sizeof(float)>>>"),
                                "__shared__ float As[TILE_SIZE][TILE_SIZE];",
                                "extern __shared__ float tiles[]; float (*As)[TILE_SIZE] = "
                                "reinterpret_cast<float (*)[TILE_SIZE]>(tiles);"),
                   "__shared__ float Bs[TILE_SIZE][TILE_SIZE];",
                   "float (*Bs)[TILE_SIZE] = reinterpret_cast<float (*)[TILE_SIZE]>(tiles + TILE_SIZE * TILE_SIZE);"),
  };
  for (const std::string& src : variants) {
    Built b;
    BUILD_OR_FAIL(src, b);
    EXPECT_EQ(wrong_after_run(b.build.runner, random_inputs(45, 70, 33, 5)), 0) << src;
  }
}

TEST(CpuBackend, EmptyGridIsARefusedLaunch) {
  Built b;
  BUILD_OR_FAIL(tiled_variant("dim3 grid((n + TILE_SIZE - 1) / TILE_SIZE, (m + TILE_SIZE - 1) / TILE_SIZE);",
                              "dim3 grid(n / TILE_SIZE, m / TILE_SIZE);"),
                b);
  const RunOutcome r = run_case(b.build.runner, random_inputs(8, 16, 32, 6));  // m / 16 == 0
  ASSERT_TRUE(r.replied) << r.error << r.output;
  EXPECT_EQ(r.reply.header.status, sg::proto::ReplyStatus::LaunchRefused);
  EXPECT_NE(r.reply.message.find("cudaErrorInvalidConfiguration"), std::string::npos) << r.reply.message;
  EXPECT_NE(r.reply.message.find("grid (2, 0, 1) has a zero dimension"), std::string::npos) << r.reply.message;
}

// The judge's side of a refused launch: the case fails with the launch error,
// and the same runner (no restart) answers the next case.
TEST(CpuBackend, RunnerCarriesOnAfterARefusedLaunch) {
  Built b;
  BUILD_OR_FAIL(tiled_variant("dim3 grid((n + TILE_SIZE - 1) / TILE_SIZE, (m + TILE_SIZE - 1) / TILE_SIZE);",
                              "dim3 grid(n / TILE_SIZE, m / TILE_SIZE);"),
                b);
  const sg::RunnerConfig rc = session_config(b);
  sg::RunnerSession session(rc);
  const Matrices empty_grid = random_inputs(8, 16, 32, 6), whole_tiles = random_inputs(32, 16, 48, 7);
  const sg::CaseOutcome refused = session.run(8, 16, 32, empty_grid.a, empty_grid.b, 60);
  EXPECT_EQ(refused.kind, sg::CaseOutcome::Kind::LaunchError);
  EXPECT_EQ(refused.failure, sg::CaseOutcome::Failure::LaunchFailed);
  EXPECT_NE(refused.message.find("cudaErrorInvalidConfiguration"), std::string::npos) << refused.message;
  const sg::CaseOutcome next = session.run(32, 16, 48, whole_tiles.a, whole_tiles.b, 60);
  ASSERT_EQ(next.kind, sg::CaseOutcome::Kind::Ok) << sg::runner_failure(next);
  EXPECT_EQ(wrong_elements(whole_tiles, next.reply.c), 0);
  EXPECT_EQ(session.generation(), 1) << "the runner was restarted after a launch that left the device usable";
}

// After a runner dies, the one that replaces it has a spare started beside
// it; the spare serves the case after the next death (a fresh runner, no
// state kept), and the cases in between are unaffected.
TEST(CpuBackend, SpareRunnerServesAfterTheNextCrash) {
  Built b;
  // Threads that return before the barrier: a sticky error (the runner ends) when m % 16 != 0.
  BUILD_OR_FAIL(tiled_variant("// EARLY_EXIT", "if (row >= m) return;"), b);
  const sg::RunnerConfig rc = session_config(b);
  const Matrices ragged = random_inputs(20, 40, 16, 2), whole_tiles = random_inputs(32, 16, 48, 7);
  const fs::path logs = b.dir.path;
  {
    sg::RunnerSession session(rc);
    auto crash = [&] { return session.run(20, 40, 16, ragged.a, ragged.b, 60); };
    auto good = [&] { return session.run(32, 16, 48, whole_tiles.a, whole_tiles.b, 60); };
    EXPECT_EQ(crash().kind, sg::CaseOutcome::Kind::CudaError);
    EXPECT_FALSE(fs::exists(logs / "runner-2.txt")) << "a spare before any runner died";
    sg::CaseOutcome second = good();  // a fresh runner, and a spare beside it
    ASSERT_EQ(second.kind, sg::CaseOutcome::Kind::Ok) << sg::runner_failure(second);
    EXPECT_EQ(wrong_elements(whole_tiles, second.reply.c), 0);
    EXPECT_EQ(session.generation(), 2);
    EXPECT_TRUE(fs::exists(logs / "runner-3.txt")) << "no spare was started after the first death";
    EXPECT_EQ(crash().kind, sg::CaseOutcome::Kind::CudaError);
    sg::CaseOutcome fourth = good();  // served by the spare
    ASSERT_EQ(fourth.kind, sg::CaseOutcome::Kind::Ok) << sg::runner_failure(fourth);
    EXPECT_EQ(wrong_elements(whole_tiles, fourth.reply.c), 0);
    EXPECT_EQ(session.generation(), 3);
    EXPECT_TRUE(fs::exists(logs / "runner-4.txt")) << "no new spare beside the promoted one";
    EXPECT_FALSE(fs::exists(logs / "runner-5.txt"));
  }
  // The session's end takes the runner and its spare (zombies count too).
  EXPECT_TRUE(sg::test::my_descendants().empty()) << "runners outlived their session";
}

TEST(CpuBackend, TooManyThreadsPerBlockIsARefusedLaunch) {
  Built b;
  BUILD_OR_FAIL(tiled_variant("dim3 block(TILE_SIZE, TILE_SIZE);", "dim3 block(32, 33);"), b);
  const RunOutcome r = run_case(b.build.runner, random_inputs(16, 16, 16, 6));
  ASSERT_TRUE(r.replied) << r.error << r.output;
  EXPECT_EQ(r.reply.header.status, sg::proto::ReplyStatus::LaunchRefused);
  EXPECT_NE(r.reply.message.find("has 1056 threads; at most 1024"), std::string::npos) << r.reply.message;
}

TEST(CpuBackend, BarrierSkippedByReturnedThreadsIsAnError) {
  Built b;
  BUILD_OR_FAIL(tiled_variant("// EARLY_EXIT", "if (row >= m) return;"), b);
  const RunOutcome r = run_case(b.build.runner, random_inputs(20, 40, 16, 2));
  ASSERT_TRUE(r.replied) << r.error << r.output;
  EXPECT_EQ(r.reply.header.status, sg::proto::ReplyStatus::CudaError);
  // Block (0,1) holds rows 16..31; rows 20.. return before the first barrier.
  EXPECT_NE(r.reply.message.find("__syncthreads (kernel.cu:19) reached by only 64 of 256 threads of block (0,1); "
                                 "192 had already returned, e.g. thread (0,4)"),
            std::string::npos)
      << r.reply.message;
}

TEST(CpuBackend, UnsupportedConstructFailsTheBuildWithItsLine) {
  Built b;
  build_kernel(tiled_variant("sum += As[ty][e] * Bs[e][tx];", "sum += __shfl_down_sync(0xffffffff, As[ty][e], 1);"),
               b);
  EXPECT_FALSE(b.build.ok);
  EXPECT_NE(b.build.log.find("kernel.cu:21: `__shfl_down_sync` is not supported on the CPU backend"),
            std::string::npos)
      << b.build.log;
  EXPECT_TRUE(b.build.runner.empty());
}

TEST(CpuBackend, CompileErrorPointsAtTheStudentsLine) {
  Built b;
  build_kernel(tiled_variant("float sum = 0.0f;", "float sum = 0.0f + undeclared_thing;"), b);
  EXPECT_FALSE(b.build.ok);
  EXPECT_NE(b.build.log.find("kernel.cu:10:"), std::string::npos) << b.build.log;
  EXPECT_NE(b.build.log.find("undeclared_thing"), std::string::npos) << b.build.log;
}

TEST(CpuBackend, KernelPrintfReachesTheRunnersOutput) {
  Built b;
  BUILD_OR_FAIL(tiled_variant("// EARLY_EXIT", "if (p == 0 && tx == 1 && ty == 2) printf(\"hello from (%d,%d) of block (%d,%d)\\n\", tx, ty, (int)blockIdx.x, (int)blockIdx.y);"),
                b);
  const RunOutcome r = run_case(b.build.runner, random_inputs(16, 16, 32, 6));
  ASSERT_TRUE(r.replied) << r.error;
  // The resident blocks take turns, so the two lines may come in either order.
  EXPECT_NE(r.output.find("hello from (1,2) of block (0,0)\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("hello from (1,2) of block (1,0)\n"), std::string::npos) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 2) << r.output;
}

TEST(CpuBackend, PortableFiberSwitchGivesTheSameResults) {
  Built b;
  BUILD_OR_FAIL(tiled_variant("__syncthreads();  // SECOND_BARRIER", ""), b);  // a racy kernel shows the schedule
  const Matrices x = random_inputs(40, 50, 36, 9);
  const RunOutcome fast = run_case(b.build.runner, x);
  const RunOutcome portable = run_case(b.build.runner, x, {"CUDACPU_FIBERS=ucontext"});
  ASSERT_TRUE(fast.replied && portable.replied) << fast.error << portable.error;
  ASSERT_EQ(fast.reply.c.size(), portable.reply.c.size());
  EXPECT_EQ(std::memcmp(fast.reply.c.data(), portable.reply.c.data(), fast.reply.c.size() * sizeof(float)), 0);
  EXPECT_GT(wrong_elements(x, fast.reply.c), 0);
}

}  // namespace
