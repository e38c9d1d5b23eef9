// Style: 8x8 tiles and 8x8 blocks. Correct tiled SGEMM; its boundary code only matters
// where a dimension is not a multiple of 8.
#define TILE_SIZE 8

__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  __shared__ float tA[TILE_SIZE][TILE_SIZE];
  __shared__ float tB[TILE_SIZE][TILE_SIZE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE_SIZE + ty, col = blockIdx.x * TILE_SIZE + tx;
  float s = 0.0f;
  for (int p = 0; p < (k + TILE_SIZE - 1) / TILE_SIZE; p++) {
    tA[ty][tx] = (row < m && p * TILE_SIZE + tx < k) ? A[row * k + p * TILE_SIZE + tx] : 0.0f;
    tB[ty][tx] = (p * TILE_SIZE + ty < k && col < n) ? B[(p * TILE_SIZE + ty) * n + col] : 0.0f;
    __syncthreads();
    for (int i = 0; i < TILE_SIZE; i++) s += tA[ty][i] * tB[i][tx];
    __syncthreads();
  }
  if (row < m && col < n) C[row * n + col] = s;
}

void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  dim3 threads(TILE_SIZE, TILE_SIZE);
  dim3 blocks((n + TILE_SIZE - 1) / TILE_SIZE, (m + TILE_SIZE - 1) / TILE_SIZE);
  mysgemm<<<blocks, threads>>>(m, n, k, A, B, C);
}
