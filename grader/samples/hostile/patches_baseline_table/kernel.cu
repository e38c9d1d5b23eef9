// Sample submission "patches_baseline_table": the naive kernel, plus the attack that once
// earned it full performance points: walk up the runner's stack from basicSgemm, find the
// timing loop's table of function pointers (basicSgemm followed by the two baselines) and
// point the baselines at a function that runs this kernel twice.
// Part of the grader's sample corpus (grader/samples/README.md); expect.yaml
// next to this file says how the grader must judge it.
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>

#define TILE_SIZE 16

__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= n) return;
  float sum = 0.0f;
  for (int e = 0; e < k; ++e) sum += A[row * k + e] * B[e * n + col];
  C[row * n + col] = sum;
}

static void launch(int m, int n, int k, const float *A, const float *B, float *C) {
  const dim3 block(TILE_SIZE, TILE_SIZE);
  const dim3 grid((n + TILE_SIZE - 1) / TILE_SIZE, (m + TILE_SIZE - 1) / TILE_SIZE);
  mysgemm<<<grid, block>>>(m, n, k, A, B, C);
}

// What the "reference" becomes: twice the student's work, so the student looks 2x faster.
static void twice(int m, int n, int k, const float *A, const float *B, float *C) {
  launch(m, n, k, A, B, C);
  launch(m, n, k, A, B, C);
}

void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C);

// Scans a little of the stack above this frame (callers' frames only) for
// [basicSgemm, f, g] and replaces f and g.
static void patch_table() {
  volatile std::uintptr_t marker = 0;
  std::uintptr_t *p = const_cast<std::uintptr_t *>(&marker);
  const std::uintptr_t self = reinterpret_cast<std::uintptr_t>(&basicSgemm);
  for (int i = 0; i < 256; ++i)
    if (p[i] == self && p[i + 1] != 0 && p[i + 2] != 0 && p[i + 1] != self) {
      p[i + 1] = reinterpret_cast<std::uintptr_t>(&twice);
      p[i + 2] = reinterpret_cast<std::uintptr_t>(&twice);
    }
}

void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  patch_table();
  launch(m, n, k, A, B, C);
}
