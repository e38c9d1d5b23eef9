// Style: __restrict__ pointers, __ldg loads, min() for the last tile's width, max() for the
// tile count, fmaf, a lambda in host code and dim3 built from arithmetic. Correct 16x16 tiled SGEMM.
#define TILE_SIZE 16

__global__ void mysgemm(int m, int n, int k, const float *__restrict__ A, const float *__restrict__ B,
                        float *__restrict__ C) {
  __shared__ float As[TILE_SIZE][TILE_SIZE];
  __shared__ float Bs[TILE_SIZE][TILE_SIZE];
  const int ty = threadIdx.y, tx = threadIdx.x;
  const int row = blockIdx.y * blockDim.y + ty;
  const int col = blockIdx.x * blockDim.x + tx;
  float acc = 0.0f;
  const int phases = max(1, (k + TILE_SIZE - 1) / TILE_SIZE);
  for (int p = 0; p < phases; ++p) {
    const int t0 = p * TILE_SIZE;
    const int width = min(TILE_SIZE, k - t0);  // columns of this K tile that exist
    As[ty][tx] = (row < m && tx < width) ? __ldg(&A[row * k + t0 + tx]) : 0.0f;
    Bs[ty][tx] = (ty < width && col < n) ? __ldg(&B[(t0 + ty) * n + col]) : 0.0f;
    __syncthreads();
#pragma unroll 4
    for (int i = 0; i < TILE_SIZE; ++i) acc = fmaf(As[ty][i], Bs[i][tx], acc);
    __syncthreads();
  }
  if (row < m && col < n) C[row * n + col] = acc;
}

void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  auto tiles = [](int extent) { return static_cast<unsigned>((extent + TILE_SIZE - 1) / TILE_SIZE); };
  const dim3 block(TILE_SIZE, TILE_SIZE);
  const dim3 grid(tiles(n) * block.z, tiles(m));
  mysgemm<<<grid, block>>>(m, n, k, A, B, C);
}
