// Everything the ./sgemm driver needs besides the kernel: argument parsing,
// checked CUDA calls, device buffers, timers, inputs and the FP64
// verification. You do not need to edit this file.
//
// The same driver runs on a GPU (built with nvcc: gpu_support.cu) or on the
// CPU (built with the host compiler against the CUDA-on-CPU layer in
// cudacpu/: cpu_support.cpp). Only "the machine" below differs.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <cuda_runtime.h>

struct cublasContext;  // cuBLAS's handle type, used on the GPU only

// The function under test, defined in kernel.cu.
void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C);

// ---- exit codes ----------------------------------------------------------
enum ExitCode {
  kExitPassed = 0,    // the result is within tolerance (or was not checked)
  kExitFailed = 1,    // wrong result
  kExitUsage = 2,     // bad arguments, or a problem too big to run
  kExitCudaError = 3  // a CUDA/cuBLAS call failed, or there is no GPU
};

// Default number of timed launches (gpu_support.cu or cpu_support.cpp): the
// CPU runs a kernel thousands of times slower than a GPU.
int default_repeats();

// ---- command line --------------------------------------------------------
struct Options {
  int m = 1000, k = 1000, n = 1000;  // A is m x k, B is k x n, C is m x n
  std::uint64_t seed = 42;
  int repeats = default_repeats();  // timed launches per kernel
  bool verify = true;
  bool help = false;
};

// Parses argv. Returns an empty string on success, else the reason (which
// names the offending argument). Touches no GPU.
std::string parse_options(int argc, char **argv, Options *opt);
void print_usage(std::FILE *to, const char *program);
// Prints the reason and the usage to stderr and exits with kExitUsage.
[[noreturn]] void usage_error(const char *program, const std::string &reason);

// ---- checked calls -------------------------------------------------------
[[noreturn]] void cuda_failed(const char *call, const char *file, int line, cudaError_t err);

