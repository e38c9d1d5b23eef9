// Sample submission "include_dev_zero": includes /dev/zero
// Part of the grader's sample corpus (grader/samples/README.md); expect.yaml
// next to this file says how the grader must judge it.
// Outside a sandbox the preprocessor reads zeros until memory runs out.
#include </dev/zero>

#define TILE_SIZE 16
__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {}
void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {}
