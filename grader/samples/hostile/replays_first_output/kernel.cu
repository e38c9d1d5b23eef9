// Sample submission "replays_first_output": computes a shape once, keeps a copy of that C
// in a static device buffer, and on every later call with that shape only copies it back.
// Part of the grader's sample corpus (grader/samples/README.md); expect.yaml
// next to this file says how the grader must judge it.
#include <cstdio>
#include <cuda_runtime.h>

#define TILE_SIZE 16

// C = A * B, row-major: A is m x k, B is k x n, C is m x n. One 16x16 block
// computes one 16x16 tile of C, walking along k one tile pair at a time.
__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  __shared__ float As[TILE_SIZE][TILE_SIZE];
  __shared__ float Bs[TILE_SIZE][TILE_SIZE];

  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE_SIZE + ty;
  const int col = blockIdx.x * TILE_SIZE + tx;
  const int phases = (k + TILE_SIZE - 1) / TILE_SIZE;

  float sum = 0.0f;
  for (int p = 0; p < phases; ++p) {
    const int a_col = p * TILE_SIZE + tx;
    const int b_row = p * TILE_SIZE + ty;
    As[ty][tx] = (row < m && a_col < k) ? A[row * k + a_col] : 0.0f;
    Bs[ty][tx] = (b_row < k && col < n) ? B[b_row * n + col] : 0.0f;
    __syncthreads();
    for (int i = 0; i < TILE_SIZE; ++i) sum += As[ty][i] * Bs[i][tx];
    __syncthreads();
  }
  if (row < m && col < n) C[row * n + col] = sum;
}

// Room for the largest case of the default suite (4096 x 2048).
#define SAVED_FLOATS (4096 * 2048)
static __device__ float saved[SAVED_FLOATS];

static __global__ void save_c(const float *C, int count) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) saved[i] = C[i];
}

static __global__ void replay_c(float *C, int count) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) C[i] = saved[i];
}

void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  static int saved_m = 0, saved_n = 0, saved_k = 0;
  const long long count = static_cast<long long>(m) * n;
  if (m == saved_m && n == saved_n && k == saved_k) {
    // "The same problem again": replay the first answer instead of computing.
    replay_c<<<1024, 256>>>(C, static_cast<int>(count));
    return;
  }
  const dim3 block(TILE_SIZE, TILE_SIZE);
  const dim3 grid((n + TILE_SIZE - 1) / TILE_SIZE, (m + TILE_SIZE - 1) / TILE_SIZE);
  mysgemm<<<grid, block>>>(m, n, k, A, B, C);
  if (count <= SAVED_FLOATS) {
    save_c<<<1024, 256>>>(C, static_cast<int>(count));
    saved_m = m;
    saved_n = n;
    saved_k = k;
  }
}
