// Sample submission "calls_cublas": hands the work to cuBLAS
// Part of the grader's sample corpus (grader/samples/README.md); expect.yaml
// next to this file says how the grader must judge it.
#include <cstdio>
#include <cuda_runtime.h>
#include <cublas_v2.h>

#define TILE_SIZE 16

// Computes nothing: the point of this sample is elsewhere.
__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {}

// Row-major C = A * B is column-major C^T = B^T * A^T, which cuBLAS computes directly.
void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  static cublasHandle_t handle = nullptr;
  if (!handle && cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return;
  const float one = 1.0f, zero = 0.0f;
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, B, n, A, k, &zero, C, n);
}
