// The CPU layer as a model of a GPU (grader/cudacpu/lib/
// launch_tracking.h): blocks resident together that overwrite a global tile,
// races between blocks and the loads they lose, global loads counted per
// warp, and a build that leaves nothing outside the count (escapes from the
// hooks, code that depends on __CUDA_ARCH__, the symbol policy, nvcc's
// macros and none of the layer's). Kernels are built with build_cpu_runner
// and run through the runner protocol; no GPU.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backends/cpu/preprocessed_scan.h"
#include "../../tests/cpu_runner_fixture.h"
#include "static_checks/symbol_policy.h"
#include "words/source_problems.h"
#include "words/symbol_report.h"

namespace {

using namespace cpu_fixture;

// The tiled kernel with its tiles in global memory (__device__), as
// grader/samples/bugs/device_tile.
std::string device_tile_kernel() {
  std::string src = tiled_variant("  __shared__ float As[TILE_SIZE][TILE_SIZE];\n  __shared__ float Bs[TILE_SIZE][TILE_SIZE];\n", "");
  return replace_once(src, "__global__ void mysgemm",
                      "__device__ float As[TILE_SIZE][TILE_SIZE];\n__device__ float Bs[TILE_SIZE][TILE_SIZE];\n"
                      "__global__ void mysgemm");
}

// Split-K over blockIdx.z: each of `splits` blocks adds its slice's sum into
// C, with `add` ("C[i] += s" or "atomicAdd(&C[i], s)").
std::string split_k_kernel(const std::string& add) {
  return R"(#define TILE 16
static __global__ void zero(int count, float *C) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) C[i] = 0.0f;
}
__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  __shared__ float As[TILE][TILE], Bs[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  const int phases = (k + TILE - 1) / TILE, per = (phases + gridDim.z - 1) / gridDim.z;
  const int first = blockIdx.z * per, last = min(phases, first + per);
  float s = 0.0f;
  for (int p = first; p < last; ++p) {
    As[ty][tx] = (row < m && p * TILE + tx < k) ? A[row * k + p * TILE + tx] : 0.0f;
    Bs[ty][tx] = (p * TILE + ty < k && col < n) ? B[(p * TILE + ty) * n + col] : 0.0f;
    __syncthreads();
    for (int e = 0; e < TILE; ++e) s += As[ty][e] * Bs[e][tx];
    __syncthreads();
  }
  const int i = row * n + col;
  if (row < m && col < n && first < last) )" +
         add + R"(;
}
void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  zero<<<(m * n + 255) / 256, 256>>>(m * n, C);
  mysgemm<<<dim3((n + TILE - 1) / TILE, (m + TILE - 1) / TILE, 4), dim3(TILE, TILE)>>>(m, n, k, A, B, C);
}
)";
}

// One thread per element of C; `load_a` and `load_b` say how each reads its operands.
const char* const kNaive = R"(
__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= n) return;
  float s = 0.0f;
  for (int e = 0; e < k; ++e) s += A[row * k + e] * B[e * n + col];
  C[row * n + col] = s;
}
void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  mysgemm<<<dim3((n + 15) / 16, (m + 15) / 16), dim3(16, 16)>>>(m, n, k, A, B, C);
}
)";

// Builds `source`; the build must fail, and its log is returned.
std::string refused_build(const std::string& source) {
  Built b;
  build_kernel(source, b);
  EXPECT_FALSE(b.build.ok) << "built although it should not:\n" << source;
  return b.build.log;
}

// ---------------------------------------------------------------------------
// Blocks that run together

// On a GPU every resident block writes the same global tile between its
// barriers; the layer's resident blocks take turns there, so each block
// computes with tiles another block loaded.
TEST(CpuModel, GlobalTileIsOverwrittenByTheOtherResidentBlocks) {
  Built b;
  BUILD_OR_FAIL(device_tile_kernel(), b);
  const Matrices x = random_inputs(64, 48, 64, 21);
  const RunOutcome r = run_case(b.build.runner, x);
  ASSERT_TRUE(r.replied) << r.error << "\n" << r.output;
  ASSERT_EQ(r.reply.header.status, sg::proto::ReplyStatus::Ok) << r.reply.message;
  EXPECT_GT(wrong_elements(x, r.reply.c), 64 * 64 / 2);
  // Blocks (0,0) and (1,0) take the first turns; both store to the tile.
  EXPECT_EQ(r.reply.block_race.rfind("blocks (0,0) and (1,0) both wrote ", 0), 0u) << r.reply.block_race;
  EXPECT_NE(r.reply.block_race.find(" without an atomic"), std::string::npos) << r.reply.block_race;
  // One block alone has nobody to race with: right, and no race.
  const Matrices one = random_inputs(16, 48, 16, 22);
  const RunOutcome alone = run_case(b.build.runner, one);
  EXPECT_EQ(wrong_elements(one, alone.reply.c), 0);
  EXPECT_EQ(alone.reply.block_race, "");
}