// Wrap every CUDA runtime call: a failure names the call, where it was made
// and the error, then exits with kExitCudaError.
#define CHECK_CUDA(call)                                                  \
  do {                                                                    \
    cudaError_t check_cuda_err_ = (call);                                 \
    if (check_cuda_err_ != cudaSuccess)                                   \
      cuda_failed(#call, __FILE__, __LINE__, check_cuda_err_);            \
  } while (0)

// ---- the machine (gpu_support.cu or cpu_support.cpp) --------------------------
// Selects the current device and prints what it is; on the GPU, exits with
// kExitCudaError and a clear message when there is no usable GPU.
void open_device();

// Returns an empty string when the problem fits on the device, else why not.
// Checked only after open_device(): it compares against free device memory.
std::string check_problem_fits(const Options &opt);

// Why the last failing CUDA call failed, beyond its error code (the CPU build
// names the line, index and thread); empty when there is nothing to add.
std::string error_detail();

// Names A, B and C (n columns) in the CPU build's reports; nothing on a GPU.
void label_device_buffers(const float *dA, const float *dB, const float *dC, int n);

// The limits of int indexing and of the grid, the same on every machine:
// empty when the problem is within them, else why not.
std::string check_index_limits(const Options &opt);

// Owns one device allocation; frees it (checked) when it goes out of scope.
template <typename T>
class DeviceArray {
 public:
  explicit DeviceArray(std::size_t count) : count_(count) {
    CHECK_CUDA(cudaMalloc(reinterpret_cast<void **>(&ptr_), count * sizeof(T)));
  }
  ~DeviceArray() { CHECK_CUDA(cudaFree(ptr_)); }
  DeviceArray(const DeviceArray &) = delete;
  DeviceArray &operator=(const DeviceArray &) = delete;
  T *get() const { return ptr_; }
  std::size_t count() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

 private:
  T *ptr_ = nullptr;
  std::size_t count_;
};

// ---- timing --------------------------------------------------------------
// A pair of CUDA events on the default stream.
class EventTimer {
 public:
  EventTimer();
  ~EventTimer();
  EventTimer(const EventTimer &) = delete;
  EventTimer &operator=(const EventTimer &) = delete;
  void start();
  void stop();
  // Waits for the stop event. A kernel that faulted surfaces here, so the
  // error is reported as a failure while the kernel ran.
  double elapsed_ms();

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

// Milliseconds on the host's steady clock; subtract two readings for a duration.
double host_now_ms();

struct Summary {
  double median_ms = 0, min_ms = 0, max_ms = 0;
};
Summary summarize(std::vector<double> samples_ms);
double gflops(const Options &opt, double ms);

// ---- inputs ----------------------------------------------------------------
// Fills `values` with uniform numbers in [-1, 1), reproducible from the seed;
// `stream` separates A from B.
void fill_uniform(std::vector<float> &values, std::uint64_t seed, std::uint64_t stream);

// ---- launches ----------------------------------------------------------------
// Poisons C (all bytes 0xFF, a NaN pattern), times one basicSgemm launch with
// events and checks for a launch error right after it.
double timed_student_launch(const Options &opt, const float *dA, const float *dB, float *dC,
                            EventTimer &timer);


// ---- verification ------------------------------------------------------------
struct WrongElement {
  int row = 0, col = 0;
  float got = 0;
  double expected = 0;
  double bound = 0;
};

struct Verdict {
  unsigned long long checked = 0;
  unsigned long long wrong = 0;       // outside the bound, NaN/Inf included
  unsigned long long non_finite = 0;  // of which NaN or Inf
  double worst_ratio = 0;             // max |C - C64| / bound over finite elements
  std::vector<WrongElement> first_wrong;  // the first few, row-major order
  bool passed() const { return wrong == 0; }
};

// The unit roundoff bound gamma_k = k*u / (1 - k*u) with u = 2^-24 (infinite
// once k*u >= 1, where no useful bound exists).
double gamma_k(int k);

struct ElementCheck {
  bool pass;
  bool finite;
  double ratio;  // |err| / bound (finite elements only)
  double bound;
};

// The single pass/fail rule, shared by the GPU scan, the host listing and the
// CPU build, so all always agree.
__host__ __device__ inline ElementCheck check_element(float got, double want, double abs_ab,
                                                      double scale) {
  ElementCheck r;
  // Stays 0 (not 0 * inf) when |A||B| is 0 and the bound is vacuous.
  r.bound = abs_ab == 0.0 ? 0.0 : scale * abs_ab;
  r.finite = fabsf(got) <= 3.402823466e+38f;  // FLT_MAX; false for NaN and +-Inf
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

void print_verdict(const Verdict &v, const Options &opt);

// ---- the oracle and the yardstick (gpu_support.cu or cpu_support.cpp) ----------
// On the GPU: cuBLAS, for the FP64 oracle (DGEMM on FP64 copies of A and B)
// and the SGEMM the kernel is timed against. On the CPU: an FP64 loop on the
// host, no yardstick, and the checks a GPU leaves to compute-sanitizer.
class Library {
 public:
  Library();
  ~Library();
  Library(const Library &) = delete;
  Library &operator=(const Library &) = delete;

  // Names the oracle in the phase list, e.g. "FP64 cuBLAS".
  const char *oracle_name() const;

  // Compares C (on the device, plus its host copy) against the FP64 oracle.
  // Element (i, j) passes when |C - C64| <= 2 * gamma_k * (|A||B|)_ij;
  // NaN/Inf never pass.
  Verdict verify(const Options &opt, const float *dA, const float *dB, const float *dC,
                 const std::vector<float> &hC);

  // What the first launch (whose result is hC) did that the values may not
  // show, one message each: on the CPU, an out-of-bounds access, or a result
  // that depends on the order in which a block's threads run between
  // barriers (it runs the kernel again to find out). None on the GPU: use
  // compute-sanitizer there.
  std::vector<std::string> access_and_barrier_problems(const Options &opt, const float *dA,
                                                       const float *dB, float *dC,
                                                       const std::vector<float> &hC);

  // Times the library's SGEMM on the same inputs into `out`; false when
  // there is none to compare with (the CPU).
  bool time_library_sgemm(const Options &opt, const float *dA, const float *dB, float *dC,
                          EventTimer &timer, Summary *out);

  // One line on what the times mean, printed with them.
  const char *timing_note() const;

 private:
  cublasContext *handle_ = nullptr;
};
