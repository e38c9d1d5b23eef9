// Style: a non-static host helper that computes the grid, dim3 gridFor(m, n).
// Correct 16x16 tiled SGEMM.
#define TILE_SIZE 16

__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  __shared__ float As[TILE_SIZE][TILE_SIZE];
  __shared__ float Bs[TILE_SIZE][TILE_SIZE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE_SIZE + ty;
  int col = blockIdx.x * TILE_SIZE + tx;
  float sum = 0.0f;
  int phases = (k + TILE_SIZE - 1) / TILE_SIZE;
  for (int p = 0; p < phases; ++p) {
    int a_col = p * TILE_SIZE + tx;
    int b_row = p * TILE_SIZE + ty;
    As[ty][tx] = (row < m && a_col < k) ? A[row * k + a_col] : 0.0f;
    Bs[ty][tx] = (b_row < k && col < n) ? B[b_row * n + col] : 0.0f;
    __syncthreads();
    for (int i = 0; i < TILE_SIZE; ++i) sum += As[ty][i] * Bs[i][tx];
    __syncthreads();
  }
  if (row < m && col < n) C[row * n + col] = sum;
}

dim3 gridFor(int m, int n) {
  return dim3((n + TILE_SIZE - 1) / TILE_SIZE, (m + TILE_SIZE - 1) / TILE_SIZE);
}

void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  mysgemm<<<gridFor(m, n), dim3(TILE_SIZE, TILE_SIZE)>>>(m, n, k, A, B, C);
}
