// Building a submission and the static checks on it (grader/src/build), plus
// the static half of the sample corpus: every sample compiles (or fails to)
// and is accepted or refused by the symbol check exactly as its expect.yaml
// says. Needs nvcc for the parts that compile real code, never a GPU.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "model/plan.h"
#include "sample_expect.h"
#include "static_checks/device_stubs.h"
#include "static_checks/static_checks.h"
#include "static_checks/symbol_policy.h"
#include "process/sandbox.h"
#include "process/tool_process.h"
#include "suite/suite_loader.h"
#include "words/build_report.h"
#include "words/structure_report.h"
#include "words/symbol_report.h"

namespace fs = std::filesystem;

namespace {

// ---- helpers -----------------------------------------------------------------

std::string nvcc_path() {
  if (const char* env = std::getenv("NVCC"); env && *env) return sg::find_program(env);
  if (std::string p = sg::find_program("nvcc"); !p.empty()) return p;
  return sg::find_program("/usr/local/cuda/bin/nvcc");
}

#define SG_REQUIRE_NVCC()                                                     \
  do {                                                                        \
    if (nvcc_path().empty()) GTEST_SKIP() << "needs nvcc (not in PATH, $NVCC " \
                                             "or /usr/local/cuda/bin)";       \
  } while (0)

// A fresh folder, removed with everything in it at the end of its scope.
class TempDir {
 public:
  explicit TempDir(const std::string& tag) {
    std::string tmpl = (fs::temp_directory_path() / ("sg_" + tag + "_XXXXXX")).string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + tmpl);
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

void write_file(const std::string& path, const std::string& text, bool executable = false) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
  if (executable) ::chmod(path.c_str(), 0755);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += "  " + l + "\n";
  return out;
}

// A symbol check's report with its problems as reports say them
// (words/symbol_report.h), beside the facts they are made from.
struct WordedSymbols {
  bool ok = true;
  std::vector<std::string> problems;
  std::vector<sg::SymbolProblem> facts;
};
WordedSymbols worded(const sg::SymbolReport& r) { return {r.ok, sg::symbol_problem_lines(r), r.problems}; }

// The problem that names `symbol` (between backticks), or "" when none does.
std::string problem_naming(const WordedSymbols& r, const std::string& symbol) {
  for (const auto& p : r.problems)
    if (p.find("`" + symbol + "`") != std::string::npos) return p;
  return "";
}

// ---- sources compiled with nvcc by the fixture ---------------------------------

// A correct tiled kernel that also uses what honest submissions use: error
// checks, printf/fprintf, std::min, a static helper and an anonymous namespace.
const char* const kTiled = R"(#include <algorithm>
#include <cstdio>
#include <cuda_runtime.h>
#define TILE_SIZE 16
namespace {
int tiles_for(int x) { return (x + TILE_SIZE - 1) / TILE_SIZE; }
}
static void report(cudaError_t e) {
  if (e != cudaSuccess) fprintf(stderr, "mysgemm launch: %s\n", cudaGetErrorString(e));
}
__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  __shared__ float As[TILE_SIZE][TILE_SIZE], Bs[TILE_SIZE][TILE_SIZE];
  int row = blockIdx.y * TILE_SIZE + threadIdx.y, col = blockIdx.x * TILE_SIZE + threadIdx.x;
  float sum = 0;
  for (int p = 0; p < (k + TILE_SIZE - 1) / TILE_SIZE; ++p) {
    int ac = p * TILE_SIZE + threadIdx.x, br = p * TILE_SIZE + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = row < m && ac < k ? A[row * k + ac] : 0;
    Bs[threadIdx.y][threadIdx.x] = br < k && col < n ? B[br * n + col] : 0;
    __syncthreads();
    for (int i = 0; i < TILE_SIZE; ++i) sum += As[threadIdx.y][i] * Bs[i][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n) C[row * n + col] = sum;
}
void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  dim3 grid(std::max(1, tiles_for(n)), tiles_for(m)), block(TILE_SIZE, TILE_SIZE);
  mysgemm<<<grid, block>>>(m, n, k, A, B, C);
  report(cudaGetLastError());
  if (m < 0) printf("negative m %d\n", m);
}
)";

const char* const kNaive = R"(#include <cuda_runtime.h>
__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= n) return;
  float sum = 0;
  for (int i = 0; i < k; ++i) sum += A[row * k + i] * B[i * n + col];
  C[row * n + col] = sum;
}
void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  mysgemm<<<dim3((n + 15) / 16, (m + 15) / 16), dim3(16, 16)>>>(m, n, k, A, B, C);
}
)";

// Shared memory and only the second barrier: still "uses a barrier".
const char* const kFirstBarrierMissing = R"(#include <cuda_runtime.h>
__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  __shared__ float As[16][16], Bs[16][16];
  int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
  float sum = 0;
  for (int p = 0; p < (k + 15) / 16; ++p) {
    int ac = p * 16 + threadIdx.x, br = p * 16 + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = row < m && ac < k ? A[row * k + ac] : 0;
    Bs[threadIdx.y][threadIdx.x] = br < k && col < n ? B[br * n + col] : 0;
    for (int i = 0; i < 16; ++i) sum += As[threadIdx.y][i] * Bs[i][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n) C[row * n + col] = sum;
}
void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  mysgemm<<<dim3((n + 15) / 16, (m + 15) / 16), dim3(16, 16)>>>(m, n, k, A, B, C);
}
)";

const char* const kSharedNoBarrier = R"(#include <cuda_runtime.h>
__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  __shared__ float stage[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  stage[threadIdx.x] = i < m * k ? A[i] : 0;
  if (i < m * n) C[i] = stage[(threadIdx.x + 1) % 256] * B[0];
}
void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  mysgemm<<<(m * n + 255) / 256, 256>>>(m, n, k, A, B, C);
}
)";

// Dynamic shared memory (a module-scope .shared variable in PTX) and the
// barrier inside a device function that is not inlined.
const char* const kExternSharedCall = R"(#include <cuda_runtime.h>
__device__ __noinline__ void wait_for_block() { __syncthreads(); }
__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  extern __shared__ float tile[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < m * k ? A[i] : 0;
  wait_for_block();
  if (i < m * n) C[i] = tile[blockDim.x - 1 - threadIdx.x] * B[0] + k;
}
void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  mysgemm<<<(m * n + 255) / 256, 256, 256 * sizeof(float)>>>(m, n, k, A, B, C);
}
)";

// Calls one function of every forbidden family (never at run time: m >= 0).
const char* const kForbidden = R"(#include <csetjmp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cuda.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
static jmp_buf g_jump;
static void *worker(void *) { return nullptr; }
__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {}
void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  if (m >= 0) return;
  cublasHandle_t h;
  cublasCreate(&h);
  const float one = 1;
  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, B, n, A, k, &one, C, n);
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaEvent_t e;
  cudaEventCreate(&e);
  cudaEventRecord(e);
  void *p;
  cudaMalloc(&p, 16);
  cudaMemcpy(p, A, 16, cudaMemcpyDeviceToDevice);
  cudaFree(p);
  cudaSetDevice(0);
  cudaDeviceReset();
  cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1 << 20);
  cudaGraph_t g;
  cudaGraphCreate(&g, 0);
  void *args[] = {&m};
  cudaLaunchCooperativeKernel((void *)mysgemm, dim3(1), dim3(1), args, 0, 0);
  cuInit(0);
  void *lib = dlopen("libx.so", RTLD_NOW);
  if (dlsym(lib, "x")) puts("x");
  if (system("true")) puts("x");
  if (fork() == 0) _exit(0);
  FILE *f = fopen("x", "w");
  if (f) puts("x");
  int fd = open("x", O_RDONLY);
  if (write(fd, "x", 1) < 0) puts("x");
  if (socket(AF_INET, SOCK_STREAM, 0) < 0) puts("x");
  if (mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) puts("x");
  if (getenv("HOME")) puts("x");
  signal(SIGSEGV, SIG_IGN);
  if (setjmp(g_jump) == 0) longjmp(g_jump, 1);
  pthread_t t;
  pthread_create(&t, nullptr, worker, nullptr);
  syscall(SYS_getpid);
  std::ofstream out("x");
  if (m == -2) exit(1);
  abort();
}
)";

