// What ncu's load count costs (a benchmark helper, not a test): see ncu_cost.sh.
//   ncu_cost profiled WARMUPS GO   WARMUPS store-only kernels, then (once the
//                                  file GO exists) a naive 1024^3 SGEMM; each
//                                  launch's seconds on stderr
//   ncu_cost hog SECONDS           naive 2048^3 SGEMMs back to back
//   ncu_cost timer SECONDS         tiled 2048^3 SGEMMs, each timed with events:
//                                  median, p99 and how many took 3% over the median
#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

#define CHECK(call)                                                                                   \
  do {                                                                                                \
    const cudaError_t err_ = (call);                                                                  \
    if (err_ != cudaSuccess) {                                                                        \
      std::fprintf(stderr, "ncu_cost: %s failed: %s\n", #call, cudaGetErrorString(err_));             \
      std::exit(3);                                                                                   \
    }                                                                                                 \
  } while (0)

__global__ void store_only(float* out) { out[threadIdx.x] = 1.0f; }

__global__ void naive(const float* a, const float* b, float* c, int n) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n || col >= n) return;
  float sum = 0;
  for (int i = 0; i < n; ++i) sum += a[row * n + i] * b[i * n + col];
  c[row * n + col] = sum;
}

__global__ void tiled(const float* a, const float* b, float* c, int n) {
  __shared__ float ta[16][16], tb[16][16];
  const int tx = threadIdx.x, ty = threadIdx.y, row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
  float sum = 0;
  for (int t = 0; t < n / 16; ++t) {
    ta[ty][tx] = a[row * n + t * 16 + tx];
    tb[ty][tx] = b[(t * 16 + ty) * n + col];
    __syncthreads();
    for (int i = 0; i < 16; ++i) sum += ta[ty][i] * tb[i][tx];
    __syncthreads();
  }
  c[row * n + col] = sum;
}

struct Matrices {
  float *a = nullptr, *b = nullptr, *c = nullptr;
  explicit Matrices(int n) {
    const std::size_t bytes = sizeof(float) * n * n;
    CHECK(cudaMalloc(&a, bytes));
    CHECK(cudaMalloc(&b, bytes));
    CHECK(cudaMalloc(&c, bytes));
    CHECK(cudaMemset(a, 0, bytes));
    CHECK(cudaMemset(b, 0, bytes));
    CHECK(cudaDeviceSynchronize());
  }
  ~Matrices() {
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
  }
};

int profiled(int warmups, const char* go) {
  const int n = 1024;
  Matrices m(n);
  for (int i = 0; i < warmups; ++i) {
    const double t = now_s();
    store_only<<<1, 32>>>(m.c);
    CHECK(cudaDeviceSynchronize());
    std::fprintf(stderr, "warm-up %d: %.3f s\n", i, now_s() - t);
  }
  while (access(go, F_OK) != 0) usleep(500);
  const double t = now_s();
  naive<<<dim3(n / 16, n / 16), dim3(16, 16)>>>(m.a, m.b, m.c, n);
  CHECK(cudaDeviceSynchronize());
  std::fprintf(stderr, "measured: %.3f s\n", now_s() - t);
  return 0;
}

int loop(bool timed, double seconds) {
  const int n = 2048;
  Matrices m(n);
  const dim3 grid(n / 16, n / 16), block(16, 16);
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::vector<float> ms;
  for (const double t0 = now_s(); now_s() - t0 < seconds;) {
    if (!timed) {
      naive<<<grid, block>>>(m.a, m.b, m.c, n);
      CHECK(cudaDeviceSynchronize());
      continue;
    }
    CHECK(cudaEventRecord(start));
    tiled<<<grid, block>>>(m.a, m.b, m.c, n);
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float f = 0;
    CHECK(cudaEventElapsedTime(&f, start, stop));
    ms.push_back(f);
  }
  if (!timed || ms.empty()) return 0;
  std::sort(ms.begin(), ms.end());
  const float median = ms[ms.size() / 2], p99 = ms[std::min(ms.size() - 1, ms.size() * 99 / 100)];
  const long slow = std::count_if(ms.begin(), ms.end(), [&](float v) { return v > 1.03f * median; });
  std::printf("timer: %zu launches, median %.3f ms, p99 %.3f ms, max %.3f ms, %ld over median+3%%\n", ms.size(), median,
              p99, ms.back(), slow);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::strcmp(argv[1], "profiled") == 0) return profiled(std::atoi(argv[2]), argv[3]);
  if (argc == 3 && (std::strcmp(argv[1], "hog") == 0 || std::strcmp(argv[1], "timer") == 0))
    return loop(std::strcmp(argv[1], "timer") == 0, std::atof(argv[2]));
  std::fprintf(stderr, "usage: ncu_cost profiled WARMUPS GO | hog SECONDS | timer SECONDS\n");
  return 2;
}
