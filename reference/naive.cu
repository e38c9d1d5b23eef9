// Naive baseline: one thread per element of C, reading A and B straight from
// global memory (no shared memory). The grader times it beside the tiled
// reference. A drop-in for student/kernel.cu, and also built under other
// names:
//   nvcc -c naive.cu -Dmysgemm=ref_naive_kernel -DbasicSgemm=ref_naive_sgemm
// so the two functions below must stay the only symbols this file defines.

#include <cstdio>

#define TILE_SIZE 16

__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= n) return;  // no barriers here, so early exit is safe

  float sum = 0.0f;
  for (int e = 0; e < k; ++e) sum += A[row * k + e] * B[e * n + col];
  C[row * n + col] = sum;
}

void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  // Same block shape as the tiled kernel so the comparison is like for like.
  const dim3 block(TILE_SIZE, TILE_SIZE);
  const dim3 grid((n + TILE_SIZE - 1) / TILE_SIZE, (m + TILE_SIZE - 1) / TILE_SIZE);
  mysgemm<<<grid, block>>>(m, n, k, A, B, C);
}
