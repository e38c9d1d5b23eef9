// host_oracle (see host_oracle.h): C64 = A*B and |A||B| in FP64 on the host.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "backends/cpu/host_oracle.h"

namespace sg {
namespace {

// Blocks sized so that a block of B and |B| (kBlockK x kBlockN doubles each,
// 256 KiB together) stays in L2 while two rows of A are swept across it.
constexpr std::int64_t kBlockK = 64;
constexpr std::int64_t kBlockN = 256;
// Below this many multiply-adds a thread costs more than it saves.
constexpr std::int64_t kWorkPerThread = std::int64_t{1} << 22;

struct Problem {
  std::int64_t m, n, k;
  const float* a;
  const double* b;      // B in FP64, k x n
  const double* b_abs;  // |B|, k x n
  double* c;
  double* c_abs;
};

// One element of C and |A||B| over k in [k0, k1), added to what is there.
void accumulate_one(const Problem& p, std::int64_t i, std::int64_t j, std::int64_t k0,
                    std::int64_t k1) {
  double sum = 0, sum_abs = 0;
  for (std::int64_t kk = k0; kk < k1; ++kk) {
    const double a = p.a[i * p.k + kk];
    sum += a * p.b[kk * p.n + j];
    sum_abs += std::fabs(a) * p.b_abs[kk * p.n + j];
  }
  p.c[i * p.n + j] += sum;
  p.c_abs[i * p.n + j] += sum_abs;
}

// A 2x4 block of C and |A||B| over k in [k0, k1): sixteen accumulators that
// stay in registers, so each loaded element of B serves two rows.
void accumulate_2x4(const Problem& p, std::int64_t i, std::int64_t j, std::int64_t k0,
                    std::int64_t k1) {
  double c0[4] = {0, 0, 0, 0}, c1[4] = {0, 0, 0, 0};
  double s0[4] = {0, 0, 0, 0}, s1[4] = {0, 0, 0, 0};
  const float* a0 = p.a + i * p.k;
  const float* a1 = a0 + p.k;
  for (std::int64_t kk = k0; kk < k1; ++kk) {
    const double x0 = a0[kk], x1 = a1[kk];
    const double y0 = std::fabs(x0), y1 = std::fabs(x1);
    const double* b = p.b + kk * p.n + j;
    const double* b_abs = p.b_abs + kk * p.n + j;
    for (int t = 0; t < 4; ++t) {
      c0[t] += x0 * b[t];
      c1[t] += x1 * b[t];
      s0[t] += y0 * b_abs[t];
      s1[t] += y1 * b_abs[t];
    }
  }
  for (int t = 0; t < 4; ++t) {
    p.c[i * p.n + j + t] += c0[t];
    p.c[(i + 1) * p.n + j + t] += c1[t];
    p.c_abs[i * p.n + j + t] += s0[t];
    p.c_abs[(i + 1) * p.n + j + t] += s1[t];
  }
}

void multiply_rows(const Problem& p, std::int64_t row_begin, std::int64_t row_end) {
  for (std::int64_t j0 = 0; j0 < p.n; j0 += kBlockN) {
    const std::int64_t j1 = std::min(p.n, j0 + kBlockN);
    for (std::int64_t k0 = 0; k0 < p.k; k0 += kBlockK) {
      const std::int64_t k1 = std::min(p.k, k0 + kBlockK);
      std::int64_t i = row_begin;
      for (; i + 2 <= row_end; i += 2) {
        std::int64_t j = j0;
        for (; j + 4 <= j1; j += 4) accumulate_2x4(p, i, j, k0, k1);
        for (; j < j1; ++j) {
          accumulate_one(p, i, j, k0, k1);
          accumulate_one(p, i + 1, j, k0, k1);
        }
      }
      for (; i < row_end; ++i)
        for (std::int64_t j = j0; j < j1; ++j) accumulate_one(p, i, j, k0, k1);
    }
  }
}

}  // namespace

void host_oracle(int m, int n, int k, const float* a, const float* b,
                 std::vector<double>& c64, std::vector<double>& abs_ab) {
  if (m < 0 || n < 0 || k < 0)
    throw std::invalid_argument("host_oracle: negative size m=" + std::to_string(m) +
                                " n=" + std::to_string(n) + " k=" + std::to_string(k));
  const std::int64_t mn = std::int64_t{m} * n, kn = std::int64_t{k} * n;
  if ((std::int64_t{m} * k > 0 && !a) || (kn > 0 && !b))
    throw std::invalid_argument(std::string("host_oracle: null ") + (!a ? "A" : "B"));
  c64.assign(mn, 0.0);
  abs_ab.assign(mn, 0.0);
  if (mn == 0 || k == 0) return;

  std::vector<double> b64(kn), b_abs(kn);
  for (std::int64_t i = 0; i < kn; ++i) {
    b64[i] = b[i];
    b_abs[i] = std::fabs(b64[i]);
  }
  const Problem p{m, n, k, a, b64.data(), b_abs.data(), c64.data(), abs_ab.data()};

  const std::int64_t work = mn * k;
  const std::int64_t hw = std::max(1u, std::thread::hardware_concurrency());
  const std::int64_t threads = std::clamp<std::int64_t>(work / kWorkPerThread, 1, std::min<std::int64_t>(hw, m));
  const std::int64_t rows_each = (m + threads - 1) / threads;

  std::vector<std::thread> pool;
  pool.reserve(threads);  // no reallocation while threads run
  std::int64_t next = 0;
  // Thread t takes rows [t*rows_each, ...); the calling thread does the last share
  // and also any share whose thread could not be started.
  for (std::int64_t t = 0; t + 1 < threads && next < m; ++t) {
    const std::int64_t begin = next, end = std::min<std::int64_t>(m, begin + rows_each);
    try {
      pool.emplace_back(multiply_rows, std::cref(p), begin, end);
    } catch (const std::system_error&) {
      multiply_rows(p, begin, end);
    }
    next = end;
  }
  multiply_rows(p, next, m);
  for (auto& t : pool) t.join();
}

}  // namespace sg
