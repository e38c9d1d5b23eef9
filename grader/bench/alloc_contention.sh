#!/usr/bin/env bash
# Why the runner and the oracle allocate from a stream-ordered pool (a
# benchmark, not a test; see grader/src/backends/gpu/device_pool.h). Times a case-like
# cycle (three 4 MiB buffers: allocate, upload, clear, download, free) with
# cudaMalloc/cudaFree and with cudaMallocAsync from a pool that keeps freed
# memory, alone and while four loops start and end CUDA processes beside it,
# as the other gradings on a shared GPU do. Usage: grader/bench/alloc_contention.sh
set -u
export PATH="$PATH:/usr/local/cuda/bin"
W=$(mktemp -d /tmp/sg-alloc-XXXXXX)
trap 'rm -rf "$W"' EXIT
cat >"$W/cycle.cu" <<'CU'
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#define CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
  std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e)); return 1; } } while (0)
int main(int argc, char** argv) {
  const bool pooled = argc > 1 && argv[1][0] == 'p';
  const int cycles = argc > 2 ? std::atoi(argv[2]) : 200;
  const std::size_t bytes = 4u << 20;
  CHECK(cudaFree(nullptr));
  if (pooled) {
    cudaMemPool_t pool;
    unsigned long long keep = ~0ull;
    CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
  }
  std::vector<char> host(bytes, 1);
  std::vector<double> ms;
  for (int i = 0; i < cycles; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::size_t size = bytes - (i % 7) * 4096;  // sizes vary a little, as cases do
    void* p[3];
    for (void*& q : p) CHECK(pooled ? cudaMallocAsync(&q, size, cudaStreamLegacy) : cudaMalloc(&q, size));
    CHECK(cudaMemcpy(p[0], host.data(), size, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(p[1], host.data(), size, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(p[2], 0xFF, size));
    CHECK(cudaMemcpy(host.data(), p[2], size, cudaMemcpyDeviceToHost));
    for (void* q : p) CHECK(pooled ? cudaFreeAsync(q, cudaStreamLegacy) : cudaFree(q));
    CHECK(cudaDeviceSynchronize());
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::vector<double> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  double total = 0;
  for (double x : ms) total += x;
  std::printf("%-8s %5d cycles: mean %7.2f ms, median %7.2f ms, worst %7.1f ms\n", pooled ? "pool" : "malloc",
              cycles, total / cycles, sorted[sorted.size() / 2], sorted.back());
  return 0;
}
CU
sed -i '1i #include <algorithm>' "$W/cycle.cu"
printf 'int main() { void* p; cudaFree(0); cudaMalloc(&p, 64 << 20); cudaMemset(p, 1, 64 << 20); return cudaDeviceSynchronize(); }\n' >"$W/start.cu"
nvcc -arch=native -o "$W/cycle" "$W/cycle.cu" && nvcc -arch=native -o "$W/start" "$W/start.cu" || exit 1
"$W/cycle" malloc 20 >/dev/null  # warm the driver
echo "alone:"
"$W/cycle" malloc
"$W/cycle" pool
echo "beside four loops of CUDA processes starting and ending:"
churn() { local end=$((SECONDS + $1)); while [[ $SECONDS -lt $end ]]; do "$W/start"; done; }
for _ in 1 2 3 4; do churn 20 & done
sleep 1
"$W/cycle" malloc
"$W/cycle" pool
wait
