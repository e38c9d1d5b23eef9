// The GPU side of the driver (see support.h, "the machine"): the device,
// and cuBLAS as the FP64 oracle and the speed yardstick. Built by nvcc only.
// You do not need to edit this file.
#include <cublas_v2.h>

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "support.h"

namespace {

// Head room for the CUDA context's and cuBLAS's own allocations.
constexpr double kSlackBytes = 256.0 * 1024 * 1024;
constexpr int kShowWrong = 5;  // wrong elements listed on failure

double gigabytes(double bytes) { return bytes / 1e9; }

[[noreturn]] void cublas_failed(const char *call, const char *file, int line, cublasStatus_t st) {
  std::fflush(stdout);
  std::fprintf(stderr, "cuBLAS error: %s failed at %s:%d: %s\n", call, file, line,
               cublasGetStatusString(st));
  std::exit(kExitCudaError);
}

#define CHECK_CUBLAS(call)                                                \
  do {                                                                    \
    cublasStatus_t check_cublas_st_ = (call);                             \
    if (check_cublas_st_ != CUBLAS_STATUS_SUCCESS)                        \
      cublas_failed(#call, __FILE__, __LINE__, check_cublas_st_);         \
  } while (0)

// What a failed cudaGetDeviceCount means, and what to do about it.
std::string no_device_advice(cudaError_t err) {
  if (err == cudaErrorInsufficientDriver) {
    // The runtime says "insufficient" both with no driver at all and with
    // one too old for it: the driver's version (0 when none) tells them apart.
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    if (driver == 0)
      return "no NVIDIA driver here, so no GPU to run on: run on the CPU instead (make cpu; "
             "correctness only), or use a machine with an NVIDIA GPU";
    char line[400];
    std::snprintf(line, sizeof line,
                  "the NVIDIA driver here runs CUDA %d.%d, older than the CUDA %d.%d this program "
                  "was built with: update the driver, or rebuild with an older toolkit (make clean "
                  "&& make NVCC=/path/to/nvcc), or run on the CPU (make cpu; correctness only)",
                  driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
    return line;
  }
  if (err == cudaErrorNoDevice)
    return "no NVIDIA GPU is visible here (is CUDA_VISIBLE_DEVICES set?): run on the CPU "
           "instead (make cpu; correctness only)";
  return "no usable NVIDIA GPU or driver here: run on the CPU instead (make cpu; correctness "
         "only)";
}

// Row-major C = A * B through cuBLAS SGEMM (column-major: C^T = B^T * A^T).
void cublas_sgemm(cublasHandle_t handle, const Options &opt, const float *dA, const float *dB,
                  float *dC) {
  // cuBLAS is column-major: a row-major m x n C is a column-major n x m C^T,
  // and C^T = B^T * A^T, so B goes first.
  const float one = 1.0f, zero = 0.0f;
  CHECK_CUBLAS(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, opt.n, opt.m, opt.k, &one, dB, opt.n,
                           dA, opt.k, &zero, dC, opt.n));
}

constexpr int kThreads = 256;  // a multiple of the warp size (the reductions need it)

struct Tally {
  unsigned long long wrong;
  unsigned long long non_finite;
  unsigned long long first_wrong;  // row-major index; ULLONG_MAX when none
  unsigned long long worst_bits;   // bits of the worst finite ratio (>= 0, so bits order like values)
};

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

// ---- the machine -------------------------------------------------------------

void open_device() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    std::fflush(stdout);
    if (err != cudaSuccess)
      std::fprintf(stderr, "sgemm: no CUDA device available (cudaGetDeviceCount: %s: %s)\n  %s\n",
                   cudaGetErrorName(err), cudaGetErrorString(err), no_device_advice(err).c_str());
    else
      std::fprintf(stderr, "sgemm: no CUDA device available (cudaGetDeviceCount found none)\n  %s\n",
                   no_device_advice(cudaErrorNoDevice).c_str());
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
  if (fp32 + fp64 + kSlackBytes > double(free_bytes)) {
    char line[512];
    std::snprintf(line, sizeof line,
                  "problem too big for the GPU's memory: it needs %.2f GB (A, B, C in FP32: %.2f GB; "
                  "FP64 verification buffers: %.2f GB) but only %.2f GB of %.2f GB are free%s",
                  gigabytes(fp32 + fp64 + kSlackBytes), gigabytes(fp32), gigabytes(fp64),
                  gigabytes(double(free_bytes)), gigabytes(double(total_bytes)),
                  opt.verify ? "; try a smaller size or --no-verify" : "; try a smaller size");
    return line;
  }
  return check_index_limits(opt);
}

int default_repeats() { return 10; }

std::string error_detail() { return ""; }

void label_device_buffers(const float *, const float *, const float *, int) {}

// ---- the oracle and the yardstick: cuBLAS --------------------------------------

Library::Library() { CHECK_CUBLAS(cublasCreate(&handle_)); }
Library::~Library() { CHECK_CUBLAS(cublasDestroy(handle_)); }

const char *Library::oracle_name() const { return "FP64 cuBLAS"; }

std::vector<std::string> Library::access_and_barrier_problems(const Options &, const float *,
                                                              const float *, float *,
                                                              const std::vector<float> &) {
  return {};  // compute-sanitizer's memcheck and racecheck do this on a GPU
}

bool Library::time_library_sgemm(const Options &opt, const float *dA, const float *dB, float *dC,
                                 EventTimer &timer, Summary *out) {
  // Same inputs, same poisoning, one untimed warm-up (cuBLAS picks its
  // algorithm on the first call).
  cublas_sgemm(handle_, opt, dA, dB, dC);
  std::vector<double> samples;
  for (int i = 0; i < opt.repeats; ++i) {
    CHECK_CUDA(cudaMemset(dC, 0xFF, sizeof(float) * std::size_t(opt.m) * opt.n));
    timer.start();
    cublas_sgemm(handle_, opt, dA, dB, dC);
    timer.stop();
    samples.push_back(timer.elapsed_ms());
  }
  *out = summarize(samples);
  return true;
}

const char *Library::timing_note() const { return ""; }

Verdict Library::verify(const Options &opt, const float *dA, const float *dB, const float *dC,
                        const std::vector<float> &hC) {
  cublasHandle_t handle = handle_;
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
