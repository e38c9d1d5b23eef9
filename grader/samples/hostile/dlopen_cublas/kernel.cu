// Sample submission "dlopen_cublas": reaches cuBLAS through dlopen
// Part of the grader's sample corpus (grader/samples/README.md); expect.yaml
// next to this file says how the grader must judge it.
#include <cstdio>
#include <cuda_runtime.h>
#include <dlfcn.h>

#define TILE_SIZE 16

// Computes nothing: the point of this sample is elsewhere.
__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {}

// The cuBLAS entry points, declared by hand so that no cuBLAS header or symbol is needed.
typedef int (*CreateFn)(void **);
typedef int (*SgemmFn)(void *, int, int, int, int, int, const float *, const float *, int,
                       const float *, int, const float *, float *, int);

void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  static void *handle = nullptr;
  static SgemmFn sgemm = nullptr;
  if (!sgemm) {
    void *lib = dlopen("libcublas.so", RTLD_NOW);
    if (!lib) lib = dlopen("libcublas.so.13", RTLD_NOW);
    if (!lib) lib = dlopen("libcublas.so.12", RTLD_NOW);
    if (!lib) return;
    CreateFn create = reinterpret_cast<CreateFn>(dlsym(lib, "cublasCreate_v2"));
    sgemm = reinterpret_cast<SgemmFn>(dlsym(lib, "cublasSgemm_v2"));
    if (!create || !sgemm || create(&handle) != 0) { sgemm = nullptr; return; }
  }
  const float one = 1.0f, zero = 0.0f;
  sgemm(handle, 0, 0, n, m, k, &one, B, n, A, k, &zero, C, n);  // 0 = CUBLAS_OP_N
}
