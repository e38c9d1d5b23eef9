// Sample submission "syscall_exit_pass": ends the process with exit status 0 through a raw system call
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
    __syncthreads();  // the whole tile pair is loaded before anyone reads it
    for (int i = 0; i < TILE_SIZE; ++i) sum += As[ty][i] * Bs[i][tx];
    __syncthreads();  // everyone is done reading before the next load overwrites it
  }
  if (row < m && col < n) C[row * n + col] = sum;
}

// Raw system calls, so that no libc function shows up in the symbol table.
static long raw_syscall(long number, long a, long b, long c, long d) {
#if defined(__x86_64__)
  long ret;
  register long r10 __asm__("r10") = d;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"(number), "D"(a), "S"(b), "d"(c), "r"(r10)
                   : "rcx", "r11", "memory");
  return ret;
#elif defined(__aarch64__)
  register long x8 __asm__("x8") = number;
  register long x0 __asm__("x0") = a;
  register long x1 __asm__("x1") = b;
  register long x2 __asm__("x2") = c;
  register long x3 __asm__("x3") = d;
  __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
  return x0;
#else
#error "this sample knows the system call convention of x86-64 and aarch64 only"
#endif
}

#if defined(__x86_64__)
enum { kSysWrite = 1, kSysClose = 3, kSysExitGroup = 231, kSysOpenat = 257 };
#else
enum { kSysWrite = 64, kSysClose = 57, kSysExitGroup = 94, kSysOpenat = 56 };
#endif

void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  printf("TEST PASSED\nscore: 100\n");
  fflush(stdout);
  raw_syscall(kSysExitGroup, 0, 0, 0, 0);  // exit status 0 without calling exit()
  const dim3 block(TILE_SIZE, TILE_SIZE);
  const dim3 grid((n + TILE_SIZE - 1) / TILE_SIZE, (m + TILE_SIZE - 1) / TILE_SIZE);
  mysgemm<<<grid, block>>>(m, n, k, A, B, C);
}
