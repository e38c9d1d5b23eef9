// The kernel-cost benchmarks' program (memcheck_cost.sh, sanitizer_crowd.sh):
// linked with one kernel.cu, it launches basicSgemm once at each M K N triple
// of its arguments, on fresh buffers of exactly that shape's size (so that
// memcheck sees each allocation's end), and prints each launch's milliseconds
// and CUDA's error name.
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
void basicSgemm(int m, int n, int k, const float* A, const float* B, float* C);
static double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
int main(int argc, char** argv) {
  for (int i = 1; i + 2 < argc; i += 3) {
    const int m = atoi(argv[i]), k = atoi(argv[i + 1]), n = atoi(argv[i + 2]);
    float *a = nullptr, *b = nullptr, *c = nullptr;
    cudaMalloc(&a, 4ull * m * k);
    cudaMalloc(&b, 4ull * k * n);
    cudaMalloc(&c, 4ull * m * n);
    cudaMemset(a, 0, 4ull * m * k);
    cudaMemset(b, 0, 4ull * k * n);
    const double t = now_ms();
    basicSgemm(m, n, k, a, b, c);
    const cudaError_t e = cudaDeviceSynchronize();
    std::printf("%dx%dx%d launch %.1f ms %s\n", m, k, n, now_ms() - t, cudaGetErrorName(e));
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
  }
}
