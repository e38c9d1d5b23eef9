// Sample submission "nan_kernel_beside_tiled": a correct tiled mysgemm that
// basicSgemm never launches; what it launches writes NaN into C. A check of
// the source or of mysgemm's compiled code finds shared memory and barriers;
// the kernel that runs computes nothing, so no check pays.
// Part of the grader's sample corpus (grader/samples/README.md); expect.yaml
// next to this file says how the grader must judge it.
#include <cuda_runtime.h>

#define TILE_SIZE 16

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

static __global__ void fill_nan(int count, float *C) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) C[i] = __int_as_float(0x7fc00000);
}

void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  (void)k;
  (void)A;
  (void)B;
  fill_nan<<<(m * n + 255) / 256, 256>>>(m * n, C);
}
