// Sample submission "include_etc_passwd": includes /etc/passwd by its absolute path
// Part of the grader's sample corpus (grader/samples/README.md); expect.yaml
// next to this file says how the grader must judge it.
// Outside a sandbox the compiler quotes the file's lines in its error output,
// and so in the student's report.
#include "/etc/passwd"

#define TILE_SIZE 16
__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {}
void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {}
