#include "compare/diagnosis.h"

#include <cmath>
#include <cstdint>
#include <string>

#include "compare/diagnosis_catalogue.h"
#include "compare/tile_map.h"
#include "compare/tolerance.h"

namespace sg {
namespace {

constexpr int kTile = 16;  // TILE_SIZE of the assignment; the judge's map uses it too

// The comparison's tile map read back with the geometry compare() used.
struct MapView {
  bool valid = false;
  tile_map::Axis rows, cols;
  const std::vector<std::string>* map = nullptr;

  bool wrong(int r, int c) const { return (*map)[r][c] == '#'; }
  // Elements of C in cell (r, c).
  std::int64_t elements(int r, int c) const {
    return (rows.end(r) - rows.begin(r)) * (cols.end(c) - cols.begin(c));
  }
  template <typename Pred>
  bool all_wrong_cells(Pred pred) const {
    for (int r = 0; r < rows.cells; ++r)
      for (int c = 0; c < cols.cells; ++c)
        if (wrong(r, c) && !pred(r, c)) return false;
    return true;
  }
  template <typename Pred>
  int count_cells(Pred pred) const {
    int n = 0;
    for (int r = 0; r < rows.cells; ++r)
      for (int c = 0; c < cols.cells; ++c) n += pred(r, c) ? 1 : 0;
    return n;
  }
};

MapView view_of(const CaseEvidence& e) {
  MapView v;
  const auto& map = e.first.tile_map;
  if (map.empty() || e.m < 1 || e.n < 1) return v;
  v.rows = tile_map::make_axis(e.m, kTile, static_cast<int>(map.size()));
  v.cols = tile_map::make_axis(e.n, kTile, static_cast<int>(map[0].size()));
  if (v.rows.cells != static_cast<int>(map.size())) return v;  // built with other geometry
  for (const auto& line : map) {
    if (static_cast<int>(line.size()) != v.cols.cells) return v;
    for (char ch : line)
      if (ch != '#' && ch != '.') return v;
  }
  v.map = &map;
  v.valid = true;
  return v;
}

bool same_failures(const Comparison& a, const Comparison& b) {
  if (a.wrong != b.wrong || a.non_finite != b.non_finite || a.tile_map != b.tile_map ||
      a.first_wrong.size() != b.first_wrong.size())
    return false;
  for (std::size_t i = 0; i < a.first_wrong.size(); ++i) {
    const Mismatch &x = a.first_wrong[i], &y = b.first_wrong[i];
    const bool same_value = x.got == y.got || (std::isnan(x.got) && std::isnan(y.got));
    if (x.row != y.row || x.col != y.col || !same_value) return false;
  }
  return true;
}

std::string range_text(std::int64_t begin, std::int64_t end) {
  return end - begin == 1 ? std::to_string(begin)
                          : std::to_string(begin) + "-" + std::to_string(end - 1);
}

// With the case's data: whether every wrong element (i, j) satisfies `where`;
// the map's cells merge tiles on large outputs, the elements do not.
// Without data the map's reading stands.
template <typename Where>
bool wrong_only(const CaseEvidence& e, Where where) {
  if (!e.data || !e.data->c || !e.data->c64 || !e.data->abs_ab) return true;
  const CaseData& d = *e.data;
  const double scale = d.factor * gamma_k(d.k);
  for (std::int64_t i = 0; i < d.m; ++i)
    for (std::int64_t j = 0; j < d.n; ++j) {
      const std::int64_t x = i * d.n + j;
      const bool wrong = !std::isfinite(d.c[x]) || !(std::fabs(double(d.c[x]) - d.c64[x]) <= scale * d.abs_ab[x]);
      if (wrong && !where(i, j)) return false;
    }
  return true;
}

// Only the last (partial) row and/or column of tiles is wrong.
std::optional<Diagnosis> edge_diagnosis(const CaseEvidence& e, const MapView& v) {
  const bool m_ragged = e.m % kTile != 0, n_ragged = e.n % kTile != 0;
  const int last_r = v.rows.cells - 1, last_c = v.cols.cells - 1;
  auto on_edge = [&](int r, int c) {
    return (m_ragged && r == last_r) || (n_ragged && c == last_c);
  };
  // Evidence needs at least one tile away from the ragged edges that came out right.
  if (v.count_cells([&](int r, int c) { return !on_edge(r, c); }) == 0) return std::nullopt;
  if (!v.all_wrong_cells(on_edge)) return std::nullopt;
  if (!wrong_only(e, [&](std::int64_t i, std::int64_t j) {
        return (m_ragged && i >= v.rows.begin(last_r)) || (n_ragged && j >= v.cols.begin(last_c));
      }))
    return std::nullopt;
  const bool rows_hit = v.count_cells([&](int r, int c) { return v.wrong(r, c) && r == last_r; }) > 0;
  const bool cols_hit = v.count_cells([&](int r, int c) { return v.wrong(r, c) && c == last_c; }) > 0;
  std::string where;
  if (m_ragged && rows_hit)
    where = "the last row of tiles (rows " + range_text(v.rows.begin(last_r), e.m) + ", m = " +
            std::to_string(e.m) + ")";
  if (n_ragged && cols_hit)
    where += std::string(where.empty() ? "" : " and ") + "the last column of tiles (columns " +
             range_text(v.cols.begin(last_c), e.n) + ", n = " + std::to_string(e.n) + ")";
  const bool both = m_ragged && rows_hit && n_ragged && cols_hit;
  if (e.first.unwritten == e.first.wrong)
    return make_diagnosis(
        DiagnosisId::BoundaryEdgeUnwritten,
        "only " + where + (both ? " were" : " was") +
            " never written (still NaN): the grid is rounded down — use "
            "(n + TILE_SIZE - 1) / TILE_SIZE blocks in x and (m + TILE_SIZE - 1) / TILE_SIZE in y — or the store's "
            "bounds check "
            "skips valid elements (store when row < m && col < n)");
  // Outputs inside C whose every operand lies inside A and B (k a multiple
  // of any tile edge, the wrong edge only along m or only along n) cannot be
  // spoiled by a missing load guard: past row m of A only rows past m of C
  // are fed, past column n of B only columns past n. What reaches them is
  // the threads of the same block that lie outside C: a barrier they skip.
  const bool only_m_edge = m_ragged && rows_hit && !(n_ragged && cols_hit);
  const bool only_n_edge = n_ragged && cols_hit && !(m_ragged && rows_hit);
  if (e.k % 32 == 0 && (only_m_edge ? !n_ragged : only_n_edge && !m_ragged) && e.first.unwritten == 0)
    return make_diagnosis(
        DiagnosisId::BarrierDivergent,
        "only " + where +
            " is wrong, although every value those elements need lies inside A and B (k = " + std::to_string(e.k) +
            " is a multiple of the tile): the threads of those blocks that fall outside C "
            "disturb the others — a __syncthreads() inside if (row < m && col < n) (or a return before a "
            "barrier) that they skip puts the block's barriers out of step; call __syncthreads() "
            "unconditionally and guard only the loads and the store");
  return make_diagnosis(DiagnosisId::BoundaryEdgeWrong,
                        "only " + where + (both ? " are" : " is") +
                            " wrong, where the tile sticks out of the matrix: guard the edges "
                            "— load 0 into shared memory for rows >= m or columns >= n (and k), and store only "
                            "when row < m && col < n");
}

// Only the first column of tiles is wrong: unguarded stores past column n
// wrap into the next row's first columns.
std::optional<Diagnosis> wrapped_store_diagnosis(const CaseEvidence& e, const MapView& v) {
  if (e.n % kTile == 0 || e.m < 2 || v.cols.cells < 2) return std::nullopt;
  if (!v.all_wrong_cells([](int, int c) { return c == 0; })) return std::nullopt;
  // Past column n a thread of a tile of up to 32 lands in the next row's first 31 columns.
  if (!wrong_only(e, [](std::int64_t i, std::int64_t j) { return i >= 1 && j < 32; })) return std::nullopt;
  return make_diagnosis(DiagnosisId::StoreWrapsPastN,
                        "only the first column of tiles is wrong and n = " + std::to_string(e.n) +
                            " is not a multiple of the tile: threads past column n store into the next row "
                            "(C[row*n + col] with col >= n) — store only when col < n");
}

// Right inside the top-left min(m,n) square, wrong beyond it: grid x/y swapped.
std::optional<Diagnosis> swapped_grid_diagnosis(const CaseEvidence& e, const MapView& v) {
  if (e.m == e.n) return std::nullopt;
  const std::int64_t s = std::min(e.m, e.n);
  auto inside = [&](int r, int c) { return v.rows.end(r) <= s && v.cols.end(c) <= s; };
  auto outside = [&](int r, int c) { return v.rows.begin(r) >= s || v.cols.begin(c) >= s; };
  const int inside_cells = v.count_cells(inside);
  const int outside_cells = v.count_cells(outside);
  const int outside_wrong = v.count_cells([&](int r, int c) { return outside(r, c) && v.wrong(r, c); });
  if (inside_cells == 0 || outside_cells == 0) return std::nullopt;
  if (v.count_cells([&](int r, int c) { return inside(r, c) && v.wrong(r, c); }) > 0) return std::nullopt;
  // Most of the region beyond the square must be wrong, not just an edge.
  if (outside_wrong * 2 < outside_cells || outside_wrong < 2) return std::nullopt;
  return make_diagnosis(DiagnosisId::GridSwappedXy,
                        "only the top-left " + std::to_string(s) + " x " + std::to_string(s) +
                            " square of C is right: the grid's x and y may be swapped — x must cover the n "
                            "columns (gridDim.x = (n + TILE_SIZE - 1) / TILE_SIZE, col from blockIdx.x) and y "
                            "the m rows — or a bounds check compares with the wrong size");
}

// Every element of each marked tile is wrong, other tiles are right.
std::optional<Diagnosis> whole_tile_diagnosis(const CaseEvidence& e, const MapView& v) {
  if (v.rows.cells != v.rows.tiles || v.cols.cells != v.cols.tiles) return std::nullopt;  // merged
  std::int64_t in_marked = 0;
  int marked = 0;
  for (int r = 0; r < v.rows.cells; ++r)
    for (int c = 0; c < v.cols.cells; ++c)
      if (v.wrong(r, c)) {
        in_marked += v.elements(r, c);
        ++marked;
      }
  if (marked == 0 || marked == v.rows.cells * v.cols.cells || in_marked != e.first.wrong) return std::nullopt;
  if (e.first.unwritten == e.first.wrong) return make_diagnosis(DiagnosisId::TilesWholeUnwritten);
  return make_diagnosis(DiagnosisId::TilesWholeWrong);
}

// Small relative errors everywhere: reduced-precision arithmetic.
std::optional<Diagnosis> precision_diagnosis(const CaseEvidence& e, const MapView& v) {
  const Comparison& c = e.first;
  if (c.non_finite > 0 || c.first_wrong.empty() || !std::isfinite(c.worst_ratio)) return std::nullopt;
  if (c.wrong * 10 < c.checked) return std::nullopt;  // not spread: at least a tenth of C is off
  if (v.valid && v.count_cells([&](int r, int col) { return v.wrong(r, col); }) * 2 <
                     v.rows.cells * v.cols.cells)
    return std::nullopt;
  // Most, not all, of the kept mismatches: an expected value near zero makes
  // any relative error large.
  std::size_t small = 0;
  for (const Mismatch& w : c.first_wrong) {
    const double rel = std::fabs(w.got - w.expected) / std::fabs(w.expected);
    small += rel < 1e-2 ? 1 : 0;
  }
  if (small * 4 < c.first_wrong.size() * 3) return std::nullopt;
  return make_diagnosis(DiagnosisId::PrecisionReduced);
}

// The body of diagnose(); `reproduced` is set where a bug's prediction
// reproduced the output.
std::vector<Diagnosis> case_diagnoses(const CaseEvidence& e, bool& reproduced) {
  std::vector<Diagnosis> out;
  const Comparison& c = e.first;
  const bool differs =
      e.outputs_differ_between_runs || (e.repeat && !same_failures(c, *e.repeat));
  if (differs) out.push_back(make_diagnosis(DiagnosisId::RaceOutputChanges));
  if (c.wrong == 0 || c.checked == 0) return out;

  if (c.unwritten == c.checked) {
    out.push_back(make_diagnosis(DiagnosisId::UnwrittenAll));
    return out;
  }
  if (e.data) {
    // A bug whose prediction reproduces this output explains it better than
    // any reading of the pattern alone.
    const std::vector<Diagnosis> found = matching_hypotheses(*e.data);
    if (!found.empty()) {
      out.insert(out.end(), found.begin(), found.end());
      reproduced = true;
      return out;
    }
  }
  if (c.non_finite == c.checked && c.unwritten == 0) {
    out.push_back(make_diagnosis(DiagnosisId::NonfiniteComputed));
    return out;
  }
  bool all_zero = !c.first_wrong.empty();
  for (const Mismatch& w : c.first_wrong) all_zero = all_zero && w.got == 0;
  if (all_zero && c.non_finite == 0 && c.wrong * 10 >= c.checked * 9) {
    // Exact zeros, not small values: no product with two non-zero factors
    // reached the sum. A shared tile that nothing fills explains it as well
    // as a loop that never runs (its stale contents are zeros on the CPU
    // backend), and the output cannot tell them apart: name both. With k
    // below a tile edge a count of k / TILE_SIZE is 0, so that one leads.
    const std::string loop = "the loop over K tiles never runs (it must run (k + TILE_SIZE - 1) / TILE_SIZE times)";
    const std::string tile =
        "the A tile or the B tile is never filled from global memory (is its load, e.g. ds_B[ty][tx] = B[...], "
        "executed for in-range elements? shared memory nothing loads holds zeros on the CPU backend and garbage on "
        "a GPU)";
    const std::string head = "C holds exact zeros where A x B does not: every product the kernel added had a zero "
                             "factor, or none was added — ";
    if (e.k < 32)
      out.push_back(make_diagnosis(DiagnosisId::ZerosExact,
                                   head + loop + ": with k = " + std::to_string(e.k) +
                                       " a count of k / TILE_SIZE = 0 for a tile edge above k (" +
                                       (e.k < 16 ? "16" : "32") + " among them) gives exactly this; or " + tile +
                                       ", or the inner product is not added into the sum"));
    else
      out.push_back(make_diagnosis(DiagnosisId::ZerosExact,
                                   head + tile + ", or " + loop + ", or the inner product is not added into the sum"));
  }

  const MapView v = view_of(e);
  bool explained_nan = false;
  if (v.valid) {
    for (auto rule : {swapped_grid_diagnosis, edge_diagnosis, wrapped_store_diagnosis,
                      whole_tile_diagnosis}) {
      // With the data, a swapped grid was tested element by element among the
      // hypotheses and did not hold: the map's coarser reading is not offered.
      if (e.data && rule == swapped_grid_diagnosis) continue;
      std::optional<Diagnosis> d = rule(e, v);
      if (!d) continue;
      out.push_back(*d);
      explained_nan = true;
      break;  // the patterns exclude one another; the first is the most specific
    }
  }
  std::optional<Diagnosis> precision = precision_diagnosis(e, v);
  if (precision && !differs) out.push_back(*precision);

  // With the data and no cause confirmed: where the wrong elements are, and
  // no guess at why.
  const bool only_race = out.size() == (differs ? 1u : 0u);
  if (e.data && (only_race || (c.non_finite > 0 && !explained_nan))) {
    if (auto where = describe_wrong_elements(*e.data)) {
      out.push_back(*where);
      return out;
    }
  }
  if (c.non_finite > 0 && !explained_nan) {
    const std::int64_t computed = c.non_finite - c.unwritten;
    if (c.unwritten * 10 >= c.checked * 9)
      out.push_back(make_diagnosis(DiagnosisId::UnwrittenMost));
    else if (c.unwritten > 0)
      out.push_back(make_diagnosis(DiagnosisId::UnwrittenSome, std::to_string(c.unwritten) +
                                                                   " elements of C were never written (still the "
                                                                   "poison); the tile map shows where"));
    if (computed > 0 && c.unwritten * 10 < c.checked * 9)
      out.push_back(make_diagnosis(DiagnosisId::NonfiniteSome,
                                   std::to_string(computed) +
                                       " elements of C were written as NaN or Inf: "
                                       "they were computed from data outside A or B or from shared memory never "
                                       "loaded"));
  }
  return out;
}

}  // namespace

CaseDiagnosis diagnose(const CaseEvidence& e) {
  CaseDiagnosis d;
  d.causes = case_diagnoses(e, d.reproduced);
  return d;
}

std::vector<Diagnosis> diagnose_case(const CaseEvidence& e) { return diagnose(e).causes; }

std::vector<Diagnosis> diagnose_across(const std::vector<SizeOutcome>& outcomes) {
  struct Rule {
    bool (*holds)(const SizeOutcome&);
    DiagnosisId id;
    const char* condition;  // "k is not a multiple of 16"
    const char* cause;      // what that points to, and the fix
  };
  const Rule rules[] = {
      {[](const SizeOutcome& o) { return o.k % kTile != 0; }, DiagnosisId::AcrossKTail, "k is not a multiple of 16",
       "the last, partial K tile is mishandled — loop over (k + TILE_SIZE - 1) / TILE_SIZE tiles and load 0 into "
       "shared memory past column k of A and row k of B"},
      {[](const SizeOutcome& o) { return o.k != o.n; }, DiagnosisId::AcrossLeadingDimB, "k != n",
       "somewhere k and n are mixed up, e.g. a leading dimension — rows of A are k long (A[row*k + t]), rows of B and "
       "C are n long (B[t*n + col], C[row*n + col]), and the K loop and its loads' bounds use k"},
      {[](const SizeOutcome& o) { return o.m != o.k; }, DiagnosisId::AcrossLeadingDimA, "m != k",
       "somewhere m and k are mixed up, e.g. a leading dimension — rows of A are k long (A[row*k + t]), the K loop "
       "and its loads' bounds use k, the row bound is m"},
      {[](const SizeOutcome& o) { return o.m != o.n; }, DiagnosisId::AcrossGridSwapped, "m != n",
       "somewhere m and n are mixed up, e.g. the grid's x and y swapped — x must cover the n columns and y the m "
       "rows, rows are bounded by m and columns by n"},
      {[](const SizeOutcome& o) { return o.m % kTile != 0 || o.n % kTile != 0; }, DiagnosisId::AcrossRaggedMn,
       "m or n is not a multiple of 16",
       "the grid is rounded down (use (n + TILE_SIZE - 1) / TILE_SIZE by (m + TILE_SIZE - 1) / TILE_SIZE blocks) or "
       "bounds checks on rows/columns are missing"},
  };

  std::int64_t failing = 0;
  for (const auto& o : outcomes) failing += o.passed ? 0 : 1;
  if (failing == 0 || failing == static_cast<std::int64_t>(outcomes.size())) return {};

  // A rule qualifies when every failing case has the property, some passing
  // case lacks it, and few passing cases have it (counter-examples). Only
  // the rules with the fewest counter-examples count.
  std::vector<std::pair<std::int64_t, const Rule*>> candidates;
  for (const Rule& rule : rules) {
    bool necessary = true;
    std::int64_t passing_with = 0, passing_without = 0;
    for (const auto& o : outcomes) {
      const bool has = rule.holds(o);
      if (!o.passed && !has) necessary = false;
      if (o.passed) (has ? passing_with : passing_without) += 1;
    }
    if (necessary && passing_without > 0 && passing_with * 3 <= failing)
      candidates.emplace_back(passing_with, &rule);
  }
  std::int64_t best = -1;
  for (const auto& c : candidates)
    if (best < 0 || c.first < best) best = c.first;
  std::vector<const Rule*> fit;
  for (const auto& c : candidates)
    if (c.first == best) fit.push_back(c.second);
  if (fit.empty()) return {};
  if (fit.size() == 1)
    return {make_diagnosis(fit[0]->id, std::string("fails only when ") + fit[0]->condition + ": " + fit[0]->cause)};
  // Several properties fit these cases equally well: say so once, as one
  // diagnosis with each candidate, rather than as advice that contradicts itself.
  std::string conditions, causes;
  for (std::size_t i = 0; i < fit.size(); ++i) {
    const char* sep = i == 0 ? "" : i + 1 == fit.size() ? " and " : ", ";
    conditions += std::string(sep) + fit[i]->condition;
    causes += std::string(i == 0 ? "" : i + 1 == fit.size() ? "; or " : "; ") + fit[i]->cause;
  }
  return {make_diagnosis(DiagnosisId::AcrossAmbiguous,
                         "the failing cases are exactly those where " + conditions +
                             " (on this suite these coincide, so the sizes alone cannot tell which matters): " +
                             causes + ". The failing cases' own diagnoses test these against your output.")};
}

}  // namespace sg
