// Driver support: argument parsing, checked calls, timers, inputs and the
// FP64 verification used by main.cu. You do not need to edit this file.
#include "support.h"

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace {

// Largest number of elements per matrix. Kept a little below INT_MAX so that
// the kernel's int index arithmetic, including rounding k up to a whole
// number of tiles, cannot overflow.
constexpr long long kMaxElements = 2147483647LL - 63;
// The grid's y dimension is limited to 65535 blocks; with one row of tiles
// per block row, that caps m.
constexpr long long kMaxRows = 65535LL * 16;
// Head room for the CUDA context's and cuBLAS's own allocations.
constexpr double kSlackBytes = 256.0 * 1024 * 1024;
constexpr int kMaxRepeats = 1000;
constexpr int kShowWrong = 5;  // wrong elements listed on failure

bool all_digits(const char *s) {
  if (*s == '\0') return false;
  for (; *s; ++s)
    if (*s < '0' || *s > '9') return false;
  return true;
}

// Parses a whole number in [1, max]. Returns "" or the reason.
std::string parse_positive(const char *text, const char *what, long long max, long long *out) {
  const std::string quoted = std::string("'") + text + "'";
  if (text[0] == '-' && all_digits(text + 1))
    return std::string(what) + " " + quoted + " is negative; it must be at least 1";
  if (!all_digits(text)) return std::string(what) + " " + quoted + " is not a whole number";
  long long value = 0;
  for (const char *p = text; *p; ++p) {
    value = value * 10 + (*p - '0');
    if (value > max)
      return std::string(what) + " " + quoted + " is too large (at most " + std::to_string(max) + ")";
  }
  if (value == 0) return std::string(what) + " " + quoted + " is zero; it must be at least 1";
  *out = value;
  return "";
}

std::string parse_seed(const char *text, std::uint64_t *out) {
  if (!all_digits(text)) return std::string("--seed '") + text + "' is not a whole number";
  std::uint64_t value = 0;
  for (const char *p = text; *p; ++p) {
    const std::uint64_t digit = static_cast<std::uint64_t>(*p - '0');
    if (value > (UINT64_MAX - digit) / 10)
      return std::string("--seed '") + text + "' does not fit in 64 bits";
    value = value * 10 + digit;
  }
  *out = value;
  return "";
}

double gigabytes(double bytes) { return bytes / 1e9; }

}  // namespace

// ---- command line --------------------------------------------------------

std::string parse_options(int argc, char **argv, Options *opt) {
  std::vector<const char *> sizes;
  bool seen_option = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      opt->help = true;
      return "";
    }
    if (arg.rfind("--", 0) == 0) {
      seen_option = true;
      if (arg == "--no-verify") {
        opt->verify = false;
      } else if (arg == "--seed" || arg == "--repeats") {
        if (i + 1 >= argc) return arg + " needs a value";
        const char *value = argv[++i];
        if (arg == "--seed") {
          std::string err = parse_seed(value, &opt->seed);
          if (!err.empty()) return err;
        } else {
          long long repeats = 0;
          std::string err = parse_positive(value, "--repeats", kMaxRepeats, &repeats);
          if (!err.empty()) return err;
          opt->repeats = static_cast<int>(repeats);
        }
      } else {
        return "unknown option '" + arg + "'";
      }
      continue;
    }
    // Anything else, "-5" included, is meant as a size.
    if (seen_option) return "sizes must come before options, but '" + arg + "' follows one";
    sizes.push_back(argv[i]);
  }

  if (sizes.size() != 0 && sizes.size() != 1 && sizes.size() != 3)
    return "expected no size, one (m) or three (m k n), but got " + std::to_string(sizes.size());

  static const char *const kNames[3] = {"m", "k", "n"};
  long long dims[3] = {1000, 1000, 1000};
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    std::string err = parse_positive(sizes[i], sizes.size() == 1 ? "size" : kNames[i], INT_MAX, &dims[i]);
    if (!err.empty()) return err;
  }
  if (sizes.size() == 1) dims[1] = dims[2] = dims[0];
  opt->m = static_cast<int>(dims[0]);
  opt->k = static_cast<int>(dims[1]);
  opt->n = static_cast<int>(dims[2]);
  return "";
}

