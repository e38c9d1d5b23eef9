// Sample submission "launches_other_kernel": the tiled kernel is named
// mysgemm_tiled and basicSgemm launches it; mysgemm itself is a naive kernel
// kept from an earlier version and never launched (seen in a real student's
// file). The kernel that runs is tiled: full marks on both backends, whose
// structure figure counts the loads of what basicSgemm launches.
// Part of the grader's sample corpus (grader/samples/README.md); expect.yaml
// next to this file says how the grader must judge it.
#include <cuda_runtime.h>

#define TILE_SIZE 16

// The first version, no longer used.
__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= n) return;
  float sum = 0.0f;
  for (int e = 0; e < k; ++e) sum += A[row * k + e] * B[e * n + col];
  C[row * n + col] = sum;
}

static __global__ void mysgemm_tiled(int m, int n, int k, const float *A, const float *B, float *C) {
  __shared__ float tileA[TILE_SIZE][TILE_SIZE];
  __shared__ float tileB[TILE_SIZE][TILE_SIZE];

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
  mysgemm_tiled<<<grid, block>>>(m, n, k, A, B, C);
}
