// Input matrices for a case, drawn fresh for every grading run.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/suite.h"

namespace sg {

struct CaseInputs {
  std::vector<float> a;  // m x k, row-major
  std::vector<float> b;  // k x n, row-major
};

// Deterministic for (seed, case name): the same seed regrades identically,
// while a secret seed keeps answers from being memorised.
CaseInputs make_inputs(const Case& c, std::uint64_t seed);

// The same for an explicit size and distribution (tests, the sanitizer check).
CaseInputs make_inputs(int m, int k, int n, Distribution d, std::uint64_t stream_seed);

// A secret seed from the OS entropy source.
std::uint64_t secret_seed();

}  // namespace sg