void print_usage(std::FILE *to, const char *program) {
  std::fprintf(to,
               "usage: %s [m | m k n] [options]\n"
               "  (no size)   A, B and C are 1000 x 1000\n"
               "  m           A, B and C are m x m\n"
               "  m k n       A is m x k, B is k x n, C is m x n\n"
               "  sizes are whole numbers of at least 1\n"
               "options (after the sizes):\n"
               "  --seed N     seed of the random inputs (default 42)\n"
               "  --repeats N  timed launches per kernel, 1 to %d (default 10)\n"
               "  --no-verify  skip the FP64 check (timings only, exits 0)\n"
               "  -h, --help   show this text\n"
               "exit status: 0 passed, 1 wrong result, 2 bad arguments or a problem too big,\n"
               "             3 CUDA error, launch error or no GPU\n",
               program, kMaxRepeats);
}

void usage_error(const char *program, const std::string &reason) {
  std::fprintf(stderr, "%s: %s\n", program, reason.c_str());
  print_usage(stderr, program);
  std::exit(kExitUsage);
}

// ---- checked calls -------------------------------------------------------

void cuda_failed(const char *call, const char *file, int line, cudaError_t err) {
  std::fflush(stdout);
  std::fprintf(stderr, "CUDA error: %s failed at %s:%d: %s (%s)\n", call, file, line,
               cudaGetErrorName(err), cudaGetErrorString(err));
  std::exit(kExitCudaError);
}

void cublas_failed(const char *call, const char *file, int line, cublasStatus_t st) {
  std::fflush(stdout);
  std::fprintf(stderr, "cuBLAS error: %s failed at %s:%d: %s\n", call, file, line,
               cublasGetStatusString(st));
  std::exit(kExitCudaError);
}

// ---- device ----------------------------------------------------------------

void open_device() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    std::fflush(stdout);
    if (err != cudaSuccess)
      std::fprintf(stderr, "sgemm: no CUDA device available (cudaGetDeviceCount: %s: %s)\n",
                   cudaGetErrorName(err), cudaGetErrorString(err));
    else
      std::fprintf(stderr, "sgemm: no CUDA device available (cudaGetDeviceCount found none)\n");
    std::exit(kExitCudaError);
  }
  int device = 0;
  CHECK_CUDA(cudaGetDevice(&device));
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, device));
  std::printf("device %d: %s (sm_%d%d)\n", device, prop.name, prop.major, prop.minor);
}

std::string check_problem_fits(const Options &opt) {
  std::size_t free_bytes = 0, total_bytes = 0;
  CHECK_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));

  // Doubles: exact enough here, and m*k*8 can exceed 64 bits as an integer.
  const double mk = double(opt.m) * opt.k, kn = double(opt.k) * opt.n, mn = double(opt.m) * opt.n;
  const double fp32 = 4.0 * (mk + kn + mn);                    // A, B, C
  const double fp64 = opt.verify ? 8.0 * (mk + kn + 2 * mn) : 0;  // A, B, C64, |A||B|
  char line[512];
  if (fp32 + fp64 + kSlackBytes > double(free_bytes)) {
    std::snprintf(line, sizeof line,
                  "problem too big for the GPU's memory: it needs %.2f GB (A, B, C in FP32: %.2f GB; "
                  "FP64 verification buffers: %.2f GB) but only %.2f GB of %.2f GB are free%s",
                  gigabytes(fp32 + fp64 + kSlackBytes), gigabytes(fp32), gigabytes(fp64),
                  gigabytes(double(free_bytes)), gigabytes(double(total_bytes)),
                  opt.verify ? "; try a smaller size or --no-verify" : "; try a smaller size");
    return line;
  }

  const struct {
    const char *name;
    double elements;
  } matrices[] = {{"A", mk}, {"B", kn}, {"C", mn}};
  for (const auto &mat : matrices) {
    if (mat.elements > double(kMaxElements)) {
      std::snprintf(line, sizeof line,
                    "problem too big: %s would hold %.0f elements, more than the %lld that int "
                    "indices in the kernel can address",
                    mat.name, mat.elements, kMaxElements);
      return line;
    }
  }
  if (opt.m > kMaxRows) {
    std::snprintf(line, sizeof line,
                  "problem too big: m = %d needs more than 65535 blocks of %d rows along y (the "
                  "grid's limit); m can be at most %lld",
                  opt.m, 16, kMaxRows);
    return line;
  }
  return "";
}

