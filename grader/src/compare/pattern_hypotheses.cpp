// Hypotheses about which elements were never written: each predicts the exact
// set of elements a kernel with one classic bug leaves holding the poison.
// One that also says the written elements are right (a swapped or rounded
// grid, a guard against the wrong size) is offered only where they are.
#include <string>
#include <vector>

#include "compare/candidates.h"

namespace sg {
namespace {

using evidence::ceil_to;
using evidence::count_of;
using evidence::kTiles;
using evidence::State;
using evidence::str;

// Whether exactly the elements that no thread reaches under C[row*ld + col]
// (row < m, col < n) still hold the poison.
bool c_written_with_rows_of(const evidence::CaseView& v, std::int64_t ld) {
  const CaseData& d = v.data();
  return evidence::unwritten_set_is(v, [&](std::int64_t i, std::int64_t j) {
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
int tile_with_one_loaded_row(const evidence::CaseView& v, std::int64_t written) {
  const CaseData& d = v.data();
  const double slack = 4 * v.scale() + 1e-12;
  for (const int T : kTiles) {
    std::int64_t tested = 0, matched = 0;
    const std::int64_t step = std::max<std::int64_t>(1, written / 96);
    for (std::int64_t j = 0; j < written; j += step) {
      double sum = 0, magnitude = 0;
      for (std::int64_t t = 0; t < d.k; t += T) {
        const double prod = double(d.a[t]) * double(d.b[t * d.n + j]);
        sum += prod;
        magnitude += std::fabs(prod);
      }
      ++tested;
      matched += std::fabs(double(d.c[j]) - sum) <= slack * magnitude + 1e-30 ? 1 : 0;
    }
    if (tested >= std::int64_t(evidence::kMinEvidence) && matched * 10 >= tested * 9) return T;
  }
  return 0;
}

// Only a leading run of row 0 was written: every thread computed row 0, so
// threadIdx.y and blockIdx.y were always 0 (a block of one row of threads on
// a one-dimensional grid, e.g. dim3 block(16) or a block of 256 x 1).
std::optional<Diagnosis> first_row_only(const evidence::CaseView& v) {
  const CaseData& d = v.data();
  const std::int64_t m = d.m, n = d.n;
  if (m < 2) return std::nullopt;
  std::int64_t written = 0;
  while (written < n && v.state(0, written) != State::Unwritten) ++written;
  if (written == 0 ||
      !evidence::unwritten_set_is(v, [&](std::int64_t i, std::int64_t j) { return i > 0 || j >= written; }))
    return std::nullopt;
  int T = tile_with_one_loaded_row(v, written);
  const bool from_values = T != 0;
  // Columns stop at a multiple of the tile edge when the grid is n / T blocks.
  for (const int t : kTiles)
    if (T == 0 && written < n && written % t == 0 && written == n / t * t) T = t;
  const std::string tt = T ? str(T) : "TILE_SIZE", tm1 = T ? str(T - 1) : "TILE_SIZE - 1";
  std::string text = "only row 0 of C was written (columns 0-" + str(written - 1) + "), rows 1-" + str(m - 1) +
                     " never: every thread computed row 0, so threadIdx.y and blockIdx.y were always 0 — the block "
                     "is one row of threads (blockDim.y = 1, e.g. dim3 block(" + tt + ") or " + tt + "*" + tt +
                     " threads in x) on a one-dimensional grid, so only one row of each tile is loaded and "
                     "computed";
  if (from_values)
    text += " (row 0's values are the sums over every " + tt + "th term only: rows 1-" + tm1 +
            " of each B tile were never loaded)";
  text += "; launch dim3 block(" + tt + ", " + tt + ") and dim3 grid((n + " + tm1 + ") / " + tt + ", (m + " + tm1 +
          ") / " + tt + ")";
  return make_diagnosis(DiagnosisId::BlockOneRow, text);
}

std::optional<Diagnosis> guard_hypotheses(const evidence::CaseView& v) {
  const std::int64_t m = v.data().m, n = v.data().n;
  if (!evidence::written_all_right(v)) return std::nullopt;
  if (m > n && evidence::unwritten_set_is(v, [&](std::int64_t i, std::int64_t) { return i >= n; }))
    return make_diagnosis(DiagnosisId::GuardRowVsN, "rows " + str(n) + " to " + str(m - 1) +
                                                        " of C were never written: the bounds "
                                                        "check compares the row with n = " +
                                                        str(n) + "; use row < m (m = " + str(m) + ") and col < n");
  if (n > m && evidence::unwritten_set_is(v, [&](std::int64_t, std::int64_t j) { return j >= m; }))
    return make_diagnosis(DiagnosisId::GuardColVsM, "columns " + str(m) + " to " + str(n - 1) +
                                                        " of C were never written: the "
                                                        "bounds check compares the column with m = " +
                                                        str(m) + "; use col < n (n = " + str(n) + ")");
  return std::nullopt;
}

// The tile edges among `tiles` for which `fits` holds; their formula in the
// text: "(n + 31) / 32" for one, "(n + TILE_SIZE - 1) / TILE_SIZE" for several.
template <typename Fits>
std::vector<int> fitting_tiles(const std::vector<int>& tiles, Fits fits) {
  std::vector<int> out;
  for (const int T : tiles)
    if (fits(T)) out.push_back(T);
  return out;
}
std::string blocks_for(const char* dim, const std::vector<int>& tiles) {
  if (tiles.size() == 1)
    return "(" + std::string(dim) + " + " + str(tiles[0] - 1) + ") / " + str(tiles[0]);
  return "(" + std::string(dim) + " + TILE_SIZE - 1) / TILE_SIZE";
}
std::string tiles_note(const std::vector<int>& tiles) {
  if (tiles.size() < 2) return "";
  std::string s;
  for (std::size_t i = 0; i < tiles.size(); ++i) s += (i == 0 ? "" : i + 1 == tiles.size() ? " or " : ", ") + str(tiles[i]);
  return " (tiles of " + s + " leave the same elements unwritten here)";
}

// A grid with x and y swapped, or rounded down, for some tile edge: the
// elements it leaves unwritten, with every written element right.
std::optional<Diagnosis> grid_hypotheses(const evidence::CaseView& v, const std::vector<int>& tiles) {
  const std::int64_t m = v.data().m, n = v.data().n;
  if (!evidence::written_all_right(v)) return std::nullopt;
  const std::vector<int> swapped = fitting_tiles(tiles, [&](int T) {
    const std::int64_t rows_covered = ceil_to(n, T), cols_covered = ceil_to(m, T);
    return m != n &&
           evidence::unwritten_set_is(v, [&](std::int64_t i, std::int64_t j) { return i >= rows_covered || j >= cols_covered; });
  });
  if (!swapped.empty()) {
    const int T = swapped.front();
    const std::int64_t rows = std::min(m, ceil_to(n, T)), cols = std::min(n, ceil_to(m, T));
    return make_diagnosis(DiagnosisId::GridSwappedXy, "the grid's x and y are swapped: it covers " +
                                                          count_of(rows, "row") + " and " + count_of(cols, "column") +
                                                          ", and the rest of C was never written; "
                                                          "gridDim.x must cover the n = " +
                                                          str(n) + " columns (" + blocks_for("n", swapped) +
                                                          ") and gridDim.y the m = " + str(m) + " rows (" +
                                                          blocks_for("m", swapped) + ")" + tiles_note(swapped));
  }
  const std::vector<int> floor = fitting_tiles(tiles, [&](int T) {
    const std::int64_t rows_floor = m / T * T, cols_floor = n / T * T;
    return (m % T || n % T) &&
           evidence::unwritten_set_is(v, [&](std::int64_t i, std::int64_t j) { return i >= rows_floor || j >= cols_floor; });
  });
  if (!floor.empty()) {
    const std::string tt = floor.size() == 1 ? str(floor[0]) : "TILE_SIZE";
    return make_diagnosis(DiagnosisId::GridFloor, "the last partial row or column of " + tt + "x" + tt +
                                                      " tiles was never written: "
                                                      "the grid is rounded down (m / " +
                                                      tt + ", n / " + tt + "); launch " + blocks_for("n", floor) +
                                                      " by " + blocks_for("m", floor) + " blocks" + tiles_note(floor));
  }
  return std::nullopt;
}

// A block of one row (or one column) of threads where the kernel expects T x T.
std::optional<Diagnosis> sparse_block_hypotheses(const evidence::CaseView& v, int T) {
  const std::int64_t m = v.data().m, n = v.data().n;
  const std::string tt = str(T);
  if (m > 1 && evidence::unwritten_set_is(v, [&](std::int64_t i, std::int64_t) { return i % T != 0; }))
    return make_diagnosis(DiagnosisId::BlockOneRow,
                          "only every " + tt + "th row of C was written (rows 0, " + tt + ", " + str(2 * T) +
                              ", ...): each block has one row of threads (blockDim.y = 1) where the kernel expects " +
                              tt + " x " + tt + " — launch dim3 block(" + tt + ", " + tt + ")");
  if (n > 1 && evidence::unwritten_set_is(v, [&](std::int64_t, std::int64_t j) { return j % T != 0; }))
    return make_diagnosis(DiagnosisId::BlockOneColumn,
                          "only every " + tt +
                              "th column of C was written: each block has one column of threads "
                              "(blockDim.x = 1) where the kernel expects " +
                              tt + " x " + tt + " — launch dim3 block(" + tt + ", " + tt + ")");
  return std::nullopt;
}

}  // namespace

std::optional<Diagnosis> pattern_hypotheses(const evidence::CaseView& v) {
  if (!v.examined() || v.count(State::Unwritten) == 0) return std::nullopt;
  const CaseData& d = v.data();
  const std::int64_t m = d.m, k = d.k, n = d.n;
  // C stored with rows of length ld (k or m): exactly the elements no
  // (row < m, col < n) reaches at row*ld + col stay unwritten, whatever B was
  // read with (which cannot be predicted when it reads past B).
  if (k != n && c_written_with_rows_of(v, k))
    return make_diagnosis(DiagnosisId::LdCUsesK,
                          "wrong leading dimension: C is written with rows of length k = " + str(k) +
                              " (C[row*k + col]), but its "
                              "rows have n = " +
                              str(n) +
                              " elements: store to C[row*n + col] (and read B[t*n + col]: B's rows "
                              "are n long too)");
  if (m != n && m != k && c_written_with_rows_of(v, m))
    return make_diagnosis(DiagnosisId::LdCUsesM,
                          "wrong leading dimension: C is written with rows of length m = " + str(m) +
                              " (C[row*m + col]), but its "
                              "rows have n = " +
                              str(n) + " elements: store to C[row*n + col]");
  if (auto one_row = first_row_only(v)) return one_row;
  // The assignment's tile edge first, then a guard against the wrong size
  // (exact, whatever the tile), then other tile edges: for some shapes a
  // swapped grid of 8x8 tiles leaves the same elements as a row guard against n.
  if (auto g = grid_hypotheses(v, {kTiles[0], kTiles[2]})) return g;
  if (auto g = sparse_block_hypotheses(v, kTiles[0])) return g;
  if (auto g = guard_hypotheses(v)) return g;
  if (auto g = grid_hypotheses(v, {kTiles[1]})) return g;
  for (const int T : {kTiles[1], kTiles[2]})
    if (auto g = sparse_block_hypotheses(v, T)) return g;
  return std::nullopt;
}

}  // namespace sg