// The same kernel with __shared__ tiles has a copy per resident block: right,
// whatever the seed of the turns.
TEST(CpuModel, SharedTilesAreEachBlocksOwnWhateverTheTurns) {
  Built b;
  BUILD_OR_FAIL(kTiled, b);
  const Matrices x = random_inputs(100, 77, 90, 23);
  for (std::uint64_t seed : {0ull, 1ull, 0x5eedull, 0xffffffffffull}) {
    const RunOutcome r = run_case(b.build.runner, x, {}, 1, seed);
    ASSERT_TRUE(r.replied) << r.error;
    EXPECT_EQ(wrong_elements(x, r.reply.c), 0) << "seed " << seed;
    EXPECT_EQ(r.reply.block_race, "") << "seed " << seed;
  }
}

// ---------------------------------------------------------------------------
// Races between blocks

// Split-K with a plain +=: a block reading an element another block wrote in
// the same launch gets its value from before the launch, so the other
// slices' sums are lost, as when the blocks run at once on a GPU.
TEST(CpuModel, SplitKWithoutAtomicsLosesUpdatesAndNamesTheFirstRace) {
  Built b;
  BUILD_OR_FAIL(split_k_kernel("C[i] += s"), b);
  const Matrices x = random_inputs(32, 128, 48, 24);  // 8 K tiles: 2 a slice
  const RunOutcome r = run_case(b.build.runner, x);
  ASSERT_TRUE(r.replied) << r.error << "\n" << r.output;
  EXPECT_EQ(wrong_elements(x, r.reply.c), 32 * 48);
  // Block (0,0,0) runs first, its thread (15,15) first; block (0,0,1) stores there next.
  EXPECT_EQ(r.reply.block_race, "blocks (0,0,0) and (0,0,1) both wrote C[15][15] without an atomic");
  EXPECT_EQ(r.reply.header.racing_stores, 3u * 32 * 48) << "three slices store over another's sum";
  // With one K tile only one slice works: one writer per element.
  const Matrices thin = random_inputs(32, 16, 48, 25);
  const RunOutcome t = run_case(b.build.runner, thin);
  EXPECT_EQ(wrong_elements(thin, t.reply.c), 0);
  EXPECT_EQ(t.reply.block_race, "");
}

TEST(CpuModel, SplitKWithAtomicsIsRightAndNoRace) {
  Built b;
  BUILD_OR_FAIL(split_k_kernel("atomicAdd(&C[i], s)"), b);
  const Matrices x = random_inputs(45, 200, 37, 26);
  const RunOutcome r = run_case(b.build.runner, x);
  ASSERT_TRUE(r.replied) << r.error << "\n" << r.output;
  EXPECT_EQ(wrong_elements(x, r.reply.c), 0);
  EXPECT_EQ(r.reply.block_race, "");
  EXPECT_EQ(r.reply.header.racing_stores, 0u);
}

// Two blocks storing the very same bits to an element (a grid with
// duplicate blocks) give a GPU's result in any order: no race.
TEST(CpuModel, IdenticalStoresOfTwoBlocksAreNoRace) {
  const std::string twice = replace_once(kNaive, "const int row = blockIdx.y * blockDim.y + threadIdx.y",
                                         "const int row = (blockIdx.y % ((m + 15) / 16)) * blockDim.y + threadIdx.y");
  Built b;
  BUILD_OR_FAIL(replace_once(twice, "dim3((n + 15) / 16, (m + 15) / 16)", "dim3((n + 15) / 16, 2 * ((m + 15) / 16))"),
                b);
  const Matrices x = random_inputs(40, 30, 20, 27);
  const RunOutcome r = run_case(b.build.runner, x);
  ASSERT_TRUE(r.replied) << r.error << "\n" << r.output;
  EXPECT_EQ(wrong_elements(x, r.reply.c), 0);
  EXPECT_EQ(r.reply.block_race, "");
}

