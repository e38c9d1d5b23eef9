#include "compare/tolerance.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "compare/tile_map.h"

namespace sg {

bool is_poison(float x) {
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits == kPoisonBits;
}

double gamma_k(int k) {
  if (k <= 0) return 0;
  const double u = std::ldexp(1.0, -24);
  const double ku = k * u;
  // Beyond k = 2^24 the classic bound is vacuous: nothing can be promised.
  return ku < 1 ? ku / (1 - ku) : std::numeric_limits<double>::infinity();
}

RunDifference differing_elements(int m, int n, int k, const float* x, const float* y, const double* abs_ab,
                                 double factor) {
  RunDifference d;
  const double g = factor * gamma_k(k);
  const std::size_t total = static_cast<std::size_t>(m) * static_cast<std::size_t>(n);
  for (std::size_t i = 0; i < total; ++i) {
    if (x[i] == y[i] || (std::isnan(x[i]) && std::isnan(y[i]))) continue;
    // Written so that a NaN in only one of them differs.
    if (std::fabs(double(x[i]) - double(y[i])) <= g * abs_ab[i]) continue;
    if (d.count++ == 0) d.first = i;
  }
  return d;
}

Comparison compare(const CompareInput& in) {
  if (in.m < 0 || in.n < 0 || in.k < 0)
    throw std::invalid_argument("compare: negative size m=" + std::to_string(in.m) +
                                " n=" + std::to_string(in.n) + " k=" + std::to_string(in.k));
  const std::int64_t count = static_cast<std::int64_t>(in.m) * in.n;
  if (count > 0 && (!in.c || !in.c64 || (!in.exact && !in.abs_ab)))
    throw std::invalid_argument(std::string("compare: null ") +
                                (!in.c ? "c" : !in.c64 ? "c64" : "abs_ab") + " for a " +
                                std::to_string(in.m) + "x" + std::to_string(in.n) + " output");

  const double scale = in.factor * gamma_k(in.k);
  const tile_map::Axis rows = tile_map::make_axis(in.m, in.tile, in.map_max);
  const tile_map::Axis cols = tile_map::make_axis(in.n, in.tile, in.map_max);
  std::vector<std::string> map(rows.cells, std::string(cols.cells, '.'));

  Comparison r;
  r.checked = count;
  for (std::int64_t i = 0; i < in.m; ++i) {
    for (std::int64_t j = 0; j < in.n; ++j) {
      const std::int64_t idx = i * in.n + j;
      const float got = in.c[idx];
      const double expected = in.c64[idx];
      // In exact mode the bound is 0: only equality passes.
      const double bound = in.exact ? 0.0 : scale * in.abs_ab[idx];
      bool wrong = true;
      if (!std::isfinite(got)) {
        ++r.non_finite;
        if (is_poison(got)) ++r.unwritten;
      } else {
        const double err = std::fabs(static_cast<double>(got) - expected);
        wrong = !(err <= bound);  // also true when the oracle itself is NaN
        const double ratio = bound > 0 ? err / bound
                             : err > 0 ? std::numeric_limits<double>::infinity()
                                       : 0.0;
        if (ratio > r.worst_ratio) r.worst_ratio = ratio;
      }
      if (!wrong) continue;
      ++r.wrong;
      if (static_cast<int>(r.first_wrong.size()) < in.keep_first)
        r.first_wrong.push_back(Mismatch{static_cast<int>(i), static_cast<int>(j), got,
                                         expected, bound});
      map[rows.cell_of_element(i)][cols.cell_of_element(j)] = '#';
    }
  }
  // A map of dots says nothing; only failing outputs carry one.
  if (r.wrong > 0) r.tile_map = std::move(map);
  return r;
}

}  // namespace sg
