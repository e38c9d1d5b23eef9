// The correctness model: C (FP32, from the student) against the FP64 oracle
// C64 with the bound factor * gamma_k * (|A||B|)_ij.
#pragma once
#include <cstdint>
#include <vector>

#include "model/result.h"

namespace sg {

// Runners fill C with these bits before every launch (cudaMemset 0xFF: a NaN
// no arithmetic produces), so an element still holding them was never written.
constexpr std::uint32_t kPoisonBits = 0xFFFFFFFFu;
bool is_poison(float x);

// gamma_k = k*u / (1 - k*u), u = 2^-24 (unit roundoff of FP32).
double gamma_k(int k);

struct CompareInput {
  int m = 0, n = 0, k = 0;
  const float* c = nullptr;        // m*n, from the submission
  const double* c64 = nullptr;     // m*n, oracle A*B in FP64
  const double* abs_ab = nullptr;  // m*n, |A||B| in FP64
  double factor = 2;
  bool exact = false;              // require c == c64 exactly (c64 representable)
  int keep_first = 8;              // how many mismatches to keep
  int tile = 16;                   // tile edge for the coarse map
  int map_max = 32;                // at most map_max x map_max cells in the map (tiles are merged beyond)
};

Comparison compare(const CompareInput& in);

// Two runs of the same kernel on the same inputs: the elements that differ by
// more than a change of summation order could explain (factor * gamma_k *
// (|A||B|)_ij); a NaN in both counts as the same. The CPU backend's race check.
struct RunDifference {
  std::size_t count = 0;
  std::size_t first = 0;  // row-major index of the first differing element
};
RunDifference differing_elements(int m, int n, int k, const float* x, const float* y, const double* abs_ab,
                                 double factor);

}  // namespace sg
