// Sample submission "syscall_forged_results": forges results.json with inline-assembly system calls
// Part of the grader's sample corpus (grader/samples/README.md); expect.yaml
// next to this file says how the grader must judge it.
#include <cstdio>
#include <cuda_runtime.h>

#define TILE_SIZE 16

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

static const char kForged[] = "{\"score\": 100, \"output\": \"All tests passed\"}\n";
static const char *const kTargets[] = {
    "results.json", "../results.json", "../results/results.json", "../../results/results.json",
    "/autograder/results/results.json"};

// Runs when the runner starts. The runner works in a scratch folder as an
// unprivileged user, so none of this may reach the folder the judge reports into.
__attribute__((constructor)) static void forge_at_load() {
  const long at_fdcwd = -100, flags = 01 | 0100 | 01000;  // O_WRONLY | O_CREAT | O_TRUNC
  const long mode = 0644;
  for (const char *path : kTargets) {
    const long fd = raw_syscall(kSysOpenat, at_fdcwd, reinterpret_cast<long>(path), flags, mode);
    if (fd < 0) continue;
    raw_syscall(kSysWrite, fd, reinterpret_cast<long>(kForged), sizeof kForged - 1, 0);
    raw_syscall(kSysClose, fd, 0, 0, 0);
  }
}

// Computes nothing: the point of this sample is elsewhere.
__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {}

void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {}
