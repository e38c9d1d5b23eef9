// Style: the tile size as a constexpr and a function template (static, as a careful student
// writes it) for the guarded tile loads. Correct 16x16 tiled SGEMM.
constexpr int kTile = 16;
#define TILE_SIZE kTile

template <int T>
static __device__ void load_tiles(float (&a)[T][T], float (&b)[T][T], const float *A, const float *B,
                                  int m, int n, int k, int row, int col, int t0) {
  const int ty = threadIdx.y, tx = threadIdx.x;
  a[ty][tx] = (row < m && t0 + tx < k) ? A[row * k + t0 + tx] : 0.0f;
  b[ty][tx] = (t0 + ty < k && col < n) ? B[(t0 + ty) * n + col] : 0.0f;
}

__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  __shared__ float a[kTile][kTile];
  __shared__ float b[kTile][kTile];
  const int row = blockIdx.y * kTile + threadIdx.y;
  const int col = blockIdx.x * kTile + threadIdx.x;
  float acc = 0.0f;
  for (int t0 = 0; t0 < k; t0 += kTile) {
    load_tiles<kTile>(a, b, A, B, m, n, k, row, col, t0);
    __syncthreads();
    for (int i = 0; i < kTile; ++i) acc += a[threadIdx.y][i] * b[i][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n) C[row * n + col] = acc;
}

void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  constexpr unsigned kBlockSide = kTile;
  const dim3 block(kBlockSide, kBlockSide);
  const dim3 grid((n + kTile - 1) / kTile, (m + kTile - 1) / kTile);
  mysgemm<<<grid, block>>>(m, n, k, A, B, C);
}