// ---------------------------------------------------------------------------
// Global loads, counted as a GPU counts instructions

TEST(CpuModel, GlobalLoadsAreCountedPerWarpLikeNcu) {
  Built tiled, naive;
  BUILD_OR_FAIL(kTiled, tiled);
  BUILD_OR_FAIL(kNaive, naive);
  const int s = 64;
  const Matrices x = random_inputs(s, s, s, 28);
  const double naive_loads = 2.0 * s * s * s / 32;  // two loads a multiply-add, 32 threads a warp
  const RunOutcome t = run_case(tiled.build.runner, x);
  const RunOutcome n = run_case(naive.build.runner, x);
  ASSERT_TRUE(t.replied && n.replied) << t.error << n.error;
  EXPECT_DOUBLE_EQ(t.reply.header.global_loads, naive_loads / 16);
  EXPECT_DOUBLE_EQ(n.reply.header.global_loads, naive_loads);
  EXPECT_EQ(t.reply.header.kernel_launches, 1u);
  // A second case counts afresh.
  const RunOutcome again = run_case(tiled.build.runner, x, {}, 2);
  ASSERT_EQ(again.replies.size(), 2u);
  EXPECT_DOUBLE_EQ(again.replies[1].header.global_loads, naive_loads / 16);
}

// A float4 load is one instruction, as on a GPU; a copy through memcpy of a
// size the compiler does not know counts one load per 16 bytes.
TEST(CpuModel, VectorLoadsAndLibraryCopiesAreCounted) {
  const std::string vec = R"(#include <cstring>
__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= n) return;
  float s = 0.0f;
  float a[64];
  std::memcpy(a, &A[row * k], sizeof(float) * k);  // k floats of A's row: k / 4 loads
  for (int e = 0; e < k; e += 4) {
    const float4 b4 = make_float4(B[e * n + col], B[(e + 1) * n + col], B[(e + 2) * n + col], B[(e + 3) * n + col]);
    const float4 a4 = *reinterpret_cast<const float4*>(&a[e]);
    s += a4.x * b4.x + a4.y * b4.y + a4.z * b4.z + a4.w * b4.w;
  }
  C[row * n + col] = s;
}
void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  mysgemm<<<dim3((n + 15) / 16, (m + 15) / 16), dim3(16, 16)>>>(m, n, k, A, B, C);
}
)";
  Built b;
  BUILD_OR_FAIL(vec, b);
  const int m = 32, k = 64, n = 32;
  const Matrices x = random_inputs(m, k, n, 29);
  const RunOutcome r = run_case(b.build.runner, x);
  ASSERT_TRUE(r.replied) << r.error << "\n" << r.output;
  EXPECT_EQ(wrong_elements(x, r.reply.c), 0);
  // Per thread: k / 4 loads of A through memcpy and k loads of B.
  EXPECT_DOUBLE_EQ(r.reply.header.global_loads, double(m) * n * (k / 4 + k) / 32);
}

// ---------------------------------------------------------------------------
// What the build refuses or hides

TEST(CpuModel, EscapesFromTheHooksAreRefusedThroughMacrosAndSplices) {
  const std::string attribute = R"(#define QUIET __attribute__((no_sanitize_address))
#define CAT(a, b) a##b
QUIET __device__ float peek(const float* p) { return *p; }
__attribute__((CAT(opti, mize)("O0"))) __device__ float peek2(const float* p) { return *p; }
)" + std::string(kNaive);
  const std::string log = refused_build(attribute);
  EXPECT_NE(log.find("kernel.cu:3: the attribute `no_sanitize_address` is not supported on the CPU backend"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("kernel.cu:4: the attribute `optimize` is not supported on the CPU backend"), std::string::npos)
      << log;
  // A line splice: the rewriter joins the name as the preprocessor does and refuses it first.
  const std::string spliced = "__global__ void f() { __as\\\nm__ volatile(\"\"); }\n" + std::string(kNaive);
  EXPECT_NE(refused_build(spliced).find("kernel.cu:1: `__asm__` is not supported on the CPU backend"),
            std::string::npos);
  // A name pasted by a macro: only the preprocessed text holds it.
  const std::string pasted = "#define CAT(a, b) a##b\n__global__ void f() { CAT(__as, m__) volatile(\"\"); }\n" +
                             std::string(kNaive);
  EXPECT_NE(refused_build(pasted).find("inline assembly (`__asm__`)"), std::string::npos);
  const std::string pragma = "_Pragma(\"GCC optimize(\\\"O0\\\")\")\n" + std::string(kNaive);
  EXPECT_NE(refused_build(pragma).find("`#pragma GCC optimize`"), std::string::npos);
}