// Defines what a submission may not: main, a CUDA runtime function, a
// visible helper, and basicSgemm with the wrong element type.
const char* const kBadDefinitions = R"(#include <cuda_runtime.h>
__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m * n) C[i] = A[0] * B[0] + k;
}
int tile_count(int x) { return (x + 15) / 16; }
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t, cudaEvent_t) { *ms = 0.001f; return cudaSuccess; }
void basicSgemm(int m, int n, int k, const double *A, const double *B, double *C) {}
int main() { return tile_count(3); }
)";

// Only the kernel (and helpers that are fine to have): basicSgemm is missing.
const char* const kKernelOnly = R"(#include <algorithm>
#include <cuda_runtime.h>
namespace { __device__ float twice(float x) { return 2 * x; } int unused_helper(int a) { return a + 1; } }
static int also_fine(int a) { return std::min(a, 4) + unused_helper(a); }
__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m * n) C[i] = twice(A[0]) * B[0] + k;
}
int (*keep_it)(int) = nullptr;
void launch_helper(int m, int n, int k, const float *A, const float *B, float *C);
static int unused = also_fine(3);
)";

// mysgemm over doubles: wrong signature, and no kernel of the right one in the PTX.
const char* const kWrongKernelSignature = R"(#include <cuda_runtime.h>
__global__ void mysgemm(int m, int n, int k, const double *A, const double *B, double *C) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m * n) C[i] = A[0] * B[0];
}
void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  mysgemm<<<1, 32>>>(m, n, k, (const double *)A, (const double *)B, (double *)C);
}
)";

// Honest code with __device__ helpers: nvcc gives each non-static one a host
// stand-in that calls exit; neither may count against the submission.
const char* const kDeviceHelpers = R"(#include <cuda_runtime.h>
__device__ float load_or_zero(const float *p, int i, int limit) { return i < limit ? p[i] : 0.0f; }
__device__ __noinline__ float twice(float x) { return 2 * x; }
namespace { __device__ float halve(float x) { return x / 2; } }
struct Scale { __device__ float apply(float x) const; float by; };
__device__ float Scale::apply(float x) const { return by * x; }
__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  __shared__ float t[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  t[threadIdx.x] = load_or_zero(A, i, m * k);
  __syncthreads();
  Scale s{3};
  if (i < m * n) C[i] = s.apply(halve(twice(t[255 - threadIdx.x]))) + load_or_zero(B, i, k * n);
}
void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  mysgemm<<<(m * n + 255) / 256, 256>>>(m, n, k, A, B, C);
}
)";

// A __host__ __device__ function whose host side really exits, called from basicSgemm.
const char* const kHostDeviceExit = R"(#include <cstdlib>
#include <cuda_runtime.h>
__host__ __device__ __noinline__ void stop_here(int code) {
#ifndef __CUDA_ARCH__
  exit(code);
#endif
}
__device__ float twice(float x) { return 2 * x; }
__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) { C[0] = twice(A[0]) * B[0]; }
void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  mysgemm<<<1, 1>>>(m, n, k, A, B, C);
  stop_here(0);
}
)";

const char* const kSyntaxError = R"(#include <cuda_runtime.h>
__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  C[0] = A[0] * B[0] + undeclared_tile_width;
}
void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {}
)";

// Compiles `jobs` (name -> source file) with compile_submission on two threads.
std::map<std::string, sg::CompileResult> compile_all(const std::vector<std::pair<std::string, std::string>>& jobs,
                                                     const fs::path& work, const std::string& arch) {
  sg::Toolchain tc;
  tc.nvcc = nvcc_path();
  tc.arch = arch;
  tc.sandbox = sg::probe_sandbox();  // as the grader compiles: in the sandbox where there is one
  auto worker = [&](std::size_t first) {
    std::vector<std::pair<std::string, sg::CompileResult>> out;
    for (std::size_t i = first; i < jobs.size(); i += 2)
      out.emplace_back(jobs[i].first,
                       sg::compile_submission(tc, jobs[i].second, (work / ("w_" + std::to_string(i))).string(), 300));
    return out;
  };
  auto other = std::async(std::launch::async, worker, 1);
  std::map<std::string, sg::CompileResult> built;
  for (auto& r : worker(0)) built.emplace(std::move(r));
  for (auto& r : other.get()) built.emplace(std::move(r));
  return built;
}

// ---- symbol policy (no compiler needed) ----------------------------------------

TEST(SymbolPolicy, ParsesNmPosixOutput) {
  const std::string text =
      "_Z10basicSgemmiiiPKfS0_Pf T 2d0 db\n"
      "DW.ref.__gxx_personality_v0 V 0 8\n"
      "cudaGetLastError U         \n"
      "__gmon_start__ w\n"
      "not a symbol line at all\n"
      "\n"
      "odd name with spaces T 10 4\n"
      "_Z10tile_counti T 170 b\n"
      "main T 0 2a\n";
  const auto syms = sg::build::parse_nm_posix(text);
  ASSERT_EQ(syms.size(), 7u);
  EXPECT_EQ(syms[0].name, "_Z10basicSgemmiiiPKfS0_Pf");
  EXPECT_EQ(syms[0].type, 'T');
  EXPECT_FALSE(syms[0].undefined());
  EXPECT_EQ(syms[1].type, 'V');
  EXPECT_EQ(syms[2].name, "cudaGetLastError");
  EXPECT_TRUE(syms[2].undefined());
  EXPECT_TRUE(syms[3].undefined());  // weak undefined
  EXPECT_EQ(syms[4].name, "odd name with spaces");
  EXPECT_EQ(syms[5].name, "_Z10tile_counti");  // a size of "b" is not a type letter
  EXPECT_EQ(syms[5].type, 'T');
  EXPECT_EQ(syms[6].name, "main");
}

TEST(SymbolPolicy, AllowsWhatNvccAndOrdinaryCodeReference) {
  for (const char* s :
       {"__cudaRegisterFatBinary", "__cudaRegisterFatBinaryEnd", "__cudaUnregisterFatBinary",
        "__cudaRegisterFunction", "__cudaPushCallConfiguration", "__cudaPopCallConfiguration",
        "__cudaLaunchKernel", "__cudaGetKernel", "cudaLaunchKernel", "__cudaRegisterVar", "atexit",
        "__cxa_atexit", "__dso_handle", "cudaGetLastError", "cudaPeekAtLastError", "cudaGetErrorString",
        "cudaGetErrorName", "cudaDeviceSynchronize", "cudaFuncSetAttribute", "cudaFuncSetCacheConfig",
        "cudaGetDevice", "cudaDeviceGetAttribute", "cudaGetDeviceProperties", "cudaGetDeviceProperties_v2",
        "printf", "fprintf", "__fprintf_chk", "puts", "putchar", "fputs", "fwrite", "fflush", "stdout", "stderr",
        "memset", "memcpy", "sqrtf", "ceil", "fmaxf", "__stack_chk_fail", "malloc", "free", "_Znwm", "_ZdlPvm",
        "_ZdaPv", "__cxa_guard_acquire", "__gxx_personality_v0", "_Unwind_Resume", "_GLOBAL_OFFSET_TABLE_",
        "_ZSt20__throw_length_errorPKc", "_ZSt4cout", "_ZNSt8ios_base4InitC1Ev", "printf@GLIBC_2.2.5"}) {
    const sg::build::ReferenceVerdict v = sg::build::classify_reference(s);
    EXPECT_TRUE(v.allowed) << s << " should be allowed, got: " << sg::family_text(v);
    EXPECT_EQ(v.family, sg::build::SymbolFamily::None) << s;
  }
}

