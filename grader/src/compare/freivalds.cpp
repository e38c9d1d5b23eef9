#include "compare/freivalds.h"

#include <algorithm>
#include <cmath>
#include <thread>
#include <vector>

#include "proto/seeded_inputs.h"

namespace sg {
namespace {

constexpr double kSigmas = 8;            // t in the bound (freivalds.h)
constexpr double kUnitRoundoff = 0x1p-24;
constexpr double kHostRelative = 1e-12;  // the host's double sums, far above their real error

// Runs body(lo, hi) over [0, count) split among `threads` threads.
template <typename Body>
void split(std::size_t count, unsigned threads, Body body) {
  const std::size_t t = std::clamp<std::size_t>(threads, 1, std::max<std::size_t>(count, 1));
  std::vector<std::thread> pool;
  for (std::size_t i = 1; i < t; ++i) pool.emplace_back(body, i, count * i / t, count * (i + 1) / t);
  body(0, 0, count / t);
  for (auto& th : pool) th.join();
}

}  // namespace

FreivaldsResult freivalds_check(const FreivaldsInput& in) {
  FreivaldsResult r;
  if (in.m <= 0 || in.k <= 0 || in.n <= 0 || !in.c) return r;
  const std::uint64_t key_a = seeded::stream_key(in.seed, seeded::kStreamA);
  const std::uint64_t key_b = seeded::stream_key(in.seed, seeded::kStreamB);
  const std::size_t k = static_cast<std::size_t>(in.k), n = static_cast<std::size_t>(in.n);
  std::vector<double> x(n);
  for (std::size_t j = 0; j < n; ++j) x[j] = (seeded::splitmix64(in.x_seed + j) & 1) ? 1.0 : -1.0;

  // B x, |B| |x| (|x| = 1) and ||B||_F^2, one row of B at a time.
  std::vector<double> bx(k), abs_bx(k), b_frob2_part(std::max(1u, in.threads), 0.0);
  split(k, in.threads, [&](std::size_t part, std::size_t lo, std::size_t hi) {
    double frob2 = 0;
    for (std::size_t l = lo; l < hi; ++l) {
      double s = 0, sa = 0;
      for (std::size_t j = 0; j < n; ++j) {
        const double v = seeded::value(key_b, l * n + j);
        s += v * x[j];
        sa += std::fabs(v);
        frob2 += v * v;
      }
      bx[l] = s;
      abs_bx[l] = sa;
    }
    b_frob2_part[part] = frob2;
  });
  double b_frob2 = 0;
  for (double v : b_frob2_part) b_frob2 += v;
  const double kd = static_cast<double>(in.k);
  const double gamma = kd * kUnitRoundoff / (1 - kd * kUnitRoundoff);
  const double scale = kSigmas * in.factor * gamma * std::sqrt(b_frob2);

  // Each row: z = (A (B x))_i, y = (C x)_i, and its bound, from A and B only (never from C).
  std::vector<char> failed(static_cast<std::size_t>(in.m), 0);
  std::vector<double> diffs(static_cast<std::size_t>(in.m), 0), bounds(static_cast<std::size_t>(in.m), 0);
  split(static_cast<std::size_t>(in.m), in.threads, [&](std::size_t, std::size_t lo, std::size_t hi) {
    for (std::size_t row = lo; row < hi; ++row) {
      double z = 0, a2 = 0, mag = 0;
      for (std::size_t l = 0; l < k; ++l) {
        const double a = seeded::value(key_a, row * k + l);
        z += a * bx[l];
        a2 += a * a;
        mag += std::fabs(a) * abs_bx[l];
      }
      double y = 0;
      bool finite = true;
      const float* c_row = in.c + row * n;
      for (std::size_t j = 0; j < n; ++j) {
        finite = finite && std::isfinite(c_row[j]);
        y += static_cast<double>(c_row[j]) * x[j];
      }
      diffs[row] = std::fabs(y - z);
      bounds[row] = scale * std::sqrt(a2) + kHostRelative * mag;
      failed[row] = !(finite && diffs[row] <= bounds[row]);
    }
  });
  for (int i = 0; i < in.m; ++i) {
    if (!failed[static_cast<std::size_t>(i)]) continue;
    if (r.rows_failed++ == 0) {
      r.first_row = i;
      r.first_diff = diffs[static_cast<std::size_t>(i)];
      r.first_bound = bounds[static_cast<std::size_t>(i)];
    }
  }
  r.ok = r.rows_failed == 0;
  return r;
}

}  // namespace sg