// ---- timing --------------------------------------------------------------

EventTimer::EventTimer() {
  CHECK_CUDA(cudaEventCreate(&start_));
  CHECK_CUDA(cudaEventCreate(&stop_));
}

EventTimer::~EventTimer() {
  CHECK_CUDA(cudaEventDestroy(start_));
  CHECK_CUDA(cudaEventDestroy(stop_));
}

void EventTimer::start() { CHECK_CUDA(cudaEventRecord(start_, 0)); }
void EventTimer::stop() { CHECK_CUDA(cudaEventRecord(stop_, 0)); }

double EventTimer::elapsed_ms() {
  const cudaError_t err = cudaEventSynchronize(stop_);
  if (err != cudaSuccess) {
    std::fflush(stdout);
    std::fprintf(stderr, "sgemm: GPU work failed while it ran (a kernel fault, e.g. an "
                         "out-of-bounds access, is reported here)\n");
    cuda_failed("cudaEventSynchronize(stop_)", __FILE__, __LINE__, err);
  }
  float ms = 0;
  CHECK_CUDA(cudaEventElapsedTime(&ms, start_, stop_));
  return ms;
}

double host_now_ms() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double, std::milli>(clock::now().time_since_epoch()).count();
}

Summary summarize(std::vector<double> samples_ms) {
  Summary s;
  if (samples_ms.empty()) return s;
  std::sort(samples_ms.begin(), samples_ms.end());
  const std::size_t half = samples_ms.size() / 2;
  s.median_ms = samples_ms.size() % 2 ? samples_ms[half] : (samples_ms[half - 1] + samples_ms[half]) / 2;
  s.min_ms = samples_ms.front();
  s.max_ms = samples_ms.back();
  return s;
}

double gflops(const Options &opt, double ms) {
  return 2.0 * opt.m * opt.n * opt.k / (ms * 1e6);
}

// ---- inputs ----------------------------------------------------------------

void fill_uniform(std::vector<float> &values, std::uint64_t seed, std::uint64_t stream) {
  // splitmix64 over (seed, stream, index): fast, and the same on every machine.
  std::uint64_t state = seed ^ (stream * 0xD1B54A32D192ED03ULL);
  for (float &v : values) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    // 24 random bits -> a float in [-1, 1) on a grid of 2^-23, exact in FP32.
    v = static_cast<float>(static_cast<double>(z >> 40) * 0x1p-23 - 1.0);
  }
}

// ---- launches ----------------------------------------------------------------

double timed_student_launch(const Options &opt, const float *dA, const float *dB, float *dC,
                            EventTimer &timer) {
  // All bytes 0xFF is a NaN, so an element the kernel never writes fails.
  CHECK_CUDA(cudaMemset(dC, 0xFF, sizeof(float) * std::size_t(opt.m) * opt.n));
  timer.start();
  basicSgemm(opt.m, opt.n, opt.k, dA, dB, dC);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) {
    std::fflush(stdout);
    const char *hint = err == cudaErrorInvalidConfiguration ? "; check the grid and block shape"
                       : err == cudaErrorNoKernelImageForDevice ? "; rebuild for this GPU (make clean && make)"
                                                                : "";
    std::fprintf(stderr, "launch error after basicSgemm: cudaGetLastError returned %s (%s)%s\n",
                 cudaGetErrorName(err), cudaGetErrorString(err), hint);
    std::exit(kExitCudaError);
  }
  timer.stop();
  return timer.elapsed_ms();
}

void cublas_sgemm(cublasHandle_t handle, const Options &opt, const float *dA, const float *dB,
                  float *dC) {
  // cuBLAS is column-major: a row-major m x n C is a column-major n x m C^T,
  // and C^T = B^T * A^T, so B goes first.
  const float one = 1.0f, zero = 0.0f;
  CHECK_CUBLAS(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, opt.n, opt.m, opt.k, &one, dB, opt.n,
                           dA, opt.k, &zero, dC, opt.n));
}

// ---- verification ------------------------------------------------------------

