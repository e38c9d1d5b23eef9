// Sample submission "host_compute_cpu_macro": basicSgemm copies A and B to
// the host with cudaMemcpy, computes C there and copies it back, inside
// `#ifdef __CUDACPU__`, a macro an earlier CPU layer defined; nvcc's build
// sees an empty basicSgemm. The CPU layer now defines only what nvcc
// defines, so both backends grade the same empty function (and cudaMemcpy,
// were it compiled, would be refused by the symbol policy on both).
// Part of the grader's sample corpus (grader/samples/README.md); expect.yaml
// next to this file says how the grader must judge it.
#include <cuda_runtime.h>
#include <vector>

#define TILE_SIZE 16

__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= n) return;
  float sum = 0.0f;
  for (int e = 0; e < k; ++e) sum += A[row * k + e] * B[e * n + col];
  C[row * n + col] = sum;
}

void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
#ifdef __CUDACPU__
  std::vector<float> a(size_t(m) * k), b(size_t(k) * n), c(size_t(m) * n);
  cudaMemcpy(a.data(), A, a.size() * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(b.data(), B, b.size() * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float sum = 0.0f;
      for (int e = 0; e < k; ++e) sum += a[size_t(i) * k + e] * b[size_t(e) * n + j];
      c[size_t(i) * n + j] = sum;
    }
  cudaMemcpy(C, c.data(), c.size() * sizeof(float), cudaMemcpyHostToDevice);
#else
  (void)m;
  (void)n;
  (void)k;
  (void)A;
  (void)B;
  (void)C;
#endif
}
