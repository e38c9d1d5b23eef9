// A neighbour for grader/bench/neighbour_fairness.sh: a right tiled kernel
// launched on a grid far larger than C needs (65535 x 4096 blocks, the extra
// ones return at once), which keeps the GPU busy for each launch.
#define TILE_SIZE 16

__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  __shared__ float As[TILE_SIZE][TILE_SIZE];
  __shared__ float Bs[TILE_SIZE][TILE_SIZE];
  const int ty = threadIdx.y, tx = threadIdx.x;
  const int row = blockIdx.y * TILE_SIZE + ty;
  const int col = blockIdx.x * TILE_SIZE + tx;
  if (blockIdx.y * TILE_SIZE >= m || blockIdx.x * TILE_SIZE >= n) return;  // HUGE-GRID
  float acc = 0.0f;
  for (int base = 0; base < k; base += TILE_SIZE) {
    As[ty][tx] = (row < m && base + tx < k) ? A[row * k + base + tx] : 0.0f;
    Bs[ty][tx] = (base + ty < k && col < n) ? B[(base + ty) * n + col] : 0.0f;
    __syncthreads();
    for (int i = 0; i < TILE_SIZE; ++i) acc += As[ty][i] * Bs[i][tx];
    __syncthreads();
  }
  if (row < m && col < n) C[row * n + col] = acc;
}

void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  const dim3 block(TILE_SIZE, TILE_SIZE);
  const dim3 grid(65535, 4096);
  mysgemm<<<grid, block>>>(m, n, k, A, B, C);
}
