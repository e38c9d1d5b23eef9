// Checks the output of a timed launch without the FP64 oracle: Freivalds'
// test, y = C x against z = A (B x) for a random +-1 vector x, in double on
// the host, with the inputs regenerated from the sample's seed
// (proto/seeded_inputs.h). O(mk + kn + mn) instead of the oracle's O(mkn),
// so every timed sample can be checked.
#pragma once
#include <cstdint>
#include <string>

namespace sg {

struct FreivaldsInput {
  int m = 0, k = 0, n = 0;
  std::uint64_t seed = 0;     // the sample's inputs (A and B)
  const float* c = nullptr;   // m x n, row-major, as the runner returned it
  std::uint64_t x_seed = 0;   // the judge's secret choice of x
  double factor = 2;          // the case's tolerance factor (suite), as in compare/tolerance.h
  unsigned threads = 1;       // rows shared among this many threads (the result does not depend on it)
};

struct FreivaldsResult {
  bool ok = false;
  std::int64_t rows_failed = 0;
  int first_row = -1;          // the first row whose |y - z| exceeded its bound (or was not finite)
  double first_diff = 0, first_bound = 0;
};

// Row i passes when |y_i - z_i| <= t * factor * gamma_k * ||A_i||_2 * ||B||_F
// (+ a tiny term for the host's own double rounding). Why: the checked launch
// is accepted when every |e_ij| <= factor * gamma_k * (|A||B|)_ij; with x's
// signs random and chosen after C arrived, sum_j e_ij x_j exceeds t times
// sqrt(sum_j e_ij^2) with probability below 2 exp(-t^2/2) (Hoeffding), and
// sum_j ((|A||B|)_ij)^2 <= ||A_i||^2 ||B||_F^2 (Cauchy-Schwarz). With t = 8 a
// kernel the correctness check accepts fails a row with probability < 3e-14.
// A NaN or Inf anywhere in a row fails it.
FreivaldsResult freivalds_check(const FreivaldsInput& in);

}  // namespace sg