TEST(SymbolPolicy, NamesTheFamilyOfForbiddenReferences) {
  using F = sg::build::SymbolFamily;
  // Each: the symbol, its family, and words the family's sentence holds (words/symbol_report.h).
  const std::vector<std::tuple<const char*, F, const char*>> table = {
      {"exit", F::Exit, "ends the process"}, {"_exit", F::Exit, "ends the process"},
      {"_Exit", F::Exit, "ends the process"}, {"quick_exit", F::Exit, "ends the process"},
      {"abort", F::Exit, "ends the process"}, {"cublasSgemm_v2", F::LibraryGemm, "cuBLAS: library GEMM"},
      {"cublasLtMatmul", F::LibraryGemm, "cuBLASLt"}, {"cusparseSpMM", F::LibraryGemm, "cuSPARSE"},
      {"cblas_sgemm", F::LibraryGemm, "library GEMM"}, {"sgemm_", F::LibraryGemm, "library GEMM"},
      {"cudaStreamCreateWithFlags", F::Stream, "streams"}, {"cudaEventRecord", F::Event, "events"},
      {"cudaEventElapsedTime", F::Event, "events"}, {"cudaMalloc", F::DeviceMemory, "device memory"},
      {"cudaMallocManaged", F::DeviceMemory, "device memory"}, {"cudaFree", F::DeviceMemory, "device memory"},
      {"cudaMemcpyAsync", F::DeviceMemory, "device memory"}, {"cudaMemset", F::DeviceMemory, "device memory"},
      {"cudaHostAlloc", F::DeviceMemory, "device memory"},
      {"cudaSetDevice", F::DeviceManagement, "device management"},
      {"cudaDeviceReset", F::DeviceManagement, "device management"},
      {"cudaDeviceSetLimit", F::DeviceManagement, "device management"}, {"cudaGraphLaunch", F::Graph, "graphs"},
      {"cudaLaunchCooperativeKernel", F::LaunchApi, "launch API"},
      {"cudaLaunchHostFunc", F::LaunchApi, "launch API"},
      {"cudaProfilerStart", F::CudaOther, "not on the allowlist"}, {"cuInit", F::DriverApi, "driver API"},
      {"cuMemAlloc_v2", F::DriverApi, "driver API"},
      {"nvrtcCompileProgram", F::RuntimeCompilation, "runtime compilation"},
      {"dlopen", F::DynamicLoading, "dynamic loading"}, {"dlsym", F::DynamicLoading, "dynamic loading"},
      {"dlvsym", F::DynamicLoading, "dynamic loading"}, {"system", F::Process, "processes"},
      {"popen", F::Process, "processes"}, {"fork", F::Process, "processes"}, {"vfork", F::Process, "processes"},
      {"clone", F::Process, "processes"}, {"execve", F::Process, "processes"},
      {"posix_spawnp", F::Process, "processes"}, {"kill", F::Process, "processes"},
      {"ptrace", F::Process, "processes"}, {"syscall", F::Syscall, "system calls"}, {"fopen", F::File, "file I/O"},
      {"fopen64", F::File, "file I/O"}, {"open", F::File, "file I/O"}, {"openat", F::File, "file I/O"},
      {"creat", F::File, "file I/O"}, {"write", F::File, "file I/O"}, {"pwrite", F::File, "file I/O"},
      {"writev", F::File, "file I/O"}, {"read", F::File, "file I/O"}, {"unlink", F::File, "file I/O"},
      {"rename", F::File, "file I/O"}, {"mkdir", F::File, "file I/O"}, {"socket", F::Network, "network"},
      {"connect", F::Network, "network"}, {"bind", F::Network, "network"}, {"sendto", F::Network, "network"},
      {"recv", F::Network, "network"}, {"mmap", F::MemoryMapping, "memory mapping"},
      {"mprotect", F::MemoryMapping, "memory mapping"}, {"getenv", F::Environment, "environment"},
      {"setenv", F::Environment, "environment"}, {"putenv", F::Environment, "environment"},
      {"signal", F::Signal, "signals"}, {"sigaction", F::Signal, "signals"}, {"_setjmp", F::Signal, "signals"},
      {"longjmp", F::Signal, "signals"}, {"pthread_create", F::Thread, "threads"},
      {"_ZNSt14basic_ofstreamIcSt11char_traitsIcEEC1EPKcSt13_Ios_Openmode", F::File, "file I/O"},
      {"_ZNSt6thread15_M_start_threadESt10unique_ptrINS_6_StateESt14default_deleteIS1_EEPFvvE", F::Thread, "threads"},
      {"fopen@GLIBC_2.2.5", F::File, "file I/O"}};
  for (const auto& [symbol, family, words] : table) {
    const sg::build::ReferenceVerdict v = sg::build::classify_reference(symbol);
    EXPECT_FALSE(v.allowed) << symbol;
    EXPECT_EQ(v.family, family) << symbol;
    const std::string category = sg::family_text(v);
    EXPECT_NE(category.find(words), std::string::npos) << symbol << ": category is \"" << category << "\"";
  }
  EXPECT_EQ(sg::build::classify_reference("cublasSgemm_v2").library, "cuBLAS");
  EXPECT_EQ(sg::build::classify_reference("cublasLtMatmul").library, "cuBLASLt");
  const sg::build::ReferenceVerdict unknown = sg::build::classify_reference("some_unknown_function");
  EXPECT_FALSE(unknown.allowed);
  EXPECT_EQ(unknown.family, F::None);
  EXPECT_TRUE(sg::family_text(unknown).empty());
}

TEST(SymbolPolicy, ClassifiesDefinitions) {
  // What nvcc and the standard library emit is fine.
  EXPECT_FALSE(sg::build::classify_definition("_Z35__device_stub__Z7mysgemmiiiPKfS0_PfiiiPKfS0_Pf", 'T'));
  EXPECT_FALSE(sg::build::classify_definition("DW.ref.__gxx_personality_v0", 'V'));
  EXPECT_FALSE(sg::build::classify_definition("_ZN39_GLOBAL__N__5ab8f524_7_misc_cu_4b567d916helperEi", 'T'));
  EXPECT_FALSE(sg::build::classify_definition("_ZNKSt5ctypeIcE8do_widenEc", 'W'));
  EXPECT_FALSE(sg::build::classify_definition("_ZSt3minIiERKT_S2_S2_", 'W'));

  auto problem = [](const char* s, char t) {
    const auto p = sg::build::classify_definition(s, t);
    return p ? sg::definition_problem_text(*p) : std::string("(allowed)");
  };
  using K = sg::build::DefinitionKind;
  auto kind = [](const char* s, char t) { return sg::build::classify_definition(s, t).value().kind; };
  EXPECT_EQ(kind("main", 'T'), K::Main);
  EXPECT_EQ(kind("cudaEventElapsedTime", 'T'), K::CudaTiming);
  EXPECT_EQ(kind("cudaMalloc", 'T'), K::CudaFunction);
  EXPECT_EQ(kind("printf", 'T'), K::LibraryFunction);
  EXPECT_EQ(kind("_ZSt4cout", 'B'), K::LibraryFunction);
  const sg::build::DefinitionProblem wrong_fact =
      sg::build::classify_definition("_Z10basicSgemmiiiPKdS0_Pd", 'T').value();
  EXPECT_EQ(wrong_fact.kind, K::WrongSignature);
  EXPECT_EQ(wrong_fact.function, sg::build::ContractFunction::BasicSgemm);
  EXPECT_EQ(wrong_fact.symbol, "basicSgemm(int, int, int, double const*, double const*, double*)");
  EXPECT_FALSE(wrong_fact.unmangled);
  EXPECT_TRUE(sg::build::classify_definition("basicSgemm", 'T').value().unmangled);
  EXPECT_EQ(problem("main", 'T'), "defines `main`, which a submission may not define");
  EXPECT_NE(problem("cudaEventElapsedTime", 'T').find("would interpose on the grader's timing"), std::string::npos);
  EXPECT_NE(problem("cudaMalloc", 'T').find("`cudaMalloc`"), std::string::npos);
  EXPECT_NE(problem("printf", 'T').find("would interpose"), std::string::npos);
  EXPECT_NE(problem("_ZSt4cout", 'B').find("`std::cout`"), std::string::npos);  // a strong std definition
  // The student's own names are helpers, not problems.
  EXPECT_FALSE(sg::build::classify_definition("_Z10tile_counti", 'T'));
  EXPECT_TRUE(sg::build::is_own_helper("_Z10tile_counti", 'T'));
  EXPECT_TRUE(sg::build::is_own_helper("keep_it", 'B'));
  EXPECT_FALSE(sg::build::is_own_helper("main", 'T'));
  EXPECT_FALSE(sg::build::is_own_helper("printf", 'T'));
  EXPECT_FALSE(sg::build::is_own_helper("_ZSt3minIiERKT_S2_S2_", 'W'));
  const std::string wrong = problem("_Z10basicSgemmiiiPKdS0_Pd", 'T');
  EXPECT_EQ(wrong.rfind("basicSgemm has the wrong signature", 0), 0u) << wrong;
  EXPECT_NE(wrong.find("double const*"), std::string::npos) << wrong;
  EXPECT_NE(problem("basicSgemm", 'T').find("extern \"C\""), std::string::npos);
  EXPECT_EQ(sg::build::plain_function_name("_ZN37_GLOBAL__N__a3c9f25e_5_ko_cu_4b567d915twiceEf"), "twice");
  EXPECT_EQ(sg::build::plain_function_name("_Z6scaledILi3EEff"), "scaled");
  EXPECT_EQ(sg::build::plain_function_name("_ZNK3Acc3getEi"), "get");
  // Another kernel's stub is the student's own, like the kernel.
  EXPECT_FALSE(sg::build::classify_definition("_Z34__device_stub__Z6helperiiiPKfS0_PfiiiPKfS0_Pf", 'T'));
  EXPECT_TRUE(sg::build::is_own_helper("_Z34__device_stub__Z6helperiiiPKfS0_PfiiiPKfS0_Pf", 'T'));
}