namespace {

constexpr int kThreads = 256;  // a multiple of the warp size (the reductions need it)

struct Tally {
  unsigned long long wrong;
  unsigned long long non_finite;
  unsigned long long first_wrong;  // row-major index; ULLONG_MAX when none
  unsigned long long worst_bits;   // bits of the worst finite ratio (>= 0, so bits order like values)
};

struct ElementCheck {
  bool pass;
  bool finite;
  double ratio;  // |err| / bound (finite elements only)
  double bound;
};

// The single pass/fail rule, shared by the GPU scan and the host listing so
// both always agree.
__host__ __device__ inline ElementCheck check_element(float got, double want, double abs_ab,
                                                      double scale) {
  ElementCheck r;
  // Stays 0 (not 0 * inf) when |A||B| is 0 and the bound is vacuous.
  r.bound = abs_ab == 0.0 ? 0.0 : scale * abs_ab;
  r.finite = fabsf(got) <= FLT_MAX;  // false for NaN and +-Inf
  if (!r.finite) {
    r.pass = false;
    r.ratio = 0;
    return r;
  }
  const double err = fabs(static_cast<double>(got) - want);
  r.pass = err <= r.bound;
  r.ratio = err == 0.0 ? 0.0 : (r.bound > 0.0 ? err / r.bound : INFINITY);
  return r;
}

__global__ void widen_kernel(const float *src, double *dst, std::size_t count, bool absolute) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    const double v = src[i];
    dst[i] = absolute ? fabs(v) : v;
  }
}

__global__ void compare_kernel(const float *c, const double *c64, const double *abs_ab,
                               std::size_t count, double scale, Tally *tally) {
  unsigned long long wrong = 0, non_finite = 0, first = ULLONG_MAX;
  double worst = 0;
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    const ElementCheck e = check_element(c[i], c64[i], abs_ab[i], scale);
    if (!e.pass) {
      ++wrong;
      if (!e.finite) ++non_finite;
      if (i < first) first = i;
    }
    if (e.finite) worst = fmax(worst, e.ratio);
  }
  // Reduce within the warp, then one atomic per warp instead of per element.
  for (int offset = 16; offset > 0; offset /= 2) {
    wrong += __shfl_down_sync(0xffffffffu, wrong, offset);
    non_finite += __shfl_down_sync(0xffffffffu, non_finite, offset);
    first = min(first, __shfl_down_sync(0xffffffffu, first, offset));
    worst = fmax(worst, __shfl_down_sync(0xffffffffu, worst, offset));
  }
  if ((threadIdx.x & 31) == 0) {
    if (wrong) atomicAdd(&tally->wrong, wrong);
    if (non_finite) atomicAdd(&tally->non_finite, non_finite);
    if (first != ULLONG_MAX) atomicMin(&tally->first_wrong, first);
    if (worst > 0)
      atomicMax(&tally->worst_bits, static_cast<unsigned long long>(__double_as_longlong(worst)));
  }
}

int blocks_for(std::size_t count) {
  const std::size_t wanted = (count + kThreads - 1) / kThreads;
  return static_cast<int>(std::min<std::size_t>(wanted, 4096));
}

void widen(const float *src, double *dst, std::size_t count, bool absolute) {
  widen_kernel<<<blocks_for(count), kThreads>>>(src, dst, count, absolute);
  CHECK_CUDA(cudaGetLastError());
}

// Row-major C64 = A64 * B64 in FP64 (operands swapped, as in cublas_sgemm).
void cublas_dgemm(cublasHandle_t handle, const Options &opt, const double *dA, const double *dB,
                  double *dC) {
  const double one = 1.0, zero = 0.0;
  CHECK_CUBLAS(cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, opt.n, opt.m, opt.k, &one, dB, opt.n,
                           dA, opt.k, &zero, dC, opt.n));
}

