// What a hog does to the other processes on its GPU (issue 35, item 2): a
// victim process times a small tiled SGEMM launch again and again, alone and
// beside a hog process, so grader/bench/hog_latency.sh can tabulate the
// victim's start-up and launch latency under each hog.
//   hog_latency victim SECONDS        prints one line: ctx_ms alloc_ms p50_us p90_us p99_us max_us launches
//   hog_latency hog KIND [SMS]        runs until killed; KIND: deadlock, grid, printf, crash;
//                                     SMS > 0 puts the hog's launches on a green context of that many SMs
#include <cuda_runtime.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "backends/gpu/sm_partition.h"

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kTile = 16;

void check(cudaError_t e, const char* call) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "hog_latency: %s failed: %s\n", call, cudaGetErrorString(e));
    std::exit(1);
  }
}

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

__global__ void tiled(int m, int n, int k, const float* a, const float* b, float* c) {
  __shared__ float as[kTile][kTile], bs[kTile][kTile];
  const int row = blockIdx.y * kTile + threadIdx.y, col = blockIdx.x * kTile + threadIdx.x;
  float acc = 0;
  for (int base = 0; base < k; base += kTile) {
    as[threadIdx.y][threadIdx.x] = row < m && base + threadIdx.x < k ? a[row * k + base + threadIdx.x] : 0;
    bs[threadIdx.y][threadIdx.x] = base + threadIdx.y < k && col < n ? b[(base + threadIdx.y) * n + col] : 0;
    __syncthreads();
    for (int i = 0; i < kTile; ++i) acc += as[threadIdx.y][i] * bs[i][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = acc;
}

__device__ int g_never_set;
__global__ void spin() {
  while (atomicAdd(&g_never_set, 0) == 0) {
  }
}
__global__ void early_return(float* c) {
  if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0) c[0] = 1;
}
__global__ void chatter() { printf("thread %d of block %d\n", threadIdx.x, blockIdx.x); }
__global__ void stray(float* p) { p[threadIdx.x] = 1; }

int victim(double seconds) {
  const auto t0 = Clock::now();
  check(cudaFree(nullptr), "cudaFree (context)");
  const double ctx_ms = ms_since(t0);
  constexpr int kN = 512;
  const std::size_t bytes = sizeof(float) * kN * kN;
  std::vector<float> host(kN * kN, 1.0f);
  float *a = nullptr, *b = nullptr, *c = nullptr;
  const auto t1 = Clock::now();
  check(cudaMalloc(&a, bytes), "cudaMalloc");
  check(cudaMalloc(&b, bytes), "cudaMalloc");
  check(cudaMalloc(&c, bytes), "cudaMalloc");
  check(cudaMemcpy(a, host.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
  check(cudaMemcpy(b, host.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
  const double alloc_ms = ms_since(t1);
  std::vector<double> us;
  const auto end = Clock::now() + std::chrono::duration<double>(seconds);
  while (Clock::now() < end) {
    const auto t = Clock::now();
    tiled<<<dim3(kN / kTile, kN / kTile), dim3(kTile, kTile)>>>(kN, kN, kN, a, b, c);
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    us.push_back(ms_since(t) * 1000);
  }
  std::sort(us.begin(), us.end());
  auto at = [&us](double q) { return us[std::min(us.size() - 1, std::size_t(q * us.size()))]; };
  std::printf("%.1f %.1f %.0f %.0f %.0f %.0f %zu\n", ctx_ms, alloc_ms, at(0.5), at(0.9), at(0.99), us.back(),
              us.size());
  return 0;
}

void enter_partition(unsigned sms) {
  if (sms == 0) return;
  check(cudaFree(nullptr), "cudaFree (context)");
  static sg::gpu::SmPartition partition;  // lives as long as the hog
  std::string why;
  if (!partition.create(sms, why)) {
    std::fprintf(stderr, "hog_latency: no partition: %s\n", why.c_str());
    std::exit(1);
  }
  std::fprintf(stderr, "hog on %u SMs\n", partition.sms());
}

int hog(const std::string& kind, unsigned sms) {
  if (kind == "crash") {
    // Each crash in a fresh process, as a grading's replacement runners are.
    for (;;) {
      const pid_t pid = fork();
      if (pid == 0) {
        enter_partition(sms);
        float* p = nullptr;
        check(cudaMalloc(&p, 1024), "cudaMalloc");
        stray<<<132 * 16, 256>>>(p + (1L << 34));
        (void)cudaDeviceSynchronize();
        _exit(0);
      }
      waitpid(pid, nullptr, 0);
    }
  }
  enter_partition(sms);
  if (kind == "deadlock") {
    spin<<<132 * 8, 256>>>();
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  }
  float* c = nullptr;
  check(cudaMalloc(&c, 1024), "cudaMalloc");
  for (;;) {
    if (kind == "grid")
      early_return<<<dim3(65535, 4096), dim3(kTile, kTile)>>>(c);
    else if (kind == "printf")
      chatter<<<256, 256>>>();
    else {
      std::fprintf(stderr, "hog_latency: unknown hog %s\n", kind.c_str());
      return 2;
    }
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 3 && std::strcmp(argv[1], "victim") == 0) return victim(std::atof(argv[2]));
  if (argc >= 3 && std::strcmp(argv[1], "hog") == 0) return hog(argv[2], argc >= 4 ? std::atoi(argv[3]) : 0);
  std::fprintf(stderr, "usage: hog_latency victim SECONDS | hog deadlock|grid|printf|crash [SMS]\n");
  return 2;
}
