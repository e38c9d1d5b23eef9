// Reference solution: the 16 x 16 shared-memory tiled SGEMM a student is
// expected to write. A drop-in for student/kernel.cu (same contract, same
// includes). Kept deliberately plain (one output element per thread, no
// register tiling) because the grader times students against it.
//
// The grader also builds it under other names, e.g.
//   nvcc -c kernel.cu -Dmysgemm=ref_tiled_kernel -DbasicSgemm=ref_tiled_sgemm
// so the two functions below must stay the only symbols this file defines.

#include <cstdio>

#define TILE_SIZE 16

__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  __shared__ float tileA[TILE_SIZE][TILE_SIZE];
  __shared__ float tileB[TILE_SIZE][TILE_SIZE];

  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE_SIZE + ty;  // y walks the rows of C
  const int col = blockIdx.x * TILE_SIZE + tx;  // x walks the columns of C

  float sum = 0.0f;
  const int phases = (k + TILE_SIZE - 1) / TILE_SIZE;  // the last one may be partial
  for (int p = 0; p < phases; ++p) {
    // Each thread stages one element of each tile. Elements past the edge of
    // A or B become 0, so they add nothing to the sums below; every thread
    // still takes part, since all of them must reach the barriers.
    const int aCol = p * TILE_SIZE + tx;
    const int bRow = p * TILE_SIZE + ty;
    tileA[ty][tx] = (row < m && aCol < k) ? A[row * k + aCol] : 0.0f;
    tileB[ty][tx] = (bRow < k && col < n) ? B[bRow * n + col] : 0.0f;
    __syncthreads();  // both tiles complete before anyone reads them

    for (int e = 0; e < TILE_SIZE; ++e) sum += tileA[ty][e] * tileB[e][tx];
    __syncthreads();  // everyone done reading before the next phase overwrites
  }

  if (row < m && col < n) C[row * n + col] = sum;
}

void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  const dim3 block(TILE_SIZE, TILE_SIZE);
  const dim3 grid((n + TILE_SIZE - 1) / TILE_SIZE, (m + TILE_SIZE - 1) / TILE_SIZE);
  // Launch only; the caller checks cudaGetLastError and synchronises.
  mysgemm<<<grid, block>>>(m, n, k, A, B, C);
}
