// Sample submission "split_k_atomic": a tiled kernel that splits the K
// dimension over blockIdx.z (four slices) and adds each block's partial sum
// into C with atomicAdd: correct whatever order the blocks of one output
// tile run in (the sum of four slices may round differently from one pass).
// Part of the grader's sample corpus (grader/samples/README.md); expect.yaml
// next to this file says how the grader must judge it.
#include <cuda_runtime.h>

#define TILE_SIZE 16
#define SPLITS 4

static __global__ void zero(int count, float *C) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) C[i] = 0.0f;
}

__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  __shared__ float tileA[TILE_SIZE][TILE_SIZE];
  __shared__ float tileB[TILE_SIZE][TILE_SIZE];

  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE_SIZE + ty;
  const int col = blockIdx.x * TILE_SIZE + tx;
  // This block's slice of the K tiles.
  const int phases = (k + TILE_SIZE - 1) / TILE_SIZE;
  const int per_slice = (phases + SPLITS - 1) / SPLITS;
  const int first = blockIdx.z * per_slice;
  const int last = min(phases, first + per_slice);

  float sum = 0.0f;
  for (int p = first; p < last; ++p) {
    const int aCol = p * TILE_SIZE + tx;
    const int bRow = p * TILE_SIZE + ty;
    tileA[ty][tx] = (row < m && aCol < k) ? A[row * k + aCol] : 0.0f;
    tileB[ty][tx] = (bRow < k && col < n) ? B[bRow * n + col] : 0.0f;
    __syncthreads();
    for (int e = 0; e < TILE_SIZE; ++e) sum += tileA[ty][e] * tileB[e][tx];
    __syncthreads();
  }
  // Several blocks add into the same element: atomically.
  if (row < m && col < n && first < last) atomicAdd(&C[row * n + col], sum);
}

void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  zero<<<(m * n + 255) / 256, 256>>>(m * n, C);
  const dim3 block(TILE_SIZE, TILE_SIZE);
  const dim3 grid((n + TILE_SIZE - 1) / TILE_SIZE, (m + TILE_SIZE - 1) / TILE_SIZE, SPLITS);
  mysgemm<<<grid, block>>>(m, n, k, A, B, C);
}