TEST(CpuModel, CodeThatDependsOnCudaArchIsRefused) {
  // The name pasted together, so that no text search finds it.
  const std::string two_faced = R"(#define PASTE(a, b) a##b
#if PASTE(__CUDA_, ARCH__) > 0
static const int device_pass = 1;
#else
static const int device_pass = 0;
#endif
)" + std::string(kNaive);
  Built b;
  build_kernel(two_faced, b);
  EXPECT_FALSE(b.build.ok);
  EXPECT_TRUE(b.build.depends_on_arch) << b.build.log;
  // Testing nvcc's own macros is fine: they are defined, the layer's are not.
  const std::string nvcc_like = R"(#if !defined(__CUDACC__) || !defined(__NVCC__) || defined(__CUDACPU__) || \
    defined(__SANITIZE_ADDRESS__) || defined(__syncthreads) || !defined(CUDART_VERSION)
#error the CPU layer looks different from nvcc
#endif
)" + std::string(kNaive);
  Built ok;
  BUILD_OR_FAIL(nvcc_like, ok);
}

TEST(CpuModel, TheSymbolPolicyReadsTheObjectTheCpuBackendLinks) {
  const std::string host_copy = R"(#include <vector>
__global__ void mysgemm(int, int, int, const float*, const float*, float*) {}
void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  std::vector<float> a(m * k);
  cudaMemcpy(a.data(), A, a.size() * sizeof(float), cudaMemcpyDeviceToHost);
  (void)n; (void)B; (void)C;
}
)";
  Built b;
  build_kernel(host_copy, b);
  ASSERT_FALSE(b.build.ok);
  ASSERT_EQ(b.build.rejected.size(), 1u) << b.build.log;
  EXPECT_EQ(b.build.rejected[0], "uses `cudaMemcpy` (device memory management: the grader owns every buffer)");
  // The layer's own reports are not for submissions to call.
  const std::string clears = R"(#include <string>
namespace cudacpu { std::string take_out_of_bounds_report(); }
)" + std::string(kNaive) + "static int cleared = (cudacpu::take_out_of_bounds_report(), 0);\n";
  Built c;
  build_kernel(clears, c);
  ASSERT_FALSE(c.build.ok);
  ASSERT_EQ(c.build.rejected.size(), 1u) << c.build.log;
  EXPECT_NE(c.build.rejected[0].find("the CPU layer's own functions are not for submissions"), std::string::npos);
}

TEST(CpuModel, DeviceVariablesAreDeviceMemory) {
  const std::string counter = R"(
__device__ float scale[2];
__global__ void set_scale() { scale[threadIdx.x] = 1.0f; }
__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= n) return;
  float s = 0.0f;
  for (int e = 0; e < k; ++e) s += A[row * k + e] * B[e * n + col];
  C[row * n + col] = s * scale[0] * scale[1];
}
void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  set_scale<<<1, 2>>>();
  mysgemm<<<dim3((n + 15) / 16, (m + 15) / 16), dim3(16, 16)>>>(m, n, k, A, B, C);
  HOST_READ
}
)";
  Built b;
  BUILD_OR_FAIL(replace_once(counter, "HOST_READ", ""), b);
  const int s = 16;
  const Matrices x = random_inputs(s, s, s, 30);
  const RunOutcome r = run_case(b.build.runner, x);
  ASSERT_TRUE(r.replied) << r.error << "\n" << r.output;
  EXPECT_EQ(wrong_elements(x, r.reply.c), 0);
  // Its reads are global loads: two more per thread.
  EXPECT_DOUBLE_EQ(r.reply.header.global_loads, (2.0 * s * s * s + 2.0 * s * s) / 32);
  // Host code cannot read it, as on a GPU.
  Built host;
  BUILD_OR_FAIL(replace_once(counter, "HOST_READ", "printf(\"%f\\n\", scale[0]);"), host);
  const RunOutcome h = run_case(host.build.runner, x);
  EXPECT_EQ(h.reply.header.status, sg::proto::ReplyStatus::CudaError);
  EXPECT_EQ(h.reply.message.rfind("host code read device memory at 0x", 0), 0u) << h.reply.message;
}

// ---------------------------------------------------------------------------
// The pieces on their own

