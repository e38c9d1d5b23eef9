// Sample submission "square_grid_max_dim": a correct 16x16 tiled kernel
// launched wastefully, as real students do: one square grid and one K loop,
// both sized by the largest of m, n and k. Spare blocks and spare K tiles
// are guarded (they load zeros and store nothing), so every result is right.
// Part of the grader's sample corpus (grader/samples/README.md); expect.yaml
// next to this file says how the grader must judge it.
#include <cuda_runtime.h>

#define TILE 16

__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  const int largest = max(m, max(n, k));
  const int tiles = (largest + TILE - 1) / TILE;
  __shared__ float a_tile[TILE][TILE];
  __shared__ float b_tile[TILE][TILE];
  const int row = blockIdx.y * TILE + threadIdx.y;
  const int col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < tiles; ++t) {
    const int ak = t * TILE + threadIdx.x, bk = t * TILE + threadIdx.y;
    a_tile[threadIdx.y][threadIdx.x] = (row < m && ak < k) ? A[row * k + ak] : 0.0f;
    b_tile[threadIdx.y][threadIdx.x] = (bk < k && col < n) ? B[bk * n + col] : 0.0f;
    __syncthreads();
    for (int i = 0; i < TILE; ++i) acc += a_tile[threadIdx.y][i] * b_tile[i][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n) C[row * n + col] = acc;
}

void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  int largest = m > n ? m : n;
  if (k > largest) largest = k;
  const int tiles = (largest + TILE - 1) / TILE;
  mysgemm<<<dim3(tiles, tiles), dim3(TILE, TILE)>>>(m, n, k, A, B, C);
}