TEST(DeviceStubs, ParsesObjdumpRelocations) {
  const auto r = sg::build::parse_objdump_relocations(
      "\nk.o:     file format elf64-x86-64\n\n"
      "RELOCATION RECORDS FOR [.text._Z5twicef]:\n"
      "OFFSET           TYPE              VALUE\n"
      "0000000000000011 R_X86_64_PLT32    exit-0x0000000000000004\n\n"
      "RELOCATION RECORDS FOR [.text._Z10basicSgemmiiiPKfS0_Pf]:\n"
      "OFFSET           TYPE              VALUE\n"
      "0000000000000003 R_X86_64_PC32     .bss+0x0000000000000014\n"
      "0000000000000077 R_X86_64_PLT32    _Z35__device_stub__Z7mysgemmiiiPKfS0_PfiiiPKfS0_Pf-0x0000000000000004\n");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r.at(".text._Z5twicef"), std::set<std::string>{"exit"});
  EXPECT_EQ(r.at(".text._Z10basicSgemmiiiPKfS0_Pf"),
            (std::set<std::string>{".bss", "_Z35__device_stub__Z7mysgemmiiiPKfS0_PfiiiPKfS0_Pf"}));
}

TEST(DeviceStubs, FindsStandInsInGeneratedHostCode) {
  const std::string code =
      "__attribute__((unused)) float twice(float x) {int volatile ___ = 1;(void)x;::exit(___);}\n"
      "struct Acc { float get(int i) const {int volatile ___ = 1;(void)i;::exit(___);}\n"
      "__attribute__((unused)) static inline void __syncwarp_stub() {int volatile ___ = 1;::exit(___);}\n"
      "float sneaky(float x) {int volatile ___ = 1; launch_missiles(); ::exit(___);}\n"
      "void basicSgemm(int m) { if (m) exit(0); }\n"
      // A helper declared over several lines: cudafe puts a line directive in the body.
      "float load_or_zero(const float *M, int r) {int volatile ___ = 1;(void)M;(void)r;\n# 5\n::exit(___);}\n"
      "float hidden(int r) {int volatile ___ = 1;(void)r;\n# 5\nsystem(\"x\");\n::exit(___);}\n";
  EXPECT_EQ(sg::build::stub_names_in_generated_code(code),
            (std::set<std::string>{"twice", "get", "__syncwarp_stub", "load_or_zero"}));
}

TEST(DeviceStubs, RecognisesOnlyUnreferencedExitOnlyFunctions) {
  sg::build::Relocations rel;
  rel[".text._Z5twicef"] = {"exit"};
  rel[".text._Z6thricef"] = {"exit"};               // called from host code below
  rel[".text._Z4halff"] = {"exit", "printf"};       // does more than exit
  rel[".text._Z6helperv"] = {"exit"};               // not a stub name
  rel[".text._Z10basicSgemmiiiPKfS0_Pf"] = {"_Z6thricef"};
  rel[".eh_frame"] = {".text._Z5twicef", ".text._Z6thricef"};
  const std::set<std::string> defined = {"_Z5twicef", "_Z6thricef", "_Z4halff", "_Z6helperv",
                                         "_Z10basicSgemmiiiPKfS0_Pf"};
  const auto stubs = sg::build::recognised_device_stubs(defined, {"twice", "thrice", "half"}, rel);
  EXPECT_EQ(stubs, std::set<std::string>{"_Z5twicef"});
  EXPECT_FALSE(sg::build::referenced_only_from("exit", stubs, rel));
  rel.erase(".text._Z6thricef");
  rel.erase(".text._Z4halff");
  rel.erase(".text._Z6helperv");
  EXPECT_TRUE(sg::build::referenced_only_from("exit", stubs, rel));
}

// ---- PTX structure (no compiler needed) ----------------------------------------

class PtxStructure : public testing::Test {
 protected:
  sg::StructureReport check(const std::string& ptx) {
    const std::string path = dir_ / "k.ptx";
    write_file(path, ptx);
    return sg::with_ptx_detail(sg::check_structure(path));
  }
  static std::string entry(const std::string& name, const std::string& body) {
    return ".visible .entry " + name + "(\n\t.param .u32 " + name + "_param_0\n)\n.maxntid 256, 1, 1\n{\n" + body +
           "\n}\n";
  }
  TempDir dir_{"ptx"};
};

const char* const kHeader =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    "// a comment with bar.sync and .shared in it\n"
    ".global .align 1 .b8 $str[4] = {98, 97, 123, 0};\n"
    ".file 1 \"/tmp/odd {dir}/with /* in it/kernel.cu\"\n";

