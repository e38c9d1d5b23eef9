// The CPU backend's oracle: the reference GEMM in FP64 on the host.
#pragma once
#include <vector>

namespace sg {

// C64 = A*B and |A||B| in FP64, row-major (multi-threaded); fills c64 and abs_ab.
void host_oracle(int m, int n, int k, const float* a, const float* b, std::vector<double>& c64,
                 std::vector<double>& abs_ab);

}  // namespace sg