// Lists the first wrong elements, scanning from the first one the GPU found.
// Copies back windows of the oracle so host memory stays small.
std::vector<WrongElement> list_first_wrong(const Options &opt, const std::vector<float> &hC,
                                           const double *dC64, const double *dAbsAB,
                                           std::size_t first, unsigned long long wrong, double scale) {
  const std::size_t count = std::size_t(opt.m) * opt.n;
  const std::size_t want = std::min<unsigned long long>(wrong, kShowWrong);
  constexpr std::size_t kWindow = std::size_t(1) << 20;
  std::vector<double> c64(std::min(kWindow, count)), abs_ab(c64.size());
  std::vector<WrongElement> out;
  for (std::size_t base = first; base < count && out.size() < want; base += kWindow) {
    const std::size_t len = std::min(kWindow, count - base);
    CHECK_CUDA(cudaMemcpy(c64.data(), dC64 + base, len * sizeof(double), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(abs_ab.data(), dAbsAB + base, len * sizeof(double), cudaMemcpyDeviceToHost));
    for (std::size_t j = 0; j < len && out.size() < want; ++j) {
      const std::size_t i = base + j;
      const ElementCheck e = check_element(hC[i], c64[j], abs_ab[j], scale);
      if (e.pass) continue;
      WrongElement w;
      w.row = static_cast<int>(i / opt.n);
      w.col = static_cast<int>(i % opt.n);
      w.got = hC[i];
      w.expected = c64[j];
      w.bound = e.bound;
      out.push_back(w);
    }
  }
  return out;
}

}  // namespace

double gamma_k(int k) {
  const double ku = double(k) * 0x1p-24;
  return ku < 1.0 ? ku / (1.0 - ku) : INFINITY;
}

Verdict verify(cublasHandle_t handle, const Options &opt, const float *dA, const float *dB,
               const float *dC, const std::vector<float> &hC) {
  const std::size_t mk = std::size_t(opt.m) * opt.k, kn = std::size_t(opt.k) * opt.n;
  const std::size_t mn = std::size_t(opt.m) * opt.n;
  DeviceArray<double> a64(mk), b64(kn), c64(mn), abs_ab(mn);

  // FP64 products of FP32 inputs are exact, so the oracle's own error is
  // negligible next to the FP32 bound.
  widen(dA, a64.get(), mk, false);
  widen(dB, b64.get(), kn, false);
  cublas_dgemm(handle, opt, a64.get(), b64.get(), c64.get());
  widen(dA, a64.get(), mk, true);
  widen(dB, b64.get(), kn, true);
  cublas_dgemm(handle, opt, a64.get(), b64.get(), abs_ab.get());

  const Tally init = {0, 0, ULLONG_MAX, 0};
  DeviceArray<Tally> tally(1);
  CHECK_CUDA(cudaMemcpy(tally.get(), &init, sizeof init, cudaMemcpyHostToDevice));
  const double scale = 2.0 * gamma_k(opt.k);
  compare_kernel<<<blocks_for(mn), kThreads>>>(dC, c64.get(), abs_ab.get(), mn, scale, tally.get());
  CHECK_CUDA(cudaGetLastError());
  Tally result;
  CHECK_CUDA(cudaMemcpy(&result, tally.get(), sizeof result, cudaMemcpyDeviceToHost));

  Verdict v;
  v.checked = mn;
  v.wrong = result.wrong;
  v.non_finite = result.non_finite;
  std::memcpy(&v.worst_ratio, &result.worst_bits, sizeof v.worst_ratio);
  if (v.wrong > 0)
    v.first_wrong = list_first_wrong(opt, hC, c64.get(), abs_ab.get(), result.first_wrong, v.wrong, scale);
  return v;
}

void print_verdict(const Verdict &v, const Options &opt) {
  if (v.passed()) {
    std::printf("TEST PASSED: all %llu elements within 2 * gamma_k * (|A||B|)_ij "
                "(gamma_k = %.3g for k = %d); worst error is %.3g of its bound\n",
                v.checked, gamma_k(opt.k), opt.k, v.worst_ratio);
    return;
  }
  std::printf("TEST FAILED: %llu of %llu elements wrong", v.wrong, v.checked);
  if (v.non_finite > 0)
    std::printf(" (%llu NaN/Inf: C starts as NaN, so these were likely never written)", v.non_finite);
  std::printf("\nfirst wrong elements (row, col): got, expected [bound]\n");
  for (const WrongElement &w : v.first_wrong)
    std::printf("  (%d, %d): got %.9g, expected %.9g [%.3g]\n", w.row, w.col, w.got, w.expected,
                w.bound);
  std::printf("worst error relative to its bound (finite elements): %.3g\n", v.worst_ratio);
}