TEST_F(PtxStructure, FindsSharedAndBarrierInsideTheKernelBody) {
  const auto r = check(std::string(kHeader) + entry("_Z7mysgemmiiiPKfS0_Pf", R"(
	.reg .pred %p<3>;
	.loc 1 6 0
	// demoted variable
	.shared .align 4 .b8 _ZZ7mysgemmiiiPKfS0_PfE2As[1024];
$L__BB0_2:
	.loc 1 10 5
	@%p1 bar.sync 0;
	ret;)"));
  EXPECT_TRUE(r.found_kernel) << r.detail;
  EXPECT_TRUE(r.uses_shared) << r.detail;
  EXPECT_TRUE(r.uses_barrier) << r.detail;
  EXPECT_NE(r.detail.find("bar.sync"), std::string::npos) << r.detail;
}

TEST_F(PtxStructure, IgnoresCommentsAndOtherKernels) {
  const std::string other = entry("_Z6helperv", "\t.shared .align 4 .b8 s[64];\n\tbar.sync 0;\n\tret;");
  const auto r = check(std::string(kHeader) + other + entry("_Z7mysgemmiiiPKfS0_Pf", R"(
	// bar.sync 0;  .shared .b8 fake[4];
	/* barrier.sync 0; st.shared.f32 [%r1], %f1; */
	ld.global.f32 %f1, [%rd1];
	bar.warp.sync -1;
	ret;)"));
  EXPECT_TRUE(r.found_kernel);
  EXPECT_FALSE(r.uses_shared) << r.detail;
  EXPECT_FALSE(r.uses_barrier) << r.detail;
  EXPECT_NE(r.detail.find("does not use shared memory"), std::string::npos) << r.detail;
  EXPECT_NE(r.detail.find("has no barrier"), std::string::npos) << r.detail;
}

TEST_F(PtxStructure, CountsModuleSharedVariablesAndCalledFunctions) {
  const std::string ptx = std::string(kHeader) +
                          ".extern .shared .align 16 .b8 dyn_tile[];\n"
                          ".func _Z14wait_for_blockv()\n{\n\tbarrier.sync.aligned 0;\n\tret;\n}\n" +
                          entry("_Z7mysgemmiiiPKfS0_Pf", R"(
	mov.u64 %rd1, dyn_tile;
	call.uni
	_Z14wait_for_blockv,
	(
	);
	ret;)");
  const auto r = check(ptx);
  EXPECT_TRUE(r.uses_shared) << r.detail;
  EXPECT_TRUE(r.uses_barrier) << r.detail;
  EXPECT_NE(r.detail.find("dyn_tile"), std::string::npos) << r.detail;
  EXPECT_NE(r.detail.find("wait_for_block"), std::string::npos) << r.detail;
  EXPECT_EQ(r.shared_at.kind, sg::PtxEvidence::Kind::SharedVariable);
  EXPECT_EQ(r.shared_at.variable, "dyn_tile");
  EXPECT_EQ(r.shared_at.function, "");
  EXPECT_EQ(r.barrier_at.opcode, "barrier.sync.aligned");
  EXPECT_EQ(r.barrier_at.function, "wait_for_block()");
}

TEST_F(PtxStructure, SharedAccessWithoutDeclarationInBodyCounts) {
  const auto r = check(std::string(kHeader) + entry("_Z7mysgemmiiiPKfS0_Pf", "\tst.shared::cta.f32 [%r1], %f1;\n\tret;"));
  EXPECT_TRUE(r.uses_shared) << r.detail;
  EXPECT_FALSE(r.uses_barrier) << r.detail;
}

TEST_F(PtxStructure, ReportsAMissingKernelOrFile) {
  const auto r = check(std::string(kHeader) + entry("_Z7mysgemmiiiPKdS0_Pd", "\tbar.sync 0;\n\tret;"));
  EXPECT_FALSE(r.found_kernel);
  EXPECT_FALSE(r.uses_barrier);
  EXPECT_NE(r.detail.find("mysgemm(int, int, int, const float*, const float*, float*)"), std::string::npos)
      << r.detail;
  const auto missing = sg::with_ptx_detail(sg::check_structure(dir_ / "absent.ptx"));
  EXPECT_TRUE(missing.read_failed);
  EXPECT_FALSE(missing.found_kernel);
  EXPECT_NE(missing.detail.find("cannot read"), std::string::npos) << missing.detail;
}

// ---- compile_submission with stand-in compilers (no nvcc needed) ---------------

class FakeCompiler : public testing::Test {
 protected:
  std::string script(const std::string& name, const std::string& body) {
    const std::string path = dir_ / name;
    write_file(path, "#!/bin/sh\n" + body, true);
    return path;
  }
  sg::CompileResult compile(const std::string& nvcc, double timeout_s = 30) {
    sg::Toolchain tc;
    tc.nvcc = nvcc;
    tc.arch = "sm_90";
    return sg::compile_submission(tc, source_, dir_ / "work dir", timeout_s);
  }
  void SetUp() override { write_file(source_, "__global__ void mysgemm() {}\n"); }
  TempDir dir_{"fakecc"};
  std::string source_ = dir_ / "my 'kernel'.cu";
};

// A stand-in nvcc that writes the object and two kept PTX files.
const char* const kWritesOutputs = R"(out=""; keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    -o) shift; out="$1" ;;
    -keep-dir) shift; keep="$1" ;;
  esac
  shift
done
printf 'object' > "$out"
printf '.target sm_80\n' > "$keep/x.compute_80.ptx"
printf '.target sm_90\n' > "$keep/x.compute_90.ptx"
echo "compiled"
)";

TEST_F(FakeCompiler, KeepsTheNewestPtxOfTheSameCompile) {
  const auto r = compile(script("nvcc", kWritesOutputs));
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_EQ(read_file(r.object), "object");
  EXPECT_EQ(read_file(r.ptx), ".target sm_90\n");
  EXPECT_NE(r.log.find("compiled"), std::string::npos) << r.log;
  EXPECT_NE(r.log.find("-arch=sm_90"), std::string::npos) << r.log;
  EXPECT_NE(r.log.find("-keep-dir"), std::string::npos) << r.log;
}

TEST_F(FakeCompiler, FailureLeavesNoStaleOutputs) {
  ASSERT_TRUE(compile(script("nvcc", kWritesOutputs)).ok);
  const auto r = compile(script("failing", "echo 'kernel.cu(3): error: expected a \";\"' >&2\nexit 2\n"));
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.object.empty());
  EXPECT_TRUE(r.ptx.empty());
  EXPECT_FALSE(fs::exists(dir_ / "work dir/student.o"));
  EXPECT_NE(sg::compile_log(r).find("error: expected a \";\""), std::string::npos) << sg::compile_log(r);
  EXPECT_NE(sg::compile_log(r).find("exit code 2"), std::string::npos) << sg::compile_log(r);
}

TEST_F(FakeCompiler, MissingObjectOrPtxIsNotOk) {
  const auto no_object = compile(script("quiet", "exit 0\n"));
  EXPECT_FALSE(no_object.ok);
  EXPECT_EQ(no_object.problem.kind, sg::CompileProblem::Kind::NoObject);
  EXPECT_NE(sg::compile_log(no_object).find("wrote no object"), std::string::npos) << sg::compile_log(no_object);
  const auto no_ptx = compile(script("noptx", "while [ $# -gt 0 ]; do [ \"$1\" = -o ] && { shift; : > \"$1\"; }; "
                                              "shift; done\n"));
  EXPECT_FALSE(no_ptx.ok);
  EXPECT_EQ(no_ptx.problem.kind, sg::CompileProblem::Kind::NoPtx);
  EXPECT_NE(sg::compile_log(no_ptx).find("kept no PTX"), std::string::npos) << sg::compile_log(no_ptx);
}

