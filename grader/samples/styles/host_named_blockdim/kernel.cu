// Style: host variables named blockDim and gridDim (legal: nvcc only gives those names
// their meaning inside device code). Correct 16x16 tiled SGEMM.
#define TILE_SIZE 16

__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  __shared__ float sA[TILE_SIZE][TILE_SIZE];
  __shared__ float sB[TILE_SIZE][TILE_SIZE];
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  float value = 0;
  for (int tile = 0; tile < (k - 1) / TILE_SIZE + 1; ++tile) {
    int ka = tile * TILE_SIZE + threadIdx.x;
    int kb = tile * TILE_SIZE + threadIdx.y;
    if (row < m && ka < k) sA[threadIdx.y][threadIdx.x] = A[row * k + ka];
    else sA[threadIdx.y][threadIdx.x] = 0;
    if (kb < k && col < n) sB[threadIdx.y][threadIdx.x] = B[kb * n + col];
    else sB[threadIdx.y][threadIdx.x] = 0;
    __syncthreads();
    for (int i = 0; i < TILE_SIZE; ++i) value += sA[threadIdx.y][i] * sB[i][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n) C[row * n + col] = value;
}

void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  dim3 blockDim(TILE_SIZE, TILE_SIZE);
  dim3 gridDim((n - 1) / TILE_SIZE + 1, (m - 1) / TILE_SIZE + 1);
  mysgemm<<<gridDim, blockDim>>>(m, n, k, A, B, C);
}
