// What the wrong elements are, where no bug's prediction explains them: right
// sums stored in the wrong place, or else only where they are.
#include <string>
#include <vector>

#include "compare/candidates.h"

namespace sg {
namespace {

using evidence::count_of;
using evidence::Element;
using evidence::State;
using evidence::str;

constexpr std::size_t kMinMisplaced = 8;  // small-integer inputs make a few chance matches likely

// Another row (by_row) or column of C whose right value element e holds; -1: none.
std::int64_t source_of(const evidence::CaseView& v, const Element& e, bool by_row) {
  const CaseData& d = v.data();
  const double got = d.c[e.i * d.n + e.j];
  const std::int64_t extent = by_row ? d.m : d.n;
  for (std::int64_t s = 0; s < extent; ++s) {
    if (s == (by_row ? e.i : e.j)) continue;
    if (by_row ? v.right_value(s, e.j, got) : v.right_value(e.i, s, got)) return s;
  }
  return -1;
}

std::string element(std::int64_t i, std::int64_t j) { return "C[" + str(i) + "][" + str(j) + "]"; }

// Which rows and columns hold elements in state s: "rows 3, 40 (columns 0-47)".
std::string rows_and_columns(const evidence::CaseView& v, State s) {
  const CaseData& d = v.data();
  std::vector<bool> rows(d.m, false), cols(d.n, false);
  std::int64_t row_count = 0, col_count = 0;
  for (std::int64_t i = 0; i < d.m; ++i)
    for (std::int64_t j = 0; j < d.n; ++j)
      if (v.state(i, j) == s) {
        row_count += rows[i] ? 0 : 1;
        col_count += cols[j] ? 0 : 1;
        rows[i] = cols[j] = true;
      }
  return std::string(row_count == 1 ? "row " : "rows ") + evidence::ranges_text(rows) +
         (col_count == 1 ? " (column " : " (columns ") + evidence::ranges_text(cols) + ")";
}

}  // namespace

std::optional<Diagnosis> misplaced_store_hypotheses(const evidence::CaseView& v) {
  if (!v.examined() || v.count(State::NonFinite) > 0) return std::nullopt;
  const auto& wrong = v.sample(State::Wrong);
  if (wrong.size() < kMinMisplaced) return std::nullopt;
  for (const bool by_row : {true, false}) {
    std::vector<std::pair<Element, std::int64_t>> found;
    for (const Element& e : wrong) {
      const std::int64_t s = source_of(v, e, by_row);
      if (s < 0) break;
      found.push_back({e, s});
    }
    if (found.size() != wrong.size()) continue;
    const char* line = by_row ? "row" : "column";
    std::string examples;
    std::int64_t last_source = -1;
    for (const auto& [e, s] : found) {
      if (s == last_source) continue;
      examples += (examples.empty() ? "" : ", and ") + element(e.i, e.j) + " holds what belongs in " +
                  (by_row ? element(s, e.j) : element(e.i, s));
      if (last_source >= 0) break;
      last_source = s;
    }
    const std::int64_t unwritten = v.count(State::Unwritten);
    return make_diagnosis(
        by_row ? DiagnosisId::StoreRowMisplaced : DiagnosisId::StoreColMisplaced,
        std::string("the sums are right, but the store puts them in the wrong ") + line + ": every wrong element " +
            "written holds the right value of another " + line + " of C (" + examples + ")" +
            (unwritten ? "; " + count_of(unwritten, "element") + " in " + rows_and_columns(v, State::Unwritten) +
                             (unwritten == 1 ? " is" : " are") + " never written"
                       : "") +
            " — store each sum to C[row*n + col] with the " + line + " the thread computed" +
            (by_row ? " (blockIdx.y*TILE_SIZE + threadIdx.y), the one it read A with"
                    : " (blockIdx.x*TILE_SIZE + threadIdx.x), the one it read B with"));
  }
  return std::nullopt;
}

Diagnosis where_wrong(const evidence::CaseView& v) {
  const CaseData& d = v.data();
  const std::int64_t total = std::int64_t(d.m) * d.n;
  const std::int64_t wrong = v.count(State::Wrong) + v.count(State::Unwritten) + v.count(State::NonFinite);
  std::string parts;
  const std::pair<State, const char*> kinds[] = {{State::Unwritten, "never written (still the poison)"},
                                                 {State::Wrong, "written with a wrong value"},
                                                 {State::NonFinite, "written as NaN or Inf"}};
  for (const auto& [s, what] : kinds) {
    if (v.count(s) == 0) continue;
    parts += (parts.empty() ? "" : "; ") + str(v.count(s)) + " " + what + ", in " + rows_and_columns(v, s);
  }
  // The judge's 16x16 tiles, as in the tile map.
  const std::int64_t tile_rows = (d.m + 15) / 16, tile_cols = (d.n + 15) / 16;
  std::vector<bool> tiles(tile_rows * tile_cols, false);
  for (std::int64_t i = 0; i < d.m; ++i)
    for (std::int64_t j = 0; j < d.n; ++j)
      if (v.state(i, j) != State::Right) tiles[(i / 16) * tile_cols + j / 16] = true;
  std::int64_t wrong_tiles = 0;
  for (const bool t : tiles) wrong_tiles += t ? 1 : 0;
  return make_diagnosis(DiagnosisId::WrongWhere,
                        str(wrong) + " of " + str(total) + (wrong == 1 ? " elements is" : " elements are") +
                            " wrong, and no bug the grader knows reproduces that, so no cause is named: " + parts +
                            "; " + str(wrong_tiles) + " of the " + str(tile_rows * tile_cols) +
                            " 16x16 tiles "
                            "of C " +
                            (wrong_tiles == 1 ? "holds" : "hold") + " a wrong element");
}

}  // namespace sg