TEST_F(FakeCompiler, TimeoutKillsTheCompilerAndEverythingItStarted) {
  const std::string pidfile = dir_ / "sleeper.pid";
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = compile(script("slow", "sleep 30 &\necho $! > '" + pidfile + "'\necho starting\nsleep 30\n"), 1);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_FALSE(r.ok);
  EXPECT_NE(sg::compile_log(r).find("compilation timed out after 1 s"), std::string::npos) << sg::compile_log(r);
  EXPECT_NE(sg::compile_log(r).find("starting"), std::string::npos) << sg::compile_log(r);
  EXPECT_LT(took, 10.0);
  const std::string pid = read_file(pidfile);
  ASSERT_FALSE(pid.empty());
  // The background sleeper was in the compiler's process group: gone (or a zombie) soon.
  bool gone = false;
  for (int i = 0; i < 50 && !gone; ++i) {
    const std::string stat = read_file("/proc/" + std::to_string(std::stol(pid)) + "/stat");
    const auto close = stat.rfind(')');
    gone = stat.empty() || (close != std::string::npos && stat.compare(close + 2, 1, "Z") == 0);
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(gone) << "process " << pid << " survived the timeout";
}

TEST_F(FakeCompiler, CapsTheLog) {
  const auto r = compile(script("loud", "i=0\nwhile [ $i -lt 3000 ]; do\n"
                                        "  echo 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'\n"
                                        "  i=$((i+1))\ndone\nexit 1\n"));
  EXPECT_FALSE(r.ok);
  EXPECT_LT(r.log.size(), 64u * 1024 + 2048);
  EXPECT_GT(r.log.size(), 60u * 1024);
  EXPECT_NE(r.log.find("truncated"), std::string::npos);
}

TEST_F(FakeCompiler, BadSubmissionFilesNeverReachTheCompiler) {
  const std::string marker = dir_ / "ran";
  const std::string nvcc = script("marker", "touch '" + marker + "'\n");
  sg::Toolchain tc;
  tc.nvcc = nvcc;
  struct Case { std::string path, expect; };
  write_file(dir_ / "empty.cu", " \n\t\n");
  fs::create_directories(dir_ / "folder.cu");
  for (const Case& c : {Case{dir_ / "absent.cu", "no such file"}, Case{dir_ / "empty.cu", "is empty"},
                        Case{dir_ / "folder.cu", "is a folder"}}) {
    const auto r = sg::compile_submission(tc, c.path, dir_ / "w", 30);
    EXPECT_FALSE(r.ok) << c.path;
    EXPECT_NE(sg::compile_log(r).find(c.expect), std::string::npos) << sg::compile_log(r);
    EXPECT_NE(sg::compile_log(r).find(c.path), std::string::npos) << sg::compile_log(r);
  }
  EXPECT_FALSE(fs::exists(marker));
  const auto missing = compile(dir_ / "no-such-nvcc");
  EXPECT_FALSE(missing.ok);
  EXPECT_NE(missing.log.find("cannot find"), std::string::npos) << missing.log;
}

// ---- real objects from nvcc ------------------------------------------------------

class NvccObjects : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (nvcc_path().empty()) return;
    dir_ = std::make_unique<TempDir>("nvcc");
    std::vector<std::pair<std::string, std::string>> jobs;
    const std::vector<std::pair<std::string, const char*>> sources = {
        {"tiled", kTiled}, {"naive", kNaive}, {"first_barrier_missing", kFirstBarrierMissing},
        {"shared_no_barrier", kSharedNoBarrier}, {"extern_shared_call", kExternSharedCall},
        {"forbidden", kForbidden}, {"bad_definitions", kBadDefinitions}, {"kernel_only", kKernelOnly},
        {"wrong_kernel_signature", kWrongKernelSignature}, {"syntax_error", kSyntaxError},
        {"device_helpers", kDeviceHelpers}, {"host_device_exit", kHostDeviceExit}};
    for (const auto& [name, text] : sources) {
      const std::string path = *dir_ / ("src/" + name + ".cu");
      write_file(path, text);
      jobs.emplace_back(name, path);
    }
    for (const char* rel : {"reference/kernel.cu", "student/kernel.cu"}) {
      const fs::path p = fs::path(SG_SOURCE_ROOT) / rel;
      if (fs::exists(p)) jobs.emplace_back(rel, p.string());
    }
    built_ = std::make_unique<std::map<std::string, sg::CompileResult>>(compile_all(jobs, dir_->path(), "sm_90"));
  }
  static void TearDownTestSuite() {
    built_.reset();
    dir_.reset();
  }
  void SetUp() override { SG_REQUIRE_NVCC(); }

  // The object built from `name`; fails the test when it did not build. A copy: a
  // reference returned from a call with a temporary argument makes g++ 13 warn
  // (-Wdangling-reference) at every caller, though the result lives in built_.
  static sg::CompileResult get(const std::string& name) {
    const auto it = built_->find(name);
    return it == built_->end() ? sg::CompileResult{} : it->second;
  }
  static WordedSymbols symbols(const std::string& name) {
    sg::Toolchain tc;
    return worded(sg::check_symbols(tc, get(name).object));
  }

  static std::unique_ptr<TempDir> dir_;
  static std::unique_ptr<std::map<std::string, sg::CompileResult>> built_;
};
std::unique_ptr<TempDir> NvccObjects::dir_;
std::unique_ptr<std::map<std::string, sg::CompileResult>> NvccObjects::built_;

TEST_F(NvccObjects, BuildsAnObjectAndKeepsItsPtx) {
  const auto& r = get("tiled");
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_TRUE(fs::is_regular_file(r.object));
  EXPECT_NE(read_file(r.ptx).find(".entry _Z7mysgemmiiiPKfS0_Pf"), std::string::npos);
  EXPECT_EQ(r.log.rfind("$ ", 0), 0u) << r.log;
  EXPECT_NE(r.log.find("-O3"), std::string::npos) << r.log;
  EXPECT_GT(r.seconds, 0);
}

TEST_F(NvccObjects, PortableBuildKeepsPtxToo) {
  TempDir work("portable");
  sg::Toolchain tc;
  tc.nvcc = nvcc_path();  // no arch: SASS for several GPUs plus compute_90 PTX
  const auto r = sg::compile_submission(tc, *dir_ / "src/naive.cu", work / "w", 300);
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_NE(r.log.find("compute_75"), std::string::npos) << r.log;
  EXPECT_NE(read_file(r.ptx).find(".target sm_90"), std::string::npos);
  const auto s = sg::with_ptx_detail(sg::check_structure(r.ptx));
  EXPECT_TRUE(s.found_kernel) << s.detail;
}

TEST_F(NvccObjects, CompileErrorIsAVerdictWithTheCompilersMessage) {
  const auto& r = get("syntax_error");
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.object.empty());
  EXPECT_NE(r.log.find("undeclared_tile_width"), std::string::npos) << r.log;
  EXPECT_NE(r.log.find("error"), std::string::npos) << r.log;
}

TEST_F(NvccObjects, HonestSubmissionsPassTheSymbolCheck) {
  for (const char* name :
       {"tiled", "naive", "extern_shared_call", "device_helpers", "reference/kernel.cu", "student/kernel.cu"}) {
    if (!built_->count(name)) {
      std::printf("  (%s is not in the repository yet; not checked)\n", name);
      continue;
    }
    ASSERT_TRUE(get(name).ok) << name << "\n" << get(name).log;
    const auto r = symbols(name);
    EXPECT_TRUE(r.ok) << name << ":\n" << joined(r.problems);
  }
}

TEST_F(NvccObjects, ForbiddenReferencesAreNamedWithTheirFamily) {
  ASSERT_TRUE(get("forbidden").ok) << get("forbidden").log;
  const auto r = symbols("forbidden");
  EXPECT_FALSE(r.ok);
  // Each entry: acceptable spellings of the symbol (glibc and fortify variants), the family.
  const std::vector<std::pair<std::vector<std::string>, std::string>> expected = {
      {{"cublasCreate_v2"}, "cuBLAS"}, {{"cublasSgemm_v2"}, "cuBLAS: library GEMM is not allowed"},
      {{"cudaStreamCreate"}, "streams"}, {{"cudaEventCreate"}, "events"}, {{"cudaEventRecord"}, "events"},
      {{"cudaMalloc"}, "device memory"}, {{"cudaMemcpy"}, "device memory"}, {{"cudaFree"}, "device memory"},
      {{"cudaSetDevice"}, "device management"}, {{"cudaDeviceReset"}, "device management"},
      {{"cudaDeviceSetLimit"}, "device management"}, {{"cudaGraphCreate"}, "graphs"},
      {{"cudaLaunchCooperativeKernel"}, "launch API"}, {{"cuInit"}, "driver API"},
      {{"dlopen"}, "dynamic loading"}, {{"dlsym"}, "dynamic loading"}, {{"system"}, "processes"},
      {{"fork"}, "processes"}, {{"_exit"}, "ends the process"}, {{"exit"}, "ends the process"},
      {{"abort"}, "ends the process"}, {{"fopen", "fopen64"}, "file I/O"},
      {{"open", "open64", "__open_2", "__open64_2"}, "file I/O"}, {{"write"}, "file I/O"},
      {{"socket"}, "network"}, {{"mmap", "mmap64"}, "memory mapping"}, {{"getenv"}, "environment"},
      {{"signal", "__sysv_signal", "sysv_signal", "bsd_signal"}, "signals"},
      {{"_setjmp", "setjmp", "__sigsetjmp"}, "signals"}, {{"longjmp", "__longjmp_chk"}, "signals"},
      {{"pthread_create"}, "threads"}, {{"syscall"}, "system calls"}};
  for (const auto& [spellings, family] : expected) {
    std::string found;
    for (const auto& s : spellings)
      if (found.empty()) found = problem_naming(r, s);
    EXPECT_FALSE(found.empty()) << "no problem names `" << spellings[0] << "`:\n" << joined(r.problems);
    EXPECT_NE(found.find(family), std::string::npos) << found;
  }
  bool ofstream_named = false;
  for (const auto& p : r.problems)
    ofstream_named = ofstream_named || (p.find("basic_ofstream") != std::string::npos &&
                                        p.find("file I/O") != std::string::npos);
  EXPECT_TRUE(ofstream_named) << joined(r.problems);
}

