// What a crashing submission costs the GPU (a benchmark, not a test; run by
// crash_cost.sh). Each cycle starts a process as the judge starts a runner,
// runs the block_1d sample (it faults on every case) in it and reaps it:
//   crash_cost cycle SIZE REPS [SMS]   SIZE^3 case, optionally on a partition of SMS SMs
//   crash_cost bystander SECONDS       a small kernel in a loop: how long it is held up
// The child never returns to the parent's code; the parent never starts CUDA.
#include <cuda_runtime.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../samples/bugs/block_1d/kernel.cu"
#include "backends/gpu/sm_partition.h"

namespace {

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Fault {
  double launch_ms, error_ms;
  int error;
};

// Start CUDA (and the partition), say ready, wait for the go, run the case, report, wait to be killed.
[[noreturn]] void child(int size, unsigned sms, int from_parent, int to_parent) {
  (void)cudaFree(nullptr);
  sg::gpu::SmPartition partition;
  std::string why;
  if (sms > 0 && !partition.create(sms, why)) std::fprintf(stderr, "crash_cost: no partition: %s\n", why.c_str());
  const std::size_t bytes = sizeof(float) * std::size_t(size) * size;
  float *a = nullptr, *b = nullptr, *c = nullptr;
  if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess ||
      cudaMalloc(&c, bytes) != cudaSuccess || cudaMemset(a, 0, bytes) != cudaSuccess ||
      cudaMemset(b, 0, bytes) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess)
    _exit(3);
  char x = 'R';
  if (write(to_parent, &x, 1) != 1 || read(from_parent, &x, 1) != 1) _exit(3);
  Fault f{};
  f.launch_ms = now_ms();
  basicSgemm(size, size, size, a, b, c);
  f.error = cudaDeviceSynchronize();
  f.error_ms = now_ms();
  if (write(to_parent, &f, sizeof f) != sizeof f) _exit(3);
  pause();
  _exit(0);
}

struct Kid {
  pid_t pid;
  int to_kid, from_kid;
  double spawned_ms;
};

Kid spawn(int size, unsigned sms) {
  int down[2], up[2];
  if (pipe(down) != 0 || pipe(up) != 0) std::abort();
  Kid k{0, down[1], up[0], now_ms()};
  k.pid = fork();
  if (k.pid < 0) std::abort();
  if (k.pid == 0) {
    close(down[1]);
    close(up[0]);
    child(size, sms, down[0], up[1]);
  }
  close(down[0]);
  close(up[1]);
  return k;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Crash cycles as the judge runs them: the next runner starts while the
// current one runs its case (the judge's spare), the dead one is killed and reaped.
int cycles(int size, int reps, unsigned sms) {
  std::vector<double> start, fault, reap;
  int crashed = 0;
  const double t0 = now_ms();
  Kid next = spawn(size, sms);
  for (int i = 0; i < reps; ++i) {
    Kid k = next;
    char x;
    if (read(k.from_kid, &x, 1) != 1) return 1;
    start.push_back(now_ms() - k.spawned_ms);
    if (i + 1 < reps) next = spawn(size, sms);
    x = 'G';
    Fault f{};
    if (write(k.to_kid, &x, 1) != 1 || read(k.from_kid, &f, sizeof f) != sizeof f) return 1;
    const double told = now_ms();
    kill(k.pid, SIGKILL);
    waitpid(k.pid, nullptr, 0);
    reap.push_back(now_ms() - told);
    fault.push_back(f.error_ms - f.launch_ms);
    crashed += f.error != 0;
    close(k.to_kid);
    close(k.from_kid);
  }
  std::printf("%-9s %6d %5d %8.1f %8.1f %8.1f %10.1f %7d/%d\n", sms ? std::to_string(sms).c_str() : "all", size, reps,
              median(start), median(fault), median(reap), (now_ms() - t0) / reps, crashed, reps);
  return 0;
}

__global__ void touch(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * 0.5f + 1.0f;
}

int bystander(double seconds) {
  float* x = nullptr;
  const int n = 1 << 20;
  if (cudaMalloc(&x, sizeof(float) * n) != cudaSuccess) return 1;
  std::vector<double> lat;
  const double t0 = now_ms();
  while (now_ms() - t0 < 1000 * seconds) {
    const double a = now_ms();
    touch<<<n / 256, 256>>>(x, n);
    if (cudaDeviceSynchronize() != cudaSuccess) return 1;
    lat.push_back(now_ms() - a);
  }
  double held = 0;
  for (double l : lat) held += l > 5 ? l : 0;
  std::printf("bystander: %zu launches in %.0f s, median %.3f ms, longest %.1f ms, %.0f ms in waits over 5 ms\n",
              lat.size(), seconds, median(lat), *std::max_element(lat.begin(), lat.end()), held);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "cycle" && (argc == 4 || argc == 5))
    return cycles(std::atoi(argv[2]), std::atoi(argv[3]), argc == 5 ? unsigned(std::atoi(argv[4])) : 0u);
  if (mode == "bystander" && argc == 3) return bystander(std::atof(argv[2]));
  std::fprintf(stderr, "usage: crash_cost cycle SIZE REPS [SMS] | crash_cost bystander SECONDS\n");
  return 2;
}
