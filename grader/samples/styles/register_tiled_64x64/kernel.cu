// Style: register tiling. A 16x16 block computes a 64x64 tile of C, each
// thread a 4x4 patch held in registers; per K step the block stages a 64x16
// slice of A and a 16x64 slice of B in shared memory (four values each per
// thread). Every value loaded from global memory serves 64 multiply-adds.
#define TILE_SIZE 16
#define BLOCK_TILE 64
#define PATCH 4

__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  __shared__ float As[BLOCK_TILE][TILE_SIZE];
  __shared__ float Bs[TILE_SIZE][BLOCK_TILE];
  const int ty = threadIdx.y, tx = threadIdx.x;
  const int row0 = blockIdx.y * BLOCK_TILE, col0 = blockIdx.x * BLOCK_TILE;
  float acc[PATCH][PATCH] = {};
  for (int base = 0; base < k; base += TILE_SIZE) {
    // Rows ty, ty+16, ty+32, ty+48 of the A slice; the same rows of the B slice's columns.
    for (int p = 0; p < PATCH; ++p) {
      const int r = ty + p * TILE_SIZE;
      As[r][tx] = (row0 + r < m && base + tx < k) ? A[(row0 + r) * k + base + tx] : 0.0f;
      const int c = tx + p * TILE_SIZE;
      Bs[ty][c] = (base + ty < k && col0 + c < n) ? B[(base + ty) * n + col0 + c] : 0.0f;
    }
    __syncthreads();
    for (int i = 0; i < TILE_SIZE; ++i) {
      float a[PATCH], b[PATCH];
      for (int p = 0; p < PATCH; ++p) {
        a[p] = As[ty + p * TILE_SIZE][i];
        b[p] = Bs[i][tx + p * TILE_SIZE];
      }
      for (int p = 0; p < PATCH; ++p)
        for (int q = 0; q < PATCH; ++q) acc[p][q] += a[p] * b[q];
    }
    __syncthreads();
  }
  for (int p = 0; p < PATCH; ++p)
    for (int q = 0; q < PATCH; ++q) {
      const int row = row0 + ty + p * TILE_SIZE, col = col0 + tx + q * TILE_SIZE;
      if (row < m && col < n) C[row * n + col] = acc[p][q];
    }
}

void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  const dim3 block(TILE_SIZE, TILE_SIZE);
  const dim3 grid((n + BLOCK_TILE - 1) / BLOCK_TILE, (m + BLOCK_TILE - 1) / BLOCK_TILE);
  mysgemm<<<grid, block>>>(m, n, k, A, B, C);
}
