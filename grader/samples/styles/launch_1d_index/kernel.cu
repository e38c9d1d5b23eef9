// Style: 1-D launch. Each block has 256 threads laid out as a 16x16 tile by
// threadIdx.x % 16 and threadIdx.x / 16, and a 1-D grid numbers the tiles of C row by row.
// Correct tiled SGEMM.
#define TILE_SIZE 16

__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  __shared__ float As[TILE_SIZE * TILE_SIZE];
  __shared__ float Bs[TILE_SIZE * TILE_SIZE];
  const int tiles_across = (n + TILE_SIZE - 1) / TILE_SIZE;
  const int tile_row = blockIdx.x / tiles_across, tile_col = blockIdx.x % tiles_across;
  const int tx = threadIdx.x % TILE_SIZE, ty = threadIdx.x / TILE_SIZE;
  const int row = tile_row * TILE_SIZE + ty, col = tile_col * TILE_SIZE + tx;
  float acc = 0.0f;
  for (int t0 = 0; t0 < k; t0 += TILE_SIZE) {
    As[threadIdx.x] = (row < m && t0 + tx < k) ? A[row * k + t0 + tx] : 0.0f;
    Bs[threadIdx.x] = (t0 + ty < k && col < n) ? B[(t0 + ty) * n + col] : 0.0f;
    __syncthreads();
    for (int i = 0; i < TILE_SIZE; ++i) acc += As[ty * TILE_SIZE + i] * Bs[i * TILE_SIZE + tx];
    __syncthreads();
  }
  if (row < m && col < n) C[row * n + col] = acc;
}

void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  const int tiles = ((m + TILE_SIZE - 1) / TILE_SIZE) * ((n + TILE_SIZE - 1) / TILE_SIZE);
  mysgemm<<<tiles, TILE_SIZE * TILE_SIZE>>>(m, n, k, A, B, C);
}