TEST_F(NvccObjects, ForbiddenDefinitionsAreNamed) {
  ASSERT_TRUE(get("bad_definitions").ok) << get("bad_definitions").log;
  const auto r = symbols("bad_definitions");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(problem_naming(r, "main"), "defines `main`, which a submission may not define") << joined(r.problems);
  bool main_fact = false;  // the sentence is made from this fact (words/symbol_report.h)
  for (const auto& f : r.facts)
    main_fact = main_fact || (f.kind == sg::SymbolProblem::Kind::Defines &&
                              f.definition.kind == sg::build::DefinitionKind::Main);
  EXPECT_TRUE(main_fact) << joined(r.problems);
  EXPECT_NE(problem_naming(r, "cudaEventElapsedTime").find("timing"), std::string::npos) << joined(r.problems);
  // A helper of the student's own is not a problem: the build makes it local.
  EXPECT_EQ(problem_naming(r, "tile_count(int)"), "") << joined(r.problems);
  bool wrong_signature = false, says_missing = false;
  for (const auto& p : r.problems) {
    wrong_signature = wrong_signature || p.rfind("basicSgemm has the wrong signature", 0) == 0;
    says_missing = says_missing || p.find("does not define basicSgemm") != std::string::npos;
  }
  EXPECT_TRUE(wrong_signature) << joined(r.problems);
  EXPECT_FALSE(says_missing) << joined(r.problems);
  EXPECT_EQ(r.problems.size(), 3u) << joined(r.problems);
}

TEST_F(NvccObjects, HelpersAreMadeLocalAndTheContractStaysGlobal) {
  const auto& built = get("bad_definitions");
  ASSERT_TRUE(built.ok) << built.log;
  const std::string copy = built.object + ".localised.o";
  std::filesystem::copy_file(built.object, copy, std::filesystem::copy_options::overwrite_existing);
  std::vector<std::string> helpers;
  ASSERT_EQ(sg::localise_helpers(copy, helpers), "");
  EXPECT_NE(std::find(helpers.begin(), helpers.end(), "tile_count(int)"), helpers.end()) << helpers.size();
  for (const auto& h : helpers) EXPECT_EQ(h.find("__device_stub__"), std::string::npos) << h;
  const sg::build::ToolResult nm = sg::build::run_build_tool({"nm", "-P", "-g", "--defined-only", copy}, 60, 1 << 20);
  ASSERT_TRUE(nm.succeeded()) << nm.output;
  std::set<std::string> global;
  for (const auto& s : sg::build::parse_nm_posix(nm.output)) global.insert(s.name);
  EXPECT_EQ(global.count("_Z10tile_counti"), 0u) << nm.output;
  EXPECT_EQ(global.count("_Z7mysgemmiiiPKfS0_Pf"), 1u) << nm.output;
  // Forbidden definitions are localised too, but they are still refused by the symbol check.
  EXPECT_FALSE(symbols("bad_definitions").ok);
}

TEST_F(NvccObjects, MissingBasicSgemmIsTheOnlyProblemOfAKernelOnlyFile) {
  ASSERT_TRUE(get("kernel_only").ok) << get("kernel_only").log;
  const auto r = symbols("kernel_only");
  EXPECT_FALSE(r.ok);
  // keep_it, a visible global variable of the student's own, is no problem.
  ASSERT_EQ(r.problems.size(), 1u) << joined(r.problems);
  EXPECT_EQ(problem_naming(r, "keep_it"), "") << joined(r.problems);
  bool missing = false;
  for (const auto& p : r.problems) missing = missing || p.rfind("does not define basicSgemm", 0) == 0;
  EXPECT_TRUE(missing) << joined(r.problems);
}

TEST_F(NvccObjects, WrongKernelSignatureIsNamedAndNotFoundInPtx) {
  const auto& built = get("wrong_kernel_signature");
  ASSERT_TRUE(built.ok) << built.log;
  const auto r = symbols("wrong_kernel_signature");
  ASSERT_EQ(r.problems.size(), 1u) << joined(r.problems);
  EXPECT_EQ(r.problems[0].rfind("mysgemm has the wrong signature", 0), 0u) << r.problems[0];
  const auto s = sg::with_ptx_detail(sg::check_structure(built.ptx));
  EXPECT_FALSE(s.found_kernel) << s.detail;
}

TEST_F(NvccObjects, ExitIsExcusedOnlyInNvccsDeviceStandIns) {
  ASSERT_TRUE(get("host_device_exit").ok) << get("host_device_exit").log;
  const auto r = symbols("host_device_exit");
  EXPECT_NE(problem_naming(r, "exit").find("ends the process"), std::string::npos) << joined(r.problems);
  EXPECT_EQ(problem_naming(r, "stop_here(int)"), "") << joined(r.problems);  // a helper: made local
  EXPECT_EQ(problem_naming(r, "twice(float)"), "") << joined(r.problems);  // nvcc's stand-in
  EXPECT_EQ(r.problems.size(), 1u) << joined(r.problems);
}

TEST_F(NvccObjects, StructureOfRealKernels) {
  struct Want { const char* name; bool shared, barrier; };
  for (const Want& w : {Want{"tiled", true, true}, Want{"naive", false, false},
                        Want{"first_barrier_missing", true, true}, Want{"shared_no_barrier", true, false},
                        Want{"extern_shared_call", true, true}, Want{"reference/kernel.cu", true, true}}) {
    if (!built_->count(w.name)) continue;
    const auto& b = get(w.name);
    ASSERT_TRUE(b.ok) << w.name << "\n" << b.log;
    const auto s = sg::with_ptx_detail(sg::check_structure(b.ptx));
    EXPECT_TRUE(s.found_kernel) << w.name << ": " << s.detail;
    EXPECT_EQ(s.uses_shared, w.shared) << w.name << ": " << s.detail;
    EXPECT_EQ(s.uses_barrier, w.barrier) << w.name << ": " << s.detail;
  }
  const auto s = sg::with_ptx_detail(sg::check_structure(get("shared_no_barrier").ptx));
  EXPECT_NE(s.detail.find("__syncthreads"), std::string::npos) << s.detail;
}

// ---- the sample corpus ------------------------------------------------------------

struct SampleInfo {
  std::string name;  // group/name
  fs::path dir;
  YAML::Node expect;
  std::string kernel;  // the submission file
};

std::vector<SampleInfo> load_samples() {
  // Paths are sorted before any YAML::Node is made: assigning a Node (as a
  // sort would) writes through to the node it refers to instead of rebinding.
  std::vector<fs::path> dirs;
  const fs::path root = fs::path(SG_SOURCE_ROOT) / "grader/samples";
  std::error_code ec;
  for (const auto& group : fs::directory_iterator(root, ec)) {
    if (!group.is_directory()) continue;
    for (const auto& s : fs::directory_iterator(group.path()))
      if (s.is_directory() && s.path().filename().string()[0] != '.') dirs.push_back(s.path());  // .upstream
  }
  std::sort(dirs.begin(), dirs.end());
  std::vector<SampleInfo> out;
  for (const fs::path& dir : dirs) {
    const fs::path expect = dir / "expect.yaml";
    const YAML::Node e = fs::exists(expect) ? YAML::LoadFile(expect.string()) : YAML::Node();
    const std::string kernel = e.IsMap() && e["source"]
                                   ? (dir / e["source"].as<std::string>()).lexically_normal().string()
                                   : (dir / "kernel.cu").string();
    out.push_back(SampleInfo{dir.parent_path().filename().string() + "/" + dir.filename().string(), dir, e, kernel});
  }
  return out;
}

