// Driver support shared by the GPU and the CPU build: argument parsing,
// checked calls, timers, inputs, size limits and the verdict. You do not need
// to edit this file.
#include "support.h"

#include <algorithm>
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
constexpr int kMaxRepeats = 1000;

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
               "  --repeats N  timed launches per kernel, 1 to %d (default %d)\n"
               "  --no-verify  skip the FP64 check (timings only, exits 0)\n"
               "  -h, --help   show this text\n"
               "exit status: 0 passed, 1 wrong result, 2 bad arguments or a problem too big,\n"
               "             3 CUDA error, launch error or no GPU\n",
               program, kMaxRepeats, default_repeats());
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
  const std::string detail = error_detail();
  if (!detail.empty()) std::fprintf(stderr, "  %s\n", detail.c_str());
  std::exit(kExitCudaError);
}

// ---- size limits -------------------------------------------------------------

std::string check_index_limits(const Options &opt) {
  const double mk = double(opt.m) * opt.k, kn = double(opt.k) * opt.n, mn = double(opt.m) * opt.n;
  char line[512];
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
    const char *hint = err == cudaErrorInvalidConfiguration ? "; check the grid and block shape" : "";
#ifndef SGEMM_CPU_BUILD  // the CPU build has no kernel images
    if (err == cudaErrorNoKernelImageForDevice) hint = "; rebuild for this GPU (make clean && make)";
#endif
    std::fprintf(stderr, "launch error after basicSgemm: cudaGetLastError returned %s (%s)%s\n",
                 cudaGetErrorName(err), cudaGetErrorString(err), hint);
    const std::string detail = error_detail();
    if (!detail.empty()) std::fprintf(stderr, "  %s\n", detail.c_str());
    std::exit(kExitCudaError);
  }
  timer.stop();
  return timer.elapsed_ms();
}

// ---- verification ------------------------------------------------------------

double gamma_k(int k) {
  const double ku = double(k) * 0x1p-24;
  return ku < 1.0 ? ku / (1.0 - ku) : INFINITY;
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
