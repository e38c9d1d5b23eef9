// One CUDA process's start-up in steps, for context_cost.sh: cuInit, the
// first context (cudaFree(0)), optionally 15 small launches and a
// cudaDeviceReset, and how it ends. Prints "P init ctx work reset total" in
// milliseconds, measured inside the process (its end is measured outside).
//   context_cost MODE   (init | ctx | ctx_exit | ctx_reset | launch)
#include <cuda.h>
#include <cuda_runtime.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>

namespace {

__global__ void touch(float* p) { p[threadIdx.x] += 1; }

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "ctx";
  const auto t0 = Clock::now();
  if (cuInit(0) != CUDA_SUCCESS) return 1;
  const double init = ms_since(t0);
  double ctx = 0, work = 0, reset = 0;
  if (std::strcmp(mode, "init") != 0) {
    const auto t1 = Clock::now();
    if (cudaFree(nullptr) != cudaSuccess) return 2;
    ctx = ms_since(t1);
    const auto t2 = Clock::now();
    if (std::strcmp(mode, "launch") == 0) {
      float* p = nullptr;
      if (cudaMalloc(&p, 4096) != cudaSuccess) return 3;
      for (int i = 0; i < 15; ++i) touch<<<1, 32>>>(p);
      if (cudaDeviceSynchronize() != cudaSuccess) return 4;
    }
    work = ms_since(t2);
    const auto t3 = Clock::now();
    if (std::strcmp(mode, "ctx_reset") == 0 && cudaDeviceReset() != cudaSuccess) return 5;
    reset = ms_since(t3);
  }
  std::printf("P %.1f %.1f %.1f %.1f %.1f\n", init, ctx, work, reset, ms_since(t0));
  std::fflush(stdout);
  if (std::strcmp(mode, "ctx_exit") == 0) _exit(0);  // no cudart teardown
  return 0;
}