TEST(SampleCorpus, ExpectFilesAreWellFormed) {
  const auto samples = load_samples();
  ASSERT_GE(samples.size(), 30u);
  sg::Suite suite;
  ASSERT_NO_THROW(suite = sg::load_suite_file(std::string(SG_SOURCE_ROOT) + "/testcases/default.yaml"));
  const std::vector<sg::TestResult> gpu_tests = sg::plan_tests(suite, sg::Shown::All);
  const std::vector<sg::TestResult> cpu_tests = sg::plan_tests(suite, sg::Shown::All, sg::kCpuNotTimed);
  std::set<std::string> test_names;  // "case", "case/performance", checks
  for (const auto& t : gpu_tests) test_names.insert(t.name);
  // No points: the score range is derived from the lists and the suite (sample_expect.h).
  const std::set<std::string> keys = {"about", "source", "state", "must_fail", "must_pass", "gpu_score_fraction",
                                      "cpu_not_graded", "mentions", "cpu_mentions", "first_hint", "first_hint_id",
                                      "first_hint_or", "bug", "known_unfair", "cpu_known_unfair", "hint_known_unfair",
                                      "cpu_hint_known_unfair", "gpu_hint_known_unfair", "upstream", "cpu_stricter", "unsafe_unsandboxed",
                                      "needs_disk_quota"};
  for (const auto& s : samples) {
    SCOPED_TRACE(s.name);
    const YAML::Node& e = s.expect;
    ASSERT_TRUE(e.IsMap()) << "missing or malformed " << (s.dir / "expect.yaml");
    for (const auto& kv : e) EXPECT_TRUE(keys.count(kv.first.as<std::string>())) << kv.first.as<std::string>();
    EXPECT_FALSE(e["about"].as<std::string>("").empty());
    if (e["first_hint_or"]) {
      EXPECT_TRUE(e["first_hint_or"].IsMap() && e["first_hint_or"]["id"] && e["first_hint_or"]["mentions"].IsSequence())
          << "first_hint_or: {id: ..., mentions: [...]}";
    }
    const std::string state = e["state"].as<std::string>("");
    EXPECT_TRUE(state == "graded" || state == "compile error" || state == "rejected") << state;
    if (e["upstream"]) {
      // A real student's file, pinned; grader/tools/real_corpus.sh materialises it.
      const YAML::Node& u = e["upstream"];
      EXPECT_NE(u["repository"].as<std::string>("").find('/'), std::string::npos);
      EXPECT_TRUE(std::regex_match(u["commit"].as<std::string>(""), std::regex("[0-9a-f]{40}")));
      EXPECT_TRUE(std::regex_match(u["sha256"].as<std::string>(""), std::regex("[0-9a-f]{64}")));
      EXPECT_FALSE(u["path"].as<std::string>("").empty());
      EXPECT_FALSE(u["kernel"].as<std::string>("").empty());
      EXPECT_TRUE(fs::is_regular_file(s.dir / "shim.cu"));
    } else {
      EXPECT_TRUE(fs::is_regular_file(s.kernel)) << s.kernel;
    }
    EXPECT_NE(fs::exists(s.dir / "kernel.cu"), bool(e["source"])) << "kernel.cu xor source:";
    if (e["gpu_score_fraction"]) {
      const YAML::Node& f = e["gpu_score_fraction"];
      ASSERT_TRUE(f.IsSequence() && f.size() == 2) << "gpu_score_fraction: [lo, hi]";
      EXPECT_LE(0, f[0].as<double>());
      EXPECT_LE(f[0].as<double>(), f[1].as<double>());
      EXPECT_LE(f[1].as<double>(), 1);
      EXPECT_EQ(state, "graded") << "gpu_score_fraction on a sample that is not graded";
    }
    if (e["cpu_not_graded"]) {
      EXPECT_FALSE(e["cpu_not_graded"].as<std::string>("").empty()) << "cpu_not_graded: \"why\"";
    }
    // The pass/fail lists name real tests, each once.
    std::set<std::string> listed;
    for (const char* key : {"must_pass", "must_fail"})
      for (const auto& t : e[key]) {
        const std::string name = t.as<std::string>();
        EXPECT_TRUE(test_names.count(name)) << key << ": no test " << name << " in default.yaml";
        EXPECT_TRUE(listed.insert(name).second) << name << " is listed twice";
      }
    // Tests where the CPU backend is stricter than a GPU: undefined behaviour, with the reason.
    if (e["cpu_stricter"]) {
      EXPECT_FALSE(e["cpu_stricter"]["reason"].as<std::string>("").empty()) << "cpu_stricter: {reason, tests}";
      for (const auto& t : e["cpu_stricter"]["tests"]) {
        const std::string name = t.as<std::string>();
        EXPECT_TRUE(test_names.count(name)) << "cpu_stricter: no test " << name << " in default.yaml";
        EXPECT_TRUE(listed.insert(name).second) << name << " is listed twice";
      }
    }
    // Both backends grade the correctness cases and the checks: where a
    // sample is graded on both, each of those tests says how, so that the
    // lists are the agreement between them.
    if (!e["cpu_not_graded"] && state == "graded")
      for (const auto& t : cpu_tests)
        if (t.max_score > 0) {
          EXPECT_TRUE(listed.count(t.name)) << t.name << " is in none of must_pass, must_fail, cpu_stricter";
        }
    // The range the lists imply is not empty on either backend (gpu_score_fraction agrees with them).
    for (const bool cpu : {false, true}) {
      if (cpu && e["cpu_not_graded"]) continue;
      const sg_samples::ScoreRange r = sg_samples::expected_score_range(e, cpu ? cpu_tests : gpu_tests, cpu);
      EXPECT_LE(r.lo, r.hi + 1e-9) << (cpu ? "CPU" : "GPU") << ": the lists and gpu_score_fraction imply no score";
    }
    for (const char* key : {"mentions", "cpu_mentions"})
      if (e[key]) {
        EXPECT_TRUE(e[key].IsSequence()) << key;
      }
  }
}

TEST(SampleCorpus, StaticVerdictsMatchExpectations) {
  SG_REQUIRE_NVCC();
  const auto samples = load_samples();
  TempDir work("samples");
  std::vector<std::pair<std::string, std::string>> jobs;
  for (const auto& s : samples)
    if (fs::is_regular_file(s.kernel)) jobs.emplace_back(s.name, s.kernel);
  const auto built = compile_all(jobs, work.path(), "sm_90");
  sg::Toolchain tc;
  for (const auto& s : samples) {
    SCOPED_TRACE(s.name);
    const auto it = built.find(s.name);
    if (it == built.end() || !s.expect.IsMap()) continue;  // reported by ExpectFilesAreWellFormed, or not materialised
    if (s.expect["known_unfair"]) continue;                // the static checks are what is unfair to it
    const sg::CompileResult& b = it->second;
    const std::string state = s.expect["state"].as<std::string>("");
    std::vector<std::string> mentions;
    for (const auto& m : s.expect["mentions"]) mentions.push_back(lower(m.as<std::string>()));
    if (state == "compile error") {
      EXPECT_FALSE(b.ok);
      for (const auto& m : mentions) EXPECT_NE(lower(b.log).find(m), std::string::npos) << m << " in\n" << b.log;
      continue;
    }
    ASSERT_TRUE(b.ok) << b.log;
    const WordedSymbols sym = worded(sg::check_symbols(tc, b.object));
    if (state == "rejected") {
      EXPECT_FALSE(sym.ok);
      const std::string all = lower(joined(sym.problems));
      for (const auto& m : mentions) EXPECT_NE(all.find(m), std::string::npos) << m << " in\n" << all;
      continue;
    }
    EXPECT_TRUE(sym.ok) << joined(sym.problems);
    // The structure check counts the loads of what runs (a GPU's ncu, the CPU
    // layer): the PTX says nothing of its verdict, so it is not predicted here.
  }
}

}  // namespace
