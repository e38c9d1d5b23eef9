#include "compare/hypotheses.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "compare/tolerance.h"

namespace sg {
namespace {

// Tile edges students use; hypotheses that depend on the tile try each.
constexpr int kTiles[] = {16, 8, 32};
constexpr std::size_t kSample = 96;     // wrong elements a value hypothesis is tested on
constexpr double kMatchShare = 0.9;     // of those it must reproduce
constexpr std::size_t kMinEvidence = 4; // fewer testable elements prove nothing

std::string str(std::int64_t v) { return std::to_string(v); }

std::int64_t ceil_to(std::int64_t x, int t) { return (x + t - 1) / t * t; }

struct Element {
  std::int64_t i, j;
};

// A predicted value with the magnitude sum that bounds its rounding error.
struct Predicted {
  double value = 0, magnitude = 0;
};

// Sum over t in [0, count) of a(t) * b(t), with index functions that say
// whether they stay inside A and B (nullopt: the hypothesis reads outside,
// so it cannot be tested on this element).
template <typename IndexA, typename IndexB>
std::optional<Predicted> dot(const CaseData& d, std::int64_t count, IndexA ia, IndexB ib) {
  const std::int64_t size_a = std::int64_t(d.m) * d.k, size_b = std::int64_t(d.k) * d.n;
  Predicted p;
  for (std::int64_t t = 0; t < count; ++t) {
    const std::int64_t x = ia(t), y = ib(t);
    const bool a_in = x >= 0 && x < size_a, b_in = y >= 0 && y < size_b;
    if (!(a_in && b_in) && !d.outside_known) return std::nullopt;
    const double prod = double(a_in ? d.a[x] : d.outside_value) * double(b_in ? d.b[y] : d.outside_value);
    p.value += prod;
    p.magnitude += std::fabs(prod);
  }
  return p;
}

// What the wrong elements hold: a spread sample of those with a finite value.
std::vector<Element> sample_wrong_finite(const CaseData& d) {
  const double scale = d.factor * gamma_k(d.k);
  std::vector<Element> all;
  const std::int64_t total = std::int64_t(d.m) * d.n;
  std::int64_t wrong = 0;
  auto is_wrong = [&](std::int64_t x) {
    const float got = d.c[x];
    return std::isfinite(got) && !(std::fabs(double(got) - d.c64[x]) <= scale * d.abs_ab[x]);
  };
  for (std::int64_t x = 0; x < total; ++x) wrong += is_wrong(x) ? 1 : 0;
  if (wrong == 0) return all;
  const std::int64_t step = std::max<std::int64_t>(1, wrong / std::int64_t(kSample));
  std::int64_t seen = 0;
  for (std::int64_t x = 0; x < total && all.size() < kSample; ++x)
    if (is_wrong(x) && seen++ % step == 0) all.push_back({x / d.n, x % d.n});
  return all;
}

// A value hypothesis: the values element (i, j) of the output may hold under
// it (several where threads of the buggy kernel race for one element), or
// none where it cannot say (it would read outside A or B, or writes nothing).
using ValueModel = std::function<std::vector<Predicted>(std::int64_t i, std::int64_t j)>;

std::vector<Predicted> one(std::optional<Predicted> p) {
  return p ? std::vector<Predicted>{*p} : std::vector<Predicted>{};
}

bool reproduces(const CaseData& d, const std::vector<Element>& sample, const ValueModel& model) {
  // Rounding in a different summation order: a few times FP32's bound.
  const double scale = 4 * d.factor * gamma_k(d.k) + 1e-12;
  std::size_t tested = 0, matched = 0;
  for (const Element& e : sample) {
    const std::vector<Predicted> ps = model(e.i, e.j);
    if (ps.empty()) continue;
    ++tested;
    const double got = d.c[e.i * d.n + e.j];
    for (const Predicted& p : ps)
      if (std::fabs(got - p.value) <= scale * p.magnitude + 1e-30) {
        ++matched;
        break;
      }
  }
  return tested >= kMinEvidence && tested * 4 >= sample.size() * 3 && matched >= kMatchShare * tested;
}

// Every (row, col) with row*ld + col == f, col < n, row < m: the threads
// that store to flat element f when C is indexed with rows of length ld.
template <typename Value>
std::vector<Predicted> writers_of(const CaseData& d, std::int64_t f, std::int64_t ld, Value value) {
  std::vector<Predicted> out;
  for (std::int64_t row = f / ld; row >= 0 && f - row * ld < d.n; --row) {
    if (row >= d.m) continue;
    if (const auto p = value(row, f - row * ld)) out.push_back(*p);
  }
  return out;
}

// Elements still holding the exact poison bits, as a predicate over (i, j)
// compared with a hypothesis's prediction of what stays unwritten.
bool unwritten_set_is(const CaseData& d, const std::function<bool(std::int64_t, std::int64_t)>& predicted) {
  std::int64_t predicted_count = 0;
  for (std::int64_t i = 0; i < d.m; ++i)
    for (std::int64_t j = 0; j < d.n; ++j) {
      const bool p = predicted(i, j);
      if (p != is_poison(d.c[i * d.n + j])) return false;
      predicted_count += p ? 1 : 0;
    }
  // Nothing or everything unwritten is what other diagnoses speak to.
  return predicted_count > 0 && predicted_count < std::int64_t(d.m) * d.n;
}

std::optional<Diagnosis> value_hypotheses(const CaseData& d, const std::vector<Element>& sample) {
  const std::int64_t m = d.m, k = d.k, n = d.n;
  const auto row_a = [k](std::int64_t i) { return [i, k](std::int64_t t) { return i * k + t; }; };
  const auto col_b = [n](std::int64_t j) { return [j, n](std::int64_t t) { return t * n + j; }; };
  struct Candidate {
    std::string id;
    std::string text;
    ValueModel model;
  };
  std::vector<Candidate> candidates;
  if (k != n) {
    candidates.push_back(
        {"ld.b_and_c_use_k",
         "wrong leading dimension: B and C are indexed with rows of length k = " + str(k) + " (B[t*k + col], C[row*k + col]), but both have rows "
             "of n = " + str(n) + " elements: use B[t*n + col] and C[row*n + col]",
         [&, k, n](std::int64_t i, std::int64_t j) {
           return writers_of(d, i * n + j, k, [&](std::int64_t r, std::int64_t col) {
             return dot(d, k, row_a(r), [col, k](std::int64_t t) { return t * k + col; });
           });
         }});
    candidates.push_back({"ld.c_uses_k",
                          "wrong leading dimension: C is written with rows of length k = " + str(k) +
                              " (C[row*k + col]), but its rows have n = " + str(n) + " elements: store to C[row*n + col]",
                          [&, k, n](std::int64_t i, std::int64_t j) {
                            return writers_of(d, i * n + j, k, [&](std::int64_t r, std::int64_t col) {
                              return dot(d, k, row_a(r), col_b(col));
                            });
                          }});
    candidates.push_back({"ld.b_uses_k",
                          "wrong leading dimension: B is read with rows of length k = " + str(k) + " (B[t*k + col]), but its rows have n = " +
                              str(n) + " elements: read B[t*n + col]",
                          [&, k](std::int64_t i, std::int64_t j) {
                            return one(dot(d, k, row_a(i), [j, k](std::int64_t t) { return t * k + j; }));
                          }});
  }
  if (m != n && m != k)
    candidates.push_back({"ld.c_uses_m",
                          "wrong leading dimension: C is written with rows of length m = " + str(m) +
                              " (C[row*m + col]), but its rows have n = " + str(n) + " elements: store to C[row*n + col]",
                          [&, m, n](std::int64_t i, std::int64_t j) {
                            return writers_of(d, i * n + j, m, [&](std::int64_t r, std::int64_t col) {
                              return dot(d, k, row_a(r), col_b(col));
                            });
                          }});
  if (m != k)
    candidates.push_back({"ld.a_uses_m",
                          "wrong leading dimension: A is read with rows of length m = " + str(m) + " (A[row*m + t]), but its rows have k = " +
                              str(k) + " elements: read A[row*k + t]",
                          [&, m, k](std::int64_t i, std::int64_t j) {
                            return one(dot(d, k, [i, m](std::int64_t t) { return i * m + t; }, col_b(j)));
                          }});
  candidates.push_back({"index.b_transposed",
                        "B is read as if it were transposed (B[col*k + t]); B is k x n and row-major: read B[t*n + col]",
                        [&, k](std::int64_t i, std::int64_t j) {
                          return one(dot(d, k, row_a(i), [j, k](std::int64_t t) { return j * k + t; }));
                        }});
  candidates.push_back({"index.a_transposed",
                        "A is read as if it were transposed (A[t*m + row]); A is m x k and row-major: read A[row*k + t]",
                        [&, m, k](std::int64_t i, std::int64_t j) {
                          return one(dot(d, k, [i, m](std::int64_t t) { return t * m + i; }, col_b(j)));
                        }});
  // Too few K tiles: the sums stop after `covered` terms. Several bugs give
  // the same count for some shapes (k / T rounded down, a count from n or m,
  // another tile edge): each count is tested once, and named by every cause
  // that gives it, the assignment's tile edge first.
  struct Short {
    const char* source;  // "floor", "n", "m"
    int tile;
  };
  std::vector<std::pair<std::int64_t, std::vector<Short>>> counts;
  auto add_count = [&](std::int64_t covered, Short why) {
    if (covered <= 0 || covered >= k) return;
    for (auto& c : counts)
      if (c.first == covered) return c.second.push_back(why);
    counts.push_back({covered, {why}});
  };
  for (const int T : kTiles) {
    if (k % T != 0) add_count(k / T * T, {"floor", T});
    add_count(ceil_to(n, T), {"n", T});
    add_count(ceil_to(m, T), {"m", T});
  }
  for (const auto& [covered, causes] : counts) {
    const std::string text_head = "the loop over K tiles covers only the first " + str(covered) + " of the k = " +
                                  str(k) + " terms: ";
    std::string why;
    std::string id;
    for (const Short& c : causes) {
      const std::string tt = str(c.tile), tm1 = str(c.tile - 1);
      const std::string one = std::string(c.source) == "floor"
                                  ? "it runs k / " + tt + " = " + str(k / c.tile) + " times, skipping the last, "
                                    "partial tile"
                                  : std::string("its count comes from ") + c.source + " ((" + c.source + " + " + tm1 +
                                        ") / " + tt + " = " + str(covered / c.tile) + ")";
      why += (why.empty() ? "" : ", or ") + one;
      const std::string this_id = std::string(c.source) == "floor" ? "phases.floor" : std::string("phases.from_") + c.source;
      id = id.empty() || id == this_id ? this_id : "phases.short";
    }
    const int T = causes.front().tile;
    const std::string fix = "; it must run (k + " + str(T - 1) + ") / " + str(T) + " = " + str(ceil_to(k, T) / T) +
                            " times, loading 0 past k";
    candidates.push_back({id, text_head + why + fix, [&, covered = covered](std::int64_t i, std::int64_t j) {
                            return one(dot(d, covered, row_a(i), col_b(j)));
                          }});
  }
  for (const Candidate& c : candidates)
    if (reproduces(d, sample, c.model)) return Diagnosis{c.id, c.text};
  // Padding the partial K tile with p != 0 adds (tiles*T - k) * p^2 to every
  // element: the same constant everywhere, which no value-free rule can see.
  if (sample.size() >= kMinEvidence && k % 8 != 0) {
    const double first = double(d.c[sample[0].i * n + sample[0].j]) - d.c64[sample[0].i * n + sample[0].j];
    bool same = std::fabs(first) >= 0.5;
    for (const Element& e : sample) {
      const double off = double(d.c[e.i * n + e.j]) - d.c64[e.i * n + e.j];
      same = same && std::fabs(off - first) <= 1e-3 * std::fabs(first) + 4 * d.factor * gamma_k(d.k) * d.abs_ab[e.i * n + e.j];
    }
    for (const int T : kTiles) {
      const std::int64_t extra = ceil_to(k, T) - k;
      if (!same || extra == 0) continue;
      const double pad2 = first / double(extra);  // p^2
      if (std::fabs(pad2 - std::round(pad2)) > 1e-3 || std::round(pad2) < 1) continue;
      char buf[64];
      std::snprintf(buf, sizeof buf, "%g", std::sqrt(std::round(pad2)));
      return Diagnosis{"padding.nonzero",
                       "every wrong element is off by the same " + str(std::llround(first)) +
                           " = (" + str(ceil_to(k, T)) + " - k) * " + buf + " * " + buf +
                           ": the partial K tile is padded with " + buf + " instead of 0 — load 0.0f for "
                           "columns of A and rows of B at or past k"};
    }
  }
  return std::nullopt;
}

std::optional<Diagnosis> guard_hypotheses(const CaseData& d);

// Whether exactly the elements that no thread reaches under C[row*ld + col]
// (row < m, col < n) still hold the poison.
bool c_written_with_rows_of(const CaseData& d, std::int64_t ld) {
  return unwritten_set_is(d, [&](std::int64_t i, std::int64_t j) {
    const std::int64_t f = i * d.n + j;
    for (std::int64_t row = f / ld; row >= 0 && f - row * ld < d.n; --row)
      if (row < d.m) return false;
    return true;
  });
}

// The tile edge T for which row 0 of C holds what a kernel computes when only
// row 0 of each B tile is ever loaded (the others stay zero): the sum of
// A[0][t] * B[t][j] over t = 0, T, 2T, ... Zero when no edge fits (a GPU's
// stale shared memory is not zero, so there the values cannot tell).
int tile_with_one_loaded_row(const CaseData& d, std::int64_t written) {
  const double scale = 4 * d.factor * gamma_k(d.k) + 1e-12;
  for (const int T : kTiles) {
    std::int64_t tested = 0, matched = 0;
    const std::int64_t step = std::max<std::int64_t>(1, written / std::int64_t(kSample));
    for (std::int64_t j = 0; j < written; j += step) {
      double sum = 0, magnitude = 0;
      for (std::int64_t t = 0; t < d.k; t += T) {
        const double prod = double(d.a[t]) * double(d.b[t * d.n + j]);
        sum += prod;
        magnitude += std::fabs(prod);
      }
      ++tested;
      matched += std::fabs(double(d.c[j]) - sum) <= scale * magnitude + 1e-30 ? 1 : 0;
    }
    if (tested >= std::int64_t(kMinEvidence) && matched >= kMatchShare * tested) return T;
  }
  return 0;
}

// Only a leading run of row 0 was written: every thread computed row 0, so
// threadIdx.y and blockIdx.y were always 0 (a block of one row of threads on
// a one-dimensional grid, e.g. dim3 block(16) or a block of 256 x 1).
std::optional<Diagnosis> first_row_only(const CaseData& d) {
  const std::int64_t m = d.m, n = d.n;
  if (m < 2) return std::nullopt;
  std::int64_t written = 0;
  while (written < n && !is_poison(d.c[written])) ++written;
  if (written == 0 || !unwritten_set_is(d, [&](std::int64_t i, std::int64_t j) { return i > 0 || j >= written; }))
    return std::nullopt;
  int T = tile_with_one_loaded_row(d, written);
  // Columns stop at a multiple of the tile edge when the grid is n / T blocks.
  for (const int t : kTiles)
    if (T == 0 && written < n && written % t == 0 && written == n / t * t) T = t;
  const std::string tt = T ? str(T) : "TILE_SIZE", tm1 = T ? str(T - 1) : "TILE_SIZE - 1";
  std::string text = "only row 0 of C was written (columns 0-" + str(written - 1) + "), rows 1-" + str(m - 1) +
                     " never: every thread computed row 0, so threadIdx.y and blockIdx.y were always 0 — the block "
                     "is one row of threads (blockDim.y = 1, e.g. dim3 block(" + tt + ") or " + tt + "*" + tt +
                     " threads in x) on a one-dimensional grid, so only one row of each tile is loaded and "
                     "computed";
  if (T && tile_with_one_loaded_row(d, written) == T)
    text += " (row 0's values are the sums over every " + tt + "th term only: rows 1-" + tm1 +
            " of each B tile were never loaded)";
  text += "; launch dim3 block(" + tt + ", " + tt + ") and dim3 grid((n + " + tm1 + ") / " + tt + ", (m + " + tm1 +
          ") / " + tt + ")";
  return Diagnosis{"block.one_row", text};
}

std::optional<Diagnosis> pattern_hypotheses(const CaseData& d) {
  const std::int64_t m = d.m, n = d.n;
  if (m * n > (std::int64_t(1) << 26)) return std::nullopt;  // a pass per hypothesis: keep it bounded
  // C stored with rows of length ld (k or m): exactly the elements no
  // (row < m, col < n) reaches at row*ld + col stay unwritten, whatever B was
  // read with (which cannot be predicted when it reads past B).
  const std::int64_t k = d.k;
  if (k != n && c_written_with_rows_of(d, k))
    return Diagnosis{"ld.c_uses_k", "wrong leading dimension: C is written with rows of length k = " + str(k) + " (C[row*k + col]), but its "
                     "rows have n = " + str(n) + " elements: store to C[row*n + col] (and read B[t*n + col]: B's rows "
                     "are n long too)"};
  if (m != n && m != k && c_written_with_rows_of(d, m))
    return Diagnosis{"ld.c_uses_m", "wrong leading dimension: C is written with rows of length m = " + str(m) + " (C[row*m + col]), but its "
                     "rows have n = " + str(n) + " elements: store to C[row*n + col]"};
  if (auto one_row = first_row_only(d)) return one_row;
  // The assignment's tile edge first, then a guard against the wrong size
  // (exact, whatever the tile), then other tile edges: for some shapes a
  // swapped grid of 8x8 tiles leaves the same elements as a row guard against n.
  for (const int T : kTiles) {
    if (T == kTiles[1])
      if (auto g = guard_hypotheses(d)) return g;
    const std::string tt = str(T);
    const std::int64_t rows_covered = ceil_to(n, T), cols_covered = ceil_to(m, T);
    if (m != n && unwritten_set_is(d, [&](std::int64_t i, std::int64_t j) { return i >= rows_covered || j >= cols_covered; }))
      return Diagnosis{"grid.swapped_xy",
                       "the grid's x and y are swapped: it covers " + str(std::min(m, rows_covered)) + " rows and " +
                           str(std::min(n, cols_covered)) + " columns, and the rest of C was never written; "
                           "gridDim.x must cover the n = " + str(n) + " columns ((n + " + str(T - 1) + ") / " + tt +
                           ") and gridDim.y the m = " + str(m) + " rows"};
    const std::int64_t rows_floor = m / T * T, cols_floor = n / T * T;
    if ((m % T || n % T) &&
        unwritten_set_is(d, [&](std::int64_t i, std::int64_t j) { return i >= rows_floor || j >= cols_floor; }))
      return Diagnosis{"grid.floor",
                       "the last partial row or column of " + tt + "x" + tt + " tiles was never written: the grid is "
                       "rounded down (m / " + tt + ", n / " + tt + "); launch (n + " + str(T - 1) + ") / " + tt +
                           " by (m + " + str(T - 1) + ") / " + tt + " blocks"};
    if (m > 1 && unwritten_set_is(d, [&](std::int64_t i, std::int64_t) { return i % T != 0; }))
      return Diagnosis{"block.one_row",
                       "only every " + tt + "th row of C was written (rows 0, " + tt + ", " + str(2 * T) +
                           ", ...): each block has one row of threads (blockDim.y = 1) where the kernel expects " +
                           tt + " x " + tt + " — launch dim3 block(" + tt + ", " + tt + ")"};
    if (n > 1 && unwritten_set_is(d, [&](std::int64_t, std::int64_t j) { return j % T != 0; }))
      return Diagnosis{"block.one_column",
                       "only every " + tt + "th column of C was written: each block has one column of threads "
                       "(blockDim.x = 1) where the kernel expects " + tt + " x " + tt + " — launch dim3 block(" + tt +
                           ", " + tt + ")"};
  }
  return std::nullopt;
}

std::optional<Diagnosis> guard_hypotheses(const CaseData& d) {
  const std::int64_t m = d.m, n = d.n;
  if (m > n && unwritten_set_is(d, [&](std::int64_t i, std::int64_t) { return i >= n; }))
    return Diagnosis{"guard.row_vs_n", "rows " + str(n) + " to " + str(m - 1) + " of C were never written: the bounds "
                     "check compares the row with n = " + str(n) + "; use row < m (m = " + str(m) + ") and col < n"};
  if (n > m && unwritten_set_is(d, [&](std::int64_t, std::int64_t j) { return j >= m; }))
    return Diagnosis{"guard.col_vs_m", "columns " + str(m) + " to " + str(n - 1) + " of C were never written: the "
                     "bounds check compares the column with m = " + str(m) + "; use col < n (n = " + str(n) + ")"};
  return std::nullopt;
}

// Elements computed as NaN or Inf (written, not the poison) carry no value
// to test, but where they are says something: a wrong index or a load
// without a bounds check reads past the end of A or B only for some
// elements, and on a GPU what lies there (another matrix's poison, stale
// memory) turns sums non-finite. A candidate explains the output when every
// sampled non-finite element is one it reads outside for.
std::optional<Diagnosis> outside_read_hypotheses(const CaseData& d) {
  const std::int64_t m = d.m, k = d.k, n = d.n, size_a = m * k, size_b = k * n;
  struct Reader {
    std::string id, what;  // what: how the kernel reads, for the text
    std::function<bool(std::int64_t, std::int64_t)> outside;
  };
  std::vector<Reader> readers;
  if (k != n)
    readers.push_back({"ld.b_uses_k", "a wrong leading dimension: B is read with rows of length k = " + str(k) + " (B[t*k + col]; its rows have n = " +
                                          str(n) + " elements: read B[t*n + col])",
                       [=](std::int64_t, std::int64_t j) { return (k - 1) * k + j >= size_b; }});
  if (m != k)
    readers.push_back({"ld.a_uses_m", "a wrong leading dimension: A is read with rows of length m = " + str(m) + " (A[row*m + t]; its rows have k = " +
                                          str(k) + " elements: read A[row*k + t])",
                       [=](std::int64_t i, std::int64_t) { return i * m + k - 1 >= size_a; }});
  for (const int T : kTiles) {
    const std::int64_t K = ceil_to(k, T);
    if (K == k) continue;
    readers.push_back({"load.unguarded", "the tiles are loaded without a bounds check on k: the last, partial K tile of " +
                                             str(T) + " reads columns " + str(k) + "-" + str(K - 1) + " of A and rows " +
                                             str(k) + "-" + str(K - 1) + " of B, which do not exist (load 0 when the index "
                                             "is >= k, and do not read at all)",
                       [=](std::int64_t i, std::int64_t j) { return i * k + K - 1 >= size_a || (K - 1) * n + j >= size_b; }});
    break;  // the padding reads of one tile edge already decide it; others read past the same ends
  }
  if (readers.empty()) return std::nullopt;
  const std::int64_t total = m * n, step = std::max<std::int64_t>(1, total / 4096);
  std::vector<Element> nonfinite;
  for (std::int64_t x = 0; x < total; x += step) {
    const float v = d.c[x];
    if (!std::isfinite(v) && !is_poison(v)) nonfinite.push_back({x / n, x % n});
  }
  if (nonfinite.size() < kMinEvidence) return std::nullopt;
  std::vector<const Reader*> fit;
  for (const Reader& r : readers) {
    bool all = true;
    for (const Element& e : nonfinite) all = all && r.outside(e.i, e.j);
    if (all) fit.push_back(&r);
  }
  if (fit.empty()) return std::nullopt;
  const std::string head = "the NaN or Inf values in C were computed (not left unwritten), and each of them comes from "
                           "an out-of-bounds read: ";
  if (fit.size() == 1)
    return Diagnosis{fit[0]->id, head + fit[0]->what + " reads past the end of " +
                                     (fit[0]->id == "ld.a_uses_m" ? "A" : "B") +
                                     " for exactly such elements, and what lies there is not part of the matrix"};
  std::string either;
  for (const Reader* r : fit) either += std::string(either.empty() ? "" : "; or ") + r->what;
  return Diagnosis{"memory.reads_outside", head + "computed as written, every such element reads past the end of A "
                                              "or B, either because " + either};
}

constexpr const char* kHypothesisIds[] = {
    "ld.b_and_c_use_k", "ld.c_uses_k", "ld.c_uses_m", "ld.b_uses_k", "ld.a_uses_m", "index.b_transposed", "index.a_transposed",
    "phases.from_n", "phases.from_m", "phases.floor", "phases.short", "padding.nonzero", "grid.swapped_xy", "grid.floor",
    "block.one_row", "block.one_column", "guard.row_vs_n", "guard.col_vs_m", "load.unguarded", "memory.reads_outside"};

}  // namespace

bool is_confirmed_hypothesis(const Diagnosis& d) {
  for (const char* id : kHypothesisIds)
    if (d.id == id) return true;
  return false;
}

std::vector<Diagnosis> matching_hypotheses(const CaseData& d) {
  std::vector<Diagnosis> out;
  if (!d.a || !d.b || !d.c || !d.c64 || !d.abs_ab || d.m <= 0 || d.n <= 0 || d.k <= 0) return out;
  std::optional<Diagnosis> pattern = pattern_hypotheses(d);
  const std::vector<Element> sample = sample_wrong_finite(d);
  std::optional<Diagnosis> value = value_hypotheses(d, sample);
  // A hypothesis that reads past A or B can still be tested where what lies
  // there is known: unused GPU memory is often 0. (The CPU backend's red
  // zones hold NaN, as C's poison past B often does on a GPU: elements that
  // read it are not finite and outside_read_hypotheses names them.)
  if (!value && !sample.empty()) {
    CaseData known = d;
    known.outside_known = true;
    known.outside_value = 0.0f;
    value = value_hypotheses(known, sample);
    const bool reads_outside = value && (value->id.rfind("ld.", 0) == 0 || value->id.rfind("index.", 0) == 0);
    if (reads_outside)
      value->text += " (it reads past the end of the matrix: the affected elements hold exactly what lies there, zeros)";
    else
      value.reset();
  }
  // A leading dimension found from the values is the more precise account of
  // the same bug as one found from the unwritten elements.
  if (pattern && value && pattern->id.rfind("ld.", 0) == 0 && value->id.rfind("ld.", 0) == 0) pattern.reset();
  if (pattern) out.push_back(*pattern);
  if (value) out.push_back(*value);
  if (out.empty())
    if (auto outside = outside_read_hypotheses(d)) out.push_back(*outside);
  return out;
}

}  // namespace sg
