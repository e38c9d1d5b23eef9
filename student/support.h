// Everything the ./sgemm driver needs besides the kernel: argument parsing,
// checked CUDA/cuBLAS calls, device buffers, timers, inputs and the FP64
// verification. You do not need to edit this file.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>

// The function under test, defined in kernel.cu.
void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C);

// ---- exit codes ----------------------------------------------------------
enum ExitCode {
  kExitPassed = 0,    // the result is within tolerance (or was not checked)
  kExitFailed = 1,    // wrong result
  kExitUsage = 2,     // bad arguments, or a problem too big to run
  kExitCudaError = 3  // a CUDA/cuBLAS call failed, or there is no GPU
};

// ---- command line --------------------------------------------------------
struct Options {
  int m = 1000, k = 1000, n = 1000;  // A is m x k, B is k x n, C is m x n
  std::uint64_t seed = 42;
  int repeats = 10;  // timed launches per kernel
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
[[noreturn]] void cublas_failed(const char *call, const char *file, int line, cublasStatus_t st);

// Wrap every CUDA runtime call: a failure names the call, where it was made
// and the error, then exits with kExitCudaError.
#define CHECK_CUDA(call)                                                  \
  do {                                                                    \
    cudaError_t check_cuda_err_ = (call);                                 \
    if (check_cuda_err_ != cudaSuccess)                                   \
      cuda_failed(#call, __FILE__, __LINE__, check_cuda_err_);            \
  } while (0)

#define CHECK_CUBLAS(call)                                                \
  do {                                                                    \
    cublasStatus_t check_cublas_st_ = (call);                             \
    if (check_cublas_st_ != CUBLAS_STATUS_SUCCESS)                        \
      cublas_failed(#call, __FILE__, __LINE__, check_cublas_st_);         \
  } while (0)

// ---- device ----------------------------------------------------------------
// Selects the current device and prints what it is; exits with kExitCudaError
// and a clear message when there is no usable GPU.
void open_device();

// Returns an empty string when the problem fits on the device, else why not.
// Checked only after open_device(): it compares against free device memory.
std::string check_problem_fits(const Options &opt);

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

// Row-major C = A * B through cuBLAS SGEMM (column-major: C^T = B^T * A^T).
void cublas_sgemm(cublasHandle_t handle, const Options &opt, const float *dA, const float *dB,
                  float *dC);

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

// Compares C (on the device, plus its host copy) against an FP64 oracle
// computed with cuBLAS DGEMM from FP64 copies of A and B. Element (i, j)
// passes when |C - C64| <= 2 * gamma_k * (|A||B|)_ij; NaN/Inf never pass.
Verdict verify(cublasHandle_t handle, const Options &opt, const float *dA, const float *dB,
               const float *dC, const std::vector<float> &hC);

void print_verdict(const Verdict &v, const Options &opt);