TEST(PreprocessedScan, OnlyTheStudentsLinesAndOnlyAttributesCount) {
  const std::string text =
      "# 1 \"cudacpu.h\"\n"
      "inline void f() { __asm__ __volatile__(\"\" ::: \"memory\"); }\n"  // the layer's: not counted
      "# 1 \"kernel.cu\"\n"
      "int optimize = 3;\n"                                               // a name, not an attribute: fine
      "const char* s = \"asm\";\n"                                        // a string: fine
      "const char* r = R\"x(\" asm )x\";\n"                               // a raw string: fine
      "__attribute__((aligned(16), optimize(\"O0\"))) int g;\n"           // line 4
      "[[gnu::no_sanitize_address]] void h();\n"                          // line 5
      "#pragma GCC push_options\n"                                        // line 6
      "void k() { __builtin_ia32_pause(); }\n";                           // line 7
  const std::vector<std::string> expected = {
      "kernel.cu:4: the attribute `optimize` is not supported on the CPU backend",
      "kernel.cu:5: the attribute `no_sanitize_address` is not supported on the CPU backend",
      "kernel.cu:6: `#pragma GCC push_options` is not supported on the CPU backend",
      "kernel.cu:7: the x86 builtin `__builtin_ia32_pause` is not supported on the CPU backend"};
  EXPECT_EQ(sg::source_problem_lines("kernel.cu", sg::scan_preprocessed(text, "kernel.cu")), expected);
}

TEST(PreprocessedScan, DigitSeparatorsAndSpacedBracketsHideNothing) {
  // A digit separator is no character literal (it must not hide the rest of
  // its line), and `[ [` opens an attribute list as `[[` does.
  const std::string text =
      "# 1 \"kernel.cu\"\n"
      "int x = 1'000; void f() { __asm__(\"nop\"); }\n"                    // line 1
      "# 7 \"kernel.cu\"\n"
      "int y = 0x1'0; [ [gnu::no_sanitize_address] ] void g();\n"         // line 7
      "int a[3]; int b = a[a[0]]; int optimize;\n";                       // line 8: nothing
  const std::vector<std::string> expected = {
      "kernel.cu:1: inline assembly (`__asm__`) is not supported on the CPU backend",
      "kernel.cu:7: the attribute `no_sanitize_address` is not supported on the CPU backend"};
  EXPECT_EQ(sg::source_problem_lines("kernel.cu", sg::scan_preprocessed(text, "kernel.cu")), expected);
}

TEST(PreprocessedScan, OneMebibyteOfNestedParenthesesAndQuotesIsOnePass) {
  std::string text = "# 1 \"kernel.cu\"\n__attribute__(";
  text += std::string(1 << 19, '(') + std::string(1 << 19, ')');
  text += "\n" + std::string(1 << 20, '"') + "\n";
  EXPECT_TRUE(sg::scan_preprocessed(text, "kernel.cu").empty());
}

TEST(CpuLayerSymbols, WhatTheLayerCompilesToIsAllowedAndNothingElseOfIt) {
  using sg::build::classify_cpu_layer_reference;
  for (const char* allowed : {"threadIdx", "__asan_report_load4_noabort",
                              "_ZN7cudacpu6detail8run_gridERKNS0_11LaunchShapeEPFvPvES4_",
                              "_ZN7cudacpu6detail13resident_slotE"}) {
    const auto v = classify_cpu_layer_reference(allowed);
    ASSERT_TRUE(v.has_value()) << allowed;
    EXPECT_TRUE(v->allowed) << allowed;
  }
  const auto copy = classify_cpu_layer_reference("_ZN7cudacpu6detail11copy_symbolEPvmS1_mmb");
  ASSERT_TRUE(copy.has_value());
  EXPECT_FALSE(copy->allowed);
  EXPECT_EQ(copy->family, sg::build::SymbolFamily::DeviceMemory);
  EXPECT_EQ(sg::family_text(*copy), "device memory management: the grader owns every buffer");
  const auto report = classify_cpu_layer_reference("_ZN7cudacpu25take_out_of_bounds_reportB5cxx11Ev");
  ASSERT_TRUE(report.has_value());
  EXPECT_FALSE(report->allowed);
  EXPECT_EQ(report->family, sg::build::SymbolFamily::CpuLayer);
  EXPECT_FALSE(classify_cpu_layer_reference("cudaMemcpy").has_value()) << "the CUDA API is classified as for nvcc";
}

}  // namespace
