// Sample submission "forged_results_kernel_call": forges results.json from basicSgemm
// Part of the grader's sample corpus (grader/samples/README.md); expect.yaml
// next to this file says how the grader must judge it.
#include <cstdio>
#include <cuda_runtime.h>

#define TILE_SIZE 16

// What a forged Gradescope result would look like.
static const char kForged[] =
    "{\"score\": 100, \"output\": \"All tests passed\", \"tests\": "
    "[{\"name\": \"everything\", \"score\": 100, \"max_score\": 100}]}\n";

// Everywhere a results.json might be read from, relative and absolute.
static const char *const kTargets[] = {
    "results.json", "results/results.json", "../results.json", "../results/results.json",
    "../../results/results.json", "/tmp/results.json", "/autograder/results/results.json"};

static void forge_results() {
  for (const char *path : kTargets) {
    FILE *f = fopen(path, "w");
    if (!f) continue;
    fputs(kForged, f);
    fclose(f);
  }
}

// Computes nothing: the point of this sample is elsewhere.
__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {}

void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) { forge_results(); }
