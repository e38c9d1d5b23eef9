// Sample submission "device_tile": the reference 16x16 tiled kernel with its
// tiles declared __device__ (arrays in global memory, one for the whole GPU)
// instead of __shared__ (one per block). An honest mistake: on a GPU every
// resident block writes the same two tiles, so a block reads the tiles that
// other blocks loaded in between its barriers.
// Part of the grader's sample corpus (grader/samples/README.md); expect.yaml
// next to this file says how the grader must judge it.
#include <cuda_runtime.h>

#define TILE_SIZE 16

// BUG: the tiles live in global memory, shared by every block of the grid.
__device__ float tileA[TILE_SIZE][TILE_SIZE];
__device__ float tileB[TILE_SIZE][TILE_SIZE];

__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE_SIZE + ty;
  const int col = blockIdx.x * TILE_SIZE + tx;

  float sum = 0.0f;
  const int phases = (k + TILE_SIZE - 1) / TILE_SIZE;
  for (int p = 0; p < phases; ++p) {
    const int aCol = p * TILE_SIZE + tx;
    const int bRow = p * TILE_SIZE + ty;
    tileA[ty][tx] = (row < m && aCol < k) ? A[row * k + aCol] : 0.0f;
    tileB[ty][tx] = (bRow < k && col < n) ? B[bRow * n + col] : 0.0f;
    __syncthreads();
    for (int e = 0; e < TILE_SIZE; ++e) sum += tileA[ty][e] * tileB[e][tx];
    __syncthreads();
  }
  if (row < m && col < n) C[row * n + col] = sum;
}

void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  const dim3 block(TILE_SIZE, TILE_SIZE);
  const dim3 grid((n + TILE_SIZE - 1) / TILE_SIZE, (m + TILE_SIZE - 1) / TILE_SIZE);
  mysgemm<<<grid, block>>>(m, n, k, A, B, C);
}
