// Sample submission "dead_tiled_if0": a naive kernel, with a tiled version
// inside `#if 0` that is never compiled. A structure check that read the
// source text without preprocessing it would find __shared__ and
// __syncthreads there; the loads the running kernel makes say naive.
// Part of the grader's sample corpus (grader/samples/README.md); expect.yaml
// next to this file says how the grader must judge it.
#include <cuda_runtime.h>

#define TILE_SIZE 16

#if 0
__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  __shared__ float tileA[TILE_SIZE][TILE_SIZE];
  __shared__ float tileB[TILE_SIZE][TILE_SIZE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE_SIZE + ty, col = blockIdx.x * TILE_SIZE + tx;
  float sum = 0.0f;
  for (int p = 0; p < (k + TILE_SIZE - 1) / TILE_SIZE; ++p) {
    tileA[ty][tx] = (row < m && p * TILE_SIZE + tx < k) ? A[row * k + p * TILE_SIZE + tx] : 0.0f;
    tileB[ty][tx] = (p * TILE_SIZE + ty < k && col < n) ? B[(p * TILE_SIZE + ty) * n + col] : 0.0f;
    __syncthreads();
    for (int e = 0; e < TILE_SIZE; ++e) sum += tileA[ty][e] * tileB[e][tx];
    __syncthreads();
  }
  if (row < m && col < n) C[row * n + col] = sum;
}
#else
__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= n) return;
  float sum = 0.0f;
  for (int e = 0; e < k; ++e) sum += A[row * k + e] * B[e * n + col];
  C[row * n + col] = sum;
}
#endif

void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  const dim3 block(TILE_SIZE, TILE_SIZE);
  const dim3 grid((n + TILE_SIZE - 1) / TILE_SIZE, (m + TILE_SIZE - 1) / TILE_SIZE);
  mysgemm<<<grid, block>>>(m, n, k, A, B, C);
}
