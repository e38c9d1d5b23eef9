// Sample submission "prints_pass_and_exits": claims success on stdout and exits
// Part of the grader's sample corpus (grader/samples/README.md); expect.yaml
// next to this file says how the grader must judge it.
#include <cstdio>
#include <cuda_runtime.h>
#include <cstdlib>

#define TILE_SIZE 16

// Computes nothing: the point of this sample is elsewhere.
__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {}

void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  // A grader that trusted exit codes or scraped stdout would believe this.
  printf("TEST PASSED\n");
  printf("score: 100\n");
  exit(0);
}
