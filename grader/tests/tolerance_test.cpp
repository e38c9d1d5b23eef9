// The correctness model: the FP32 bound holds for every summation order a
// correct kernel might use, yet catches a dropped K tile, a single element
// just over its bound, NaN/Inf, and any difference in exact mode.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "backends/cpu/host_oracle.h"
#include "compare/tolerance.h"

namespace sg {
namespace {

enum class Data { Uniform, Positive, Cancel };

const char* data_name(Data d) {
  switch (d) {
    case Data::Uniform: return "uniform";
    case Data::Positive: return "positive";
    case Data::Cancel: return "cancel";
  }
  return "?";
}

// Cancel: random signs and magnitudes spread over six decades, so partial
// sums are large while results are small relative to |A||B|.
std::vector<float> random_matrix(std::size_t count, Data d, std::mt19937_64& rng) {
  std::vector<float> v(count);
  std::uniform_real_distribution<float> uni(-1.0f, 1.0f), pos(0.0f, 1.0f), expo(-3.0f, 3.0f);
  std::bernoulli_distribution sign(0.5);
  for (float& x : v) {
    switch (d) {
      case Data::Uniform: x = uni(rng); break;
      case Data::Positive: x = pos(rng); break;
      case Data::Cancel: x = (sign(rng) ? 1.0f : -1.0f) * std::pow(10.0f, expo(rng)); break;
    }
  }
  return v;
}

struct Problem {
  int m, k, n;
  std::vector<float> a, b;
  std::vector<double> c64, abs_ab;
};

Problem make_problem(int m, int k, int n, Data d, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Problem p{m, k, n, random_matrix(std::size_t(m) * k, d, rng),
            random_matrix(std::size_t(k) * n, d, rng), {}, {}};
  host_oracle(m, n, k, p.a.data(), p.b.data(), p.c64, p.abs_ab);
  return p;
}

// The FP32 products a_it * b_tj of one output element, in k order.
std::vector<float> products(const Problem& p, int i, int j) {
  std::vector<float> prod(p.k);
  for (int t = 0; t < p.k; ++t) prod[t] = p.a[std::size_t(i) * p.k + t] * p.b[std::size_t(t) * p.n + j];
  return prod;
}

float sum_forward(const std::vector<float>& x) {
  float s = 0;
  for (float v : x) s += v;
  return s;
}
float sum_reverse(const std::vector<float>& x) {
  float s = 0;
  for (auto it = x.rbegin(); it != x.rend(); ++it) s += *it;
  return s;
}
float sum_pairwise(const float* x, std::size_t n) {
  if (n == 1) return x[0];
  const std::size_t h = n / 2;
  return sum_pairwise(x, h) + sum_pairwise(x + h, n - h);
}
// Partial sum per 16-term tile, then the tile sums in order.
float sum_tiled16(const std::vector<float>& x) {
  float total = 0;
  for (std::size_t t0 = 0; t0 < x.size(); t0 += 16) {
    float tile = 0;
    for (std::size_t t = t0; t < std::min(x.size(), t0 + 16); ++t) tile += x[t];
    total += tile;
  }
  return total;
}

using Order = std::function<float(const Problem&, int, int, std::mt19937_64&)>;

struct NamedOrder {
  const char* name;
  Order fn;
};

std::vector<NamedOrder> all_orders() {
  return {
      {"forward", [](const Problem& p, int i, int j, std::mt19937_64&) { return sum_forward(products(p, i, j)); }},
      {"reverse", [](const Problem& p, int i, int j, std::mt19937_64&) { return sum_reverse(products(p, i, j)); }},
      {"pairwise",
       [](const Problem& p, int i, int j, std::mt19937_64&) {
         const auto x = products(p, i, j);
         return sum_pairwise(x.data(), x.size());
       }},
      {"tiled16", [](const Problem& p, int i, int j, std::mt19937_64&) { return sum_tiled16(products(p, i, j)); }},
      {"permuted",
       [](const Problem& p, int i, int j, std::mt19937_64& rng) {
         auto x = products(p, i, j);
         std::shuffle(x.begin(), x.end(), rng);
         return sum_forward(x);
       }},
      // What a GPU kernel usually does: one fused multiply-add per term.
      {"fma",
       [](const Problem& p, int i, int j, std::mt19937_64&) {
         float s = 0;
         for (int t = 0; t < p.k; ++t)
           s = std::fma(p.a[std::size_t(i) * p.k + t], p.b[std::size_t(t) * p.n + j], s);
         return s;
       }},
  };
}

std::vector<float> compute(const Problem& p, const Order& order, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<float> c(std::size_t(p.m) * p.n);
  for (int i = 0; i < p.m; ++i)
    for (int j = 0; j < p.n; ++j) c[std::size_t(i) * p.n + j] = order(p, i, j, rng);
  return c;
}

Comparison check(const Problem& p, const std::vector<float>& c, double factor = 2,
                 bool exact = false) {
  CompareInput in;
  in.m = p.m;
  in.n = p.n;
  in.k = p.k;
  in.c = c.data();
  in.c64 = p.c64.data();
  in.abs_ab = p.abs_ab.data();
  in.factor = factor;
  in.exact = exact;
  return compare(in);
}

TEST(ToleranceTest, GammaKFollowsItsDefinition) {
  const double u = std::ldexp(1.0, -24);
  EXPECT_DOUBLE_EQ(gamma_k(1), u / (1 - u));
  EXPECT_DOUBLE_EQ(gamma_k(1024), 1024 * u / (1 - 1024 * u));
  EXPECT_GT(gamma_k(1024), 1024 * u);  // strictly above the first-order term
  EXPECT_LT(gamma_k(100), gamma_k(101));
  EXPECT_TRUE(std::isinf(gamma_k(1 << 24)));
}

// Every order a correct kernel may use stays within the bound, for several
// sizes up to k = 4096 and all three data kinds.
TEST(ToleranceTest, BoundHoldsForEverySummationOrder) {
  struct Size { int m, k, n; };
  const Size sizes[] = {{5, 1, 7}, {6, 16, 5}, {4, 17, 6}, {5, 333, 4}, {3, 1000, 4}, {3, 2048, 3}, {2, 4096, 3}};
  const auto orders = all_orders();
  std::uint64_t seed = 1;
  for (const Size& s : sizes) {
    for (Data d : {Data::Uniform, Data::Positive, Data::Cancel}) {
      const Problem p = make_problem(s.m, s.k, s.n, d, ++seed);
      std::vector<std::vector<float>> results;
      for (const auto& order : orders) {
        results.push_back(compute(p, order.fn, seed));
        const Comparison r = check(p, results.back());
        SCOPED_TRACE(std::string(order.name) + " " + data_name(d) + " " + std::to_string(s.m) +
                     "x" + std::to_string(s.k) + "x" + std::to_string(s.n));
        EXPECT_EQ(r.wrong, 0);
        EXPECT_LE(r.worst_ratio, 1.0);
        EXPECT_EQ(r.checked, std::int64_t(s.m) * s.n);
        EXPECT_TRUE(r.tile_map.empty());
      }
      // The orders must really differ, or this test proves nothing about them.
      if (s.k >= 333) {
        bool any_difference = false;
        for (const auto& r : results) any_difference = any_difference || r != results[0];
        EXPECT_TRUE(any_difference) << data_name(d) << " k=" << s.k;
      }
    }
  }
}

// Dropping one 16-term K tile (or the last, partial one) is always caught.
TEST(ToleranceTest, DroppedKTileFails) {
  struct Drop { int k, tile; };
  const Drop drops[] = {{64, 1}, {1000, 31}, {1000, 62}, {1024, 0}, {4096, 255}};  // 1000: tile 62 has 8 terms
  std::uint64_t seed = 100;
  for (const Drop& dr : drops) {
    for (Data d : {Data::Uniform, Data::Positive}) {
      const Problem p = make_problem(8, dr.k, 8, d, ++seed);
      auto without_tile = [&](const Problem& q, int i, int j, std::mt19937_64&) {
        float s = 0;
        for (int t = 0; t < q.k; ++t)
          if (t / 16 != dr.tile) s = std::fma(q.a[std::size_t(i) * q.k + t], q.b[std::size_t(t) * q.n + j], s);
        return s;
      };
      const Comparison r = check(p, compute(p, without_tile, seed));
      SCOPED_TRACE(std::string(data_name(d)) + " k=" + std::to_string(dr.k) + " tile " + std::to_string(dr.tile));
      if (d == Data::Positive) {
        EXPECT_EQ(r.wrong, r.checked);  // every dropped tile sum is positive and large
      } else {
        EXPECT_GE(r.wrong * 2, r.checked);
      }
      EXPECT_GT(r.worst_ratio, 1.0);
    }
  }
}

// The largest float whose error is within `bound` of `target` in direction
// `dir`, or the smallest one beyond it.
float float_at_bound(double target, double bound, int dir, bool beyond) {
  float f = static_cast<float>(target + dir * bound);
  const float toward_target = dir > 0 ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  const float away = -toward_target;
  while (std::fabs(f - target) > bound) f = std::nextafter(f, toward_target);
  if (beyond) f = std::nextafter(f, away);
  return f;
}

TEST(ToleranceTest, SingleElementJustBeyondItsBoundFailsAndJustWithinPasses) {
  for (int k : {16, 300, 3000}) {
    Problem p = make_problem(20, k, 24, Data::Uniform, 7 + k);
    std::vector<float> c(p.c64.begin(), p.c64.end());  // correctly rounded: within bound
    ASSERT_EQ(check(p, c).wrong, 0);
    const int row = 13, col = 17;
    const std::size_t idx = std::size_t(row) * p.n + col;
    const double bound = 2 * gamma_k(k) * p.abs_ab[idx];
    for (int dir : {+1, -1}) {
      SCOPED_TRACE("k=" + std::to_string(k) + " dir=" + std::to_string(dir));
      c[idx] = float_at_bound(p.c64[idx], bound, dir, true);
      const double over = std::fabs(c[idx] - p.c64[idx]) / bound;
      ASSERT_GT(over, 1.0);
      ASSERT_LT(over, 1.01);  // "slightly more": within 1% of the bound
      Comparison r = check(p, c);
      EXPECT_EQ(r.wrong, 1);
      ASSERT_EQ(r.first_wrong.size(), 1u);
      EXPECT_EQ(r.first_wrong[0].row, row);
      EXPECT_EQ(r.first_wrong[0].col, col);
      EXPECT_EQ(r.first_wrong[0].got, c[idx]);
      EXPECT_DOUBLE_EQ(r.first_wrong[0].expected, p.c64[idx]);
      EXPECT_NEAR(r.first_wrong[0].bound, bound, bound * 1e-12);
      EXPECT_DOUBLE_EQ(r.worst_ratio, over);

      c[idx] = float_at_bound(p.c64[idx], bound, dir, false);
      const double under = std::fabs(c[idx] - p.c64[idx]) / bound;
      ASSERT_LE(under, 1.0);
      ASSERT_GT(under, 0.99);  // "slightly less"
      r = check(p, c);
      EXPECT_EQ(r.wrong, 0);
      EXPECT_DOUBLE_EQ(r.worst_ratio, under);
    }
  }
}

TEST(ToleranceTest, NanAndInfNeverPass) {
  Problem p = make_problem(6, 40, 7, Data::Positive, 3);
  std::vector<float> c(p.c64.begin(), p.c64.end());
  c[3] = std::numeric_limits<float>::quiet_NaN();
  c[10] = std::numeric_limits<float>::infinity();
  c[20] = -std::numeric_limits<float>::infinity();
  // Not even an absurd tolerance lets them through.
  const Comparison r = check(p, c, 1e30);
  EXPECT_EQ(r.wrong, 3);
  EXPECT_EQ(r.non_finite, 3);
  EXPECT_TRUE(std::isfinite(r.worst_ratio));
  ASSERT_EQ(r.first_wrong.size(), 3u);
  EXPECT_TRUE(std::isnan(r.first_wrong[0].got));
  EXPECT_EQ(r.first_wrong[1].row, 1);
  EXPECT_EQ(r.first_wrong[1].col, 3);
}

TEST(ToleranceTest, ExactModeRequiresEquality) {
  // Small integers: every product and partial sum is exact in FP32.
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int> small(-4, 4);
  Problem p{24, 80, 20, std::vector<float>(24 * 80), std::vector<float>(80 * 20), {}, {}};
  for (float& x : p.a) x = float(small(rng));
  for (float& x : p.b) x = float(small(rng));
  host_oracle(p.m, p.n, p.k, p.a.data(), p.b.data(), p.c64, p.abs_ab);
  for (const auto& order : all_orders()) {
    const auto c = compute(p, order.fn, 5);
    EXPECT_EQ(check(p, c, 2, true).wrong, 0) << order.name;
  }
  auto c = compute(p, all_orders()[0].fn, 5);
  const std::size_t idx = 5 * p.n + 6;
  c[idx] = std::nextafter(c[idx], std::numeric_limits<float>::infinity());  // one ulp off
  EXPECT_EQ(check(p, c, 2, false).wrong, 0);  // within the FP32 bound...
  const Comparison r = check(p, c, 2, true);  // ...but not exact
  EXPECT_EQ(r.wrong, 1);
  ASSERT_EQ(r.first_wrong.size(), 1u);
  EXPECT_EQ(r.first_wrong[0].row, 5);
  EXPECT_EQ(r.first_wrong[0].col, 6);
  EXPECT_EQ(r.first_wrong[0].bound, 0.0);
}

TEST(ToleranceTest, FirstWrongInRowMajorOrderAndCapped) {
  Problem p = make_problem(10, 20, 12, Data::Uniform, 9);
  std::vector<float> c(p.c64.begin(), p.c64.end());
  const std::pair<int, int> bad[] = {{5, 3}, {2, 7}, {2, 1}, {9, 11}, {0, 11}};
  for (auto [i, j] : bad) c[std::size_t(i) * p.n + j] += 1.0f;
  CompareInput in;
  in.m = p.m; in.n = p.n; in.k = p.k;
  in.c = c.data(); in.c64 = p.c64.data(); in.abs_ab = p.abs_ab.data();
  in.keep_first = 3;
  const Comparison r = compare(in);
  EXPECT_EQ(r.wrong, 5);
  ASSERT_EQ(r.first_wrong.size(), 3u);
  EXPECT_EQ(std::make_pair(r.first_wrong[0].row, r.first_wrong[0].col), std::make_pair(0, 11));
  EXPECT_EQ(std::make_pair(r.first_wrong[1].row, r.first_wrong[1].col), std::make_pair(2, 1));
  EXPECT_EQ(std::make_pair(r.first_wrong[2].row, r.first_wrong[2].col), std::make_pair(2, 7));
}

// Builds a comparison of an m x n output where exactly the listed elements are NaN.
Comparison with_wrong(int m, int n, const std::vector<std::pair<int, int>>& bad, int map_max = 32) {
  std::vector<double> c64(std::size_t(m) * n, 1.0), abs_ab(c64.size(), 1.0);
  std::vector<float> c(c64.size(), 1.0f);
  for (auto [i, j] : bad) c[std::size_t(i) * n + j] = std::numeric_limits<float>::quiet_NaN();
  CompareInput in;
  in.m = m; in.n = n; in.k = 16;
  in.c = c.data(); in.c64 = c64.data(); in.abs_ab = abs_ab.data();
  in.map_max = map_max;
  return compare(in);
}

TEST(ToleranceTest, TileMapMarksTilesOfWrongElements) {
  const Comparison r = with_wrong(40, 40, {{35, 2}, {16, 31}});
  ASSERT_EQ(r.tile_map.size(), 3u);
  EXPECT_EQ(r.tile_map[0], "...");
  EXPECT_EQ(r.tile_map[1], ".#.");
  EXPECT_EQ(r.tile_map[2], "#..");
}

TEST(ToleranceTest, TileMapMergesTilesBeyondMapMax) {
  // 1000 rows = 63 tiles shown in 32 cells; 70 columns = 5 tiles shown as they are.
  const Comparison r = with_wrong(1000, 70, {{999, 69}, {0, 0}, {31, 20}});
  ASSERT_EQ(r.tile_map.size(), 32u);
  for (const auto& line : r.tile_map) EXPECT_EQ(line.size(), 5u);
  EXPECT_EQ(r.tile_map[0], "##...");  // tiles 0 and 1 share the first cell
  EXPECT_EQ(r.tile_map[31], "....#");  // the last, partial tile is in the last cell
  for (int i = 1; i < 31; ++i) EXPECT_EQ(r.tile_map[i], ".....") << i;

  const Comparison tall = with_wrong(65536, 1, {{65535, 0}}, 8);
  ASSERT_EQ(tall.tile_map.size(), 8u);
  EXPECT_EQ(tall.tile_map[7], "#");
}

TEST(ToleranceTest, CompareRejectsMissingBuffers) {
  CompareInput in;
  in.m = 2; in.n = 2; in.k = 2;
  EXPECT_THROW(compare(in), std::invalid_argument);
  in.m = 0;
  EXPECT_EQ(compare(in).checked, 0);  // an empty output needs no buffers
}

// Reference sums straight from the definition, in long double.
void naive_oracle(const Problem& p, std::size_t i, std::size_t j, long double& c, long double& s) {
  c = 0;
  s = 0;
  for (int t = 0; t < p.k; ++t) {
    const long double x = p.a[i * p.k + t], y = p.b[t * p.n + j];
    c += x * y;
    s += std::fabs(x * y);
  }
}

TEST(HostOracleTest, MatchesTheDefinitionOnAwkwardShapes) {
  struct Size { int m, k, n; };
  for (const Size s : {Size{1, 1, 1}, Size{3, 5, 7}, Size{37, 29, 45}, Size{2, 130, 257}, Size{65, 1, 3}}) {
    const Problem p = make_problem(s.m, s.k, s.n, Data::Cancel, 17 + s.m);
    ASSERT_EQ(p.c64.size(), std::size_t(s.m) * s.n);
    for (int i = 0; i < s.m; ++i)
      for (int j = 0; j < s.n; ++j) {
        long double c, a;
        naive_oracle(p, i, j, c, a);
        const std::size_t idx = std::size_t(i) * s.n + j;
        EXPECT_NEAR(p.c64[idx], double(c), 1e-13 * double(a)) << i << "," << j;
        EXPECT_NEAR(p.abs_ab[idx], double(a), 1e-13 * double(a)) << i << "," << j;
      }
  }
}

// The multi-threaded path on the largest ragged case of the default suite.
TEST(HostOracleTest, LargeRaggedCaseSpotChecks) {
  const Problem p = make_problem(1000, 777, 333, Data::Uniform, 23);
  std::mt19937_64 rng(5);
  for (int t = 0; t < 200; ++t) {
    const std::size_t i = rng() % 1000, j = rng() % 333;
    long double c, a;
    naive_oracle(p, i, j, c, a);
    EXPECT_NEAR(p.c64[i * 333 + j], double(c), 1e-13 * double(a)) << i << "," << j;
    EXPECT_NEAR(p.abs_ab[i * 333 + j], double(a), 1e-13 * double(a)) << i << "," << j;
  }
  // Corners, where the blocked loops have their tails.
  for (auto [i, j] : {std::pair<int, int>{999, 332}, {0, 332}, {999, 0}}) {
    long double c, a;
    naive_oracle(p, i, j, c, a);
    EXPECT_NEAR(p.c64[std::size_t(i) * 333 + j], double(c), 1e-13 * double(a));
  }
}

// The CPU backend's race check: two runs may differ by reordered rounding,
// not by more; NaN in both is the same, NaN in one is not.
TEST(ToleranceTest, RunDifferencesAllowRoundingOnly) {
  const int m = 2, n = 3, k = 100;
  const std::vector<double> abs_ab(m * n, 50.0);
  const double slack = 2 * gamma_k(k) * 50.0;  // the allowed difference
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x = {1.0f, 2.0f, 3.0f, nan, 5.0f, 6.0f};
  std::vector<float> y = x;
  y[0] = float(1.0 + 0.5 * slack);
  RunDifference d = differing_elements(m, n, k, x.data(), y.data(), abs_ab.data(), 2);
  EXPECT_EQ(d.count, 0u);
  y[4] = float(5.0 + 4 * slack);
  y[5] = nan;
  d = differing_elements(m, n, k, x.data(), y.data(), abs_ab.data(), 2);
  EXPECT_EQ(d.count, 2u);
  EXPECT_EQ(d.first, 4u);
  y[3] = 0.0f;  // NaN in x only
  EXPECT_EQ(differing_elements(m, n, k, x.data(), y.data(), abs_ab.data(), 2).first, 3u);
}

}  // namespace
}  // namespace sg
