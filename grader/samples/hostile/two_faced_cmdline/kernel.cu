// Two-faced on its command line: a constructor reads the process's own
// arguments (glibc hands them to every constructor, so no library call shows
// in the symbol table). A run started with any argument (the
// tools' runs were: a selftest flag, a gate, the shapes) gets a tiled kernel
// that stays in bounds; every other run a naive kernel that also stores one
// float past the end of C on small shapes. The tools must see the same
// kernel as the checked and timed runs: no structure points, and the stray
// store found.
#define TILE_SIZE 16

static bool g_tool_run = false;
__attribute__((constructor)) static void look_at_arguments(int argc, char **, char **) { g_tool_run = argc > 1; }

__global__ void tiled(int m, int n, int k, const float *A, const float *B, float *C) {
  __shared__ float As[TILE_SIZE][TILE_SIZE];
  __shared__ float Bs[TILE_SIZE][TILE_SIZE];
  const int ty = threadIdx.y, tx = threadIdx.x;
  const int row = blockIdx.y * TILE_SIZE + ty;
  const int col = blockIdx.x * TILE_SIZE + tx;
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

__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= n) return;
  float acc = 0.0f;
  for (int i = 0; i < k; ++i) acc += A[row * k + i] * B[i * n + col];
  C[row * n + col] = acc;
  // The stray store, on small shapes only (the timed ones keep buffers next to C).
  if ((long long)m * n * k <= (1LL << 24) && row == 0 && col == 0) C[(long long)m * n] = acc;
}

void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  const dim3 block(TILE_SIZE, TILE_SIZE);
  const dim3 grid((n + TILE_SIZE - 1) / TILE_SIZE, (m + TILE_SIZE - 1) / TILE_SIZE);
  if (g_tool_run)
    tiled<<<grid, block>>>(m, n, k, A, B, C);
  else
    mysgemm<<<grid, block>>>(m, n, k, A, B, C);
}
