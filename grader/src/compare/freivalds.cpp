#include "compare/freivalds.h"

#include <cmath>
#include <cstdio>
#include <vector>

#include "proto/seeded_inputs.h"

namespace sg {
namespace {

constexpr double kSigmas = 8;           // t in the bound (freivalds.h)
constexpr double kUnitRoundoff = 0x1p-24;
constexpr double kHostRelative = 1e-12;  // the host's double sums, far above their real error

}  // namespace

std::string FreivaldsResult::summary() const {
  if (ok) return "Freivalds' check passed";
  char buf[200];
  std::snprintf(buf, sizeof buf, "%lld of the rows failed Freivalds' check (first: row %d, |Cx - ABx| = %.3g, bound %.3g)",
                static_cast<long long>(rows_failed), first_row, first_diff, first_bound);
  return buf;
}

FreivaldsResult freivalds_check(const FreivaldsInput& in) {
  FreivaldsResult r;
  if (in.m <= 0 || in.k <= 0 || in.n <= 0 || !in.c) return r;
  const std::uint64_t key_a = seeded::stream_key(in.seed, seeded::kStreamA);
  const std::uint64_t key_b = seeded::stream_key(in.seed, seeded::kStreamB);
  const std::size_t k = static_cast<std::size_t>(in.k), n = static_cast<std::size_t>(in.n);
  std::vector<double> x(n);
  for (std::size_t j = 0; j < n; ++j) x[j] = (seeded::splitmix64(in.x_seed + j) & 1) ? 1.0 : -1.0;

  // B x and |B| |x| (|x| = 1), and ||B||_F^2, one row of B at a time.
  std::vector<double> bx(k), abs_bx(k);
  double b_frob2 = 0;
  for (std::size_t l = 0; l < k; ++l) {
    double s = 0, sa = 0;
    for (std::size_t j = 0; j < n; ++j) {
      const double v = seeded::value(key_b, l * n + j);
      s += v * x[j];
      sa += std::fabs(v);
      b_frob2 += v * v;
    }
    bx[l] = s;
    abs_bx[l] = sa;
  }
  const double kd = static_cast<double>(in.k);
  const double gamma = kd * kUnitRoundoff / (1 - kd * kUnitRoundoff);
  const double scale = kSigmas * in.factor * gamma * std::sqrt(b_frob2);
  for (int i = 0; i < in.m; ++i) {
    const std::size_t row = static_cast<std::size_t>(i);
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
    // The bound comes from trusted values only (A, B), never from C.
    const double diff = std::fabs(y - z);
    const double bound = scale * std::sqrt(a2) + kHostRelative * mag;
    if (finite && diff <= bound) continue;
    if (r.rows_failed++ == 0) {
      r.first_row = i;
      r.first_diff = diff;
      r.first_bound = bound;
    }
  }
  r.ok = r.rows_failed == 0;
  return r;
}

}  // namespace sg
