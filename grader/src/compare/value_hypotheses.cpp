// Hypotheses about the values: each recomputes what a kernel with one classic
// bug would have written for this case's inputs.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "compare/candidates.h"

namespace sg {
namespace {

using evidence::ceil_to;
using evidence::dot;
using evidence::kTiles;
using evidence::Model;
using evidence::Predicted;
using evidence::Prediction;
using evidence::State;
using evidence::str;

struct Candidate {
  DiagnosisId id;
  std::string text;
  Model model;
};

// The threads that store to flat element f when C is indexed with rows of
// length ld: every (row, col) with row*ld + col == f, row < m, col < n. None:
// the element is never written; one whose value is unknown: nothing is known.
template <typename Value>
Prediction writers_of(const CaseData& d, std::int64_t f, std::int64_t ld, Value value) {
  Prediction p = Prediction::unwritten();
  for (std::int64_t row = f / ld; row >= 0 && f - row * ld < d.n; --row) {
    if (row >= d.m) continue;
    const std::optional<Predicted> v = value(row, f - row * ld);
    if (!v) return Prediction::unknown();
    p.kind = Prediction::Kind::Values;
    p.values.push_back(*v);
  }
  return p;
}

void add_leading_dimensions(const CaseData& d, std::vector<Candidate>& out) {
  const std::int64_t m = d.m, k = d.k, n = d.n;
  const auto row_a = [k](std::int64_t i) { return [i, k](std::int64_t t) { return i * k + t; }; };
  const auto col_b = [n](std::int64_t j) { return [j, n](std::int64_t t) { return t * n + j; }; };
  if (k != n) {
    out.push_back({DiagnosisId::LdBAndCUseK,
                   "wrong leading dimension: B and C are indexed with rows of length k = " + str(k) +
                       " (B[t*k + col], C[row*k + col]), but both have rows of n = " + str(n) +
                       " elements: use B[t*n + col] and C[row*n + col]",
                   [&d, k, n, row_a](std::int64_t i, std::int64_t j) {
                     return writers_of(d, i * n + j, k, [&](std::int64_t r, std::int64_t col) {
                       return dot(d, k, row_a(r), [col, k](std::int64_t t) { return t * k + col; });
                     });
                   }});
    out.push_back({DiagnosisId::LdCUsesK,
                   "wrong leading dimension: C is written with rows of length k = " + str(k) +
                       " (C[row*k + col]), but its rows have n = " + str(n) + " elements: store to C[row*n + col]",
                   [&d, k, n, row_a, col_b](std::int64_t i, std::int64_t j) {
                     return writers_of(d, i * n + j, k, [&](std::int64_t r, std::int64_t col) {
                       return dot(d, k, row_a(r), col_b(col));
                     });
                   }});
    out.push_back({DiagnosisId::LdBUsesK,
                   "wrong leading dimension: B is read with rows of length k = " + str(k) +
                       " (B[t*k + col]), but its rows have n = " + str(n) + " elements: read B[t*n + col]",
                   [&d, k, row_a](std::int64_t i, std::int64_t j) {
                     return Prediction::of(dot(d, k, row_a(i), [j, k](std::int64_t t) { return t * k + j; }));
                   }});
  }
  if (m != n && m != k)
    out.push_back({DiagnosisId::LdCUsesM,
                   "wrong leading dimension: C is written with rows of length m = " + str(m) +
                       " (C[row*m + col]), but its rows have n = " + str(n) + " elements: store to C[row*n + col]",
                   [&d, m, n, k, row_a, col_b](std::int64_t i, std::int64_t j) {
                     return writers_of(d, i * n + j, m, [&](std::int64_t r, std::int64_t col) {
                       return dot(d, k, row_a(r), col_b(col));
                     });
                   }});
  if (m != k)
    out.push_back({DiagnosisId::LdAUsesM,
                   "wrong leading dimension: A is read with rows of length m = " + str(m) +
                       " (A[row*m + t]), but its rows have k = " + str(k) + " elements: read A[row*k + t]",
                   [&d, m, k, col_b](std::int64_t i, std::int64_t j) {
                     return Prediction::of(dot(d, k, [i, m](std::int64_t t) { return i * m + t; }, col_b(j)));
                   }});
  if (n != k)
    out.push_back({DiagnosisId::LdAUsesN,
                   "wrong leading dimension: A is read with rows of length n = " + str(n) +
                       " (A[row*n + t]), but its rows have k = " + str(k) + " elements: read A[row*k + t]",
                   [&d, n, k, col_b](std::int64_t i, std::int64_t j) {
                     return Prediction::of(dot(d, k, [i, n](std::int64_t t) { return i * n + t; }, col_b(j)));
                   }});
  if (m != n)
    out.push_back({DiagnosisId::LdBUsesM,
                   "wrong leading dimension: B is read with rows of length m = " + str(m) +
                       " (B[t*m + col]), but its rows have n = " + str(n) + " elements: read B[t*n + col]",
                   [&d, m, k, row_a](std::int64_t i, std::int64_t j) {
                     return Prediction::of(dot(d, k, row_a(i), [j, m](std::int64_t t) { return t * m + j; }));
                   }});
  out.push_back({DiagnosisId::IndexBTransposed,
                 "B is read as if it were transposed (B[col*k + t]); B is k x n and row-major: read B[t*n + col]",
                 [&d, k, row_a](std::int64_t i, std::int64_t j) {
                   return Prediction::of(dot(d, k, row_a(i), [j, k](std::int64_t t) { return j * k + t; }));
                 }});
  out.push_back({DiagnosisId::IndexATransposed,
                 "A is read as if it were transposed (A[t*m + row]); A is m x k and row-major: read A[row*k + t]",
                 [&d, m, k, col_b](std::int64_t i, std::int64_t j) {
                   return Prediction::of(dot(d, k, [i, m](std::int64_t t) { return t * m + i; }, col_b(j)));
                 }});
}

// A tile stored transposed in shared memory (its row taken from threadIdx.x,
// or written As[tx][ty]), with the loads' bounds checks moved along: what
// thread (ty, tx) sums over the tiles of T x T.
void add_transposed_tiles(const CaseData& d, std::vector<Candidate>& out) {
  const std::int64_t m = d.m, k = d.k, n = d.n;
  const char* const a_text =
      "the A tile is stored transposed in shared memory: As[ty][tx] holds A[tile row tx][tile column ty], its row "
      "taken from threadIdx.x and its column from threadIdx.y (or it is written As[tx][ty]); load As[ty][tx] = "
      "A[(blockIdx.y*TILE_SIZE + ty)*k + p*TILE_SIZE + tx]";
  const char* const b_text =
      "the B tile is stored transposed in shared memory: Bs[ty][tx] holds B[tile row tx][tile column ty], its row "
      "taken from threadIdx.x and its column from threadIdx.y (or it is written Bs[tx][ty]); load Bs[ty][tx] = "
      "B[(p*TILE_SIZE + ty)*n + blockIdx.x*TILE_SIZE + tx]";
  struct Kind {
    DiagnosisId id;
    bool a, b;
  };
  for (const Kind kind :
       {Kind{DiagnosisId::IndexATileTransposed, true, false}, Kind{DiagnosisId::IndexBTileTransposed, false, true},
        Kind{DiagnosisId::IndexTilesTransposed, true, true}}) {
    for (const int T : kTiles) {
      const std::string text = std::string(kind.a && kind.b ? "both tiles are stored transposed: " : "") +
                               (kind.a ? a_text : "") + (kind.a && kind.b ? "; and " : "") + (kind.b ? b_text : "") +
                               " (these values fit TILE_SIZE = " + str(T) + ")";
      const std::int64_t terms = ceil_to(k, T);
      out.push_back({kind.id, text, [&d, m, k, n, T, kind, terms](std::int64_t r, std::int64_t c) {
                       const std::int64_t r0 = r / T * T, c0 = c / T * T, ty = r - r0, tx = c - c0;
                       // Term t: tile p = t / T, index i = t % T within it; -1 is a term loaded as 0.
                       auto ia = [=](std::int64_t t) -> std::int64_t {
                         const std::int64_t p = t / T * T, i = t % T;
                         if (kind.a) return r0 + i < m && p + ty < k ? (r0 + i) * k + p + ty : -1;
                         return p + i < k ? r * k + p + i : -1;
                       };
                       auto ib = [=](std::int64_t t) -> std::int64_t {
                         const std::int64_t p = t / T * T, i = t % T;
                         if (kind.b) return p + tx < k && c0 + i < n ? (p + tx) * n + c0 + i : -1;
                         return p + i < k ? (p + i) * n + c : -1;
                       };
                       // A term is 0 when either factor is.
                       return Prediction::of(dot(d, terms, [&](std::int64_t t) { return ib(t) < 0 ? -1 : ia(t); },
                                                 [&](std::int64_t t) { return ia(t) < 0 ? -1 : ib(t); }));
                     }});
    }
  }
}

// Too few K terms: the sums stop after `covered` terms. Several bugs give the
// same count for some shapes (k / T rounded down, a loop count from n or m, a
// load's bounds check against m or n instead of k): each count is tested once
// and named with every cause that gives it, the assignment's tile edge first.
void add_short_sums(const CaseData& d, std::vector<Candidate>& out) {
  const std::int64_t m = d.m, k = d.k, n = d.n;
  enum Source { kFloor, kFromN, kFromM, kGuardM, kGuardN, kSources };
  struct Count {
    std::int64_t covered;
    std::vector<int> tiles[kSources];  // per source, the tile edges that give it (0: any)
  };
  std::vector<Count> counts;
  auto add = [&](std::int64_t covered, Source s, int tile) {
    if (covered <= 0 || covered >= k) return;
    for (Count& c : counts)
      if (c.covered == covered) return c.tiles[s].push_back(tile);
    counts.push_back({covered, {}});
    counts.back().tiles[s].push_back(tile);
  };
  for (const int T : kTiles) {
    if (k % T != 0) add(k / T * T, kFloor, T);
    add(ceil_to(n, T), kFromN, T);
    add(ceil_to(m, T), kFromM, T);
  }
  add(m, kGuardM, 0);
  add(n, kGuardN, 0);
  for (const Count& c : counts) {
    std::vector<std::string> causes;
    std::optional<DiagnosisId> id;
    int loop_tile = 0;
    for (int s = 0; s < kSources; ++s) {
      const std::vector<int>& tiles = c.tiles[s];
      if (tiles.empty()) continue;
      const char* dim = s == kFromN || s == kGuardN ? "n" : "m";
      std::string formulas;
      for (const int T : tiles) {
        if (T == 0) continue;  // a guard: no tile edge in it
        const std::string tt = str(T);
        formulas += (formulas.empty() ? "" : " or ") +
                    (s == kFloor ? "k / " + tt + " = " + str(k / T)
                                 : "(" + std::string(dim) + " + " + str(T - 1) + ") / " + tt + " = " + str(c.covered / T));
      }
      if (s == kFloor)
        causes.push_back("the loop over K tiles runs " + formulas + " times, skipping the last, partial tile");
      else if (s == kFromN || s == kFromM)
        causes.push_back("the loop over K tiles stops early: its count comes from " + std::string(dim) + " (" +
                         formulas + ")");
      else
        causes.push_back("a tile load compares its K index with " + std::string(dim) + " (p*TILE_SIZE + ty < " + dim +
                         " or p*TILE_SIZE + tx < " + dim + ", where k belongs), so every term from " + dim + " = " +
                         str(c.covered) + " on is loaded as 0");
      if (s <= kFromM && loop_tile == 0) loop_tile = tiles.front();
      const DiagnosisId this_id = s == kFloor    ? DiagnosisId::PhasesFloor
                                  : s == kFromN  ? DiagnosisId::PhasesFromN
                                  : s == kFromM  ? DiagnosisId::PhasesFromM
                                  : s == kGuardM ? DiagnosisId::GuardKVsM
                                                 : DiagnosisId::GuardKVsN;
      id = !id || *id == this_id ? this_id : DiagnosisId::PhasesShort;
    }
    std::string text = "the sums stop after the first " + str(c.covered) + " of the k = " + str(k) + " terms: ";
    for (std::size_t i = 0; i < causes.size(); ++i) text += (i == 0 ? "" : "; or ") + causes[i];
    if (loop_tile)
      text += "; the loop must run (k + " + str(loop_tile - 1) + ") / " + str(loop_tile) + " = " +
              str(ceil_to(k, loop_tile) / loop_tile) + " times, loading 0 past k";
    if (!c.tiles[kGuardM].empty() || !c.tiles[kGuardN].empty())
      text += std::string(loop_tile ? ", and" : ";") + " the loads' K indices (the column of A, the row of B) must be "
              "compared with k";
    out.push_back({*id, text, [&d, covered = c.covered, k, n](std::int64_t i, std::int64_t j) {
                     return Prediction::of(dot(d, covered, [i, k](std::int64_t t) { return i * k + t; },
                                               [j, n](std::int64_t t) { return t * n + j; }));
                   }});
  }
}

std::string number(double x) { return fmt::format("{:g}", x); }

// Every element off by the same amount: the padding of the partial K tile
// adds (tiles*T - k) products of what lies past k to every sum.
std::optional<Diagnosis> constant_offset(const evidence::CaseView& v) {
  const CaseData& d = v.data();
  const auto& wrong = v.sample(State::Wrong);
  if (wrong.size() < evidence::kMinEvidence) return std::nullopt;
  const std::int64_t x0 = wrong[0].i * d.n + wrong[0].j;
  const double off = double(d.c[x0]) - d.c64[x0];
  if (!(std::fabs(off) >= 0.5)) return std::nullopt;
  const Model shifted = [&](std::int64_t i, std::int64_t j) {
    const std::int64_t x = i * d.n + j;
    return Prediction::of(Predicted{d.c64[x] + off, d.abs_ab[x] + std::fabs(off)});
  };
  int first_tile = 0;
  for (const int T : kTiles)
    if (ceil_to(d.k, T) > d.k && first_tile == 0) first_tile = T;
  if (first_tile == 0 || !evidence::explains(v, shifted)) return std::nullopt;
  // A small whole p*p per extra term: the padding value p.
  for (const int T : kTiles) {
    const std::int64_t extra = ceil_to(d.k, T) - d.k;
    if (extra == 0) continue;
    const double pad2 = off / double(extra);
    if (pad2 < 1 || pad2 > 1e6 || std::fabs(pad2 - std::round(pad2)) > 1e-3) continue;
    const std::string p = number(std::sqrt(std::round(pad2)));
    return make_diagnosis(DiagnosisId::PaddingNonzero,
                          "every wrong element is off by the same " + number(off) + " = (" + str(ceil_to(d.k, T)) +
                              " - k) * " + p + " * " + p + ": the partial K tile is padded with " + p +
                              " instead of 0 — load 0.0f for columns of A and rows of B at or past k");
  }
  const std::int64_t extra = ceil_to(d.k, first_tile) - d.k;
  const double per_term = off / double(extra);
  return make_diagnosis(
      DiagnosisId::PaddingNonzero,
      "every element is off by the same " + number(off) + ", as if the " + str(extra) +
          " terms past k of the partial K tile ((" + str(ceil_to(d.k, first_tile)) + " - k) with " + str(first_tile) +
          "-wide tiles) each added " + number(per_term) +
          (per_term > 0 ? " (" + number(std::sqrt(per_term)) + " squared)" : "") +
          ": the partial K tile holds values other than 0 past k — it is read past the end of A or B "
          "without a bounds check (whatever lies there is added), or padded with a value other than 0; "
          "load 0.0f for columns of A and rows of B at or past k");
}

// A block of one row of threads (blockDim.y = 1): only row 0 of each B tile
// is loaded, and the rows nothing loads hold zeros (the CPU backend's shared
// memory), so row r0 of each tile sums every T-th term only. The other rows
// of C are left to the pattern of unwritten elements.
void add_one_row_block(const CaseData& d, std::vector<Candidate>& out) {
  const std::int64_t k = d.k, n = d.n;
  for (const int T : kTiles) {
    const std::string tt = str(T);
    out.push_back({DiagnosisId::BlockOneRow,
                   "the sums take only every " + tt + "th term (t = 0, " + tt + ", " + str(2 * T) +
                       ", ...): only row 0 of each B tile is loaded and the other rows stay zero — the block is one "
                       "row of threads (blockDim.y = 1, e.g. dim3 block(" +
                       tt + ")); launch dim3 block(" + tt + ", " + tt + ")",
                   [&d, k, n, T](std::int64_t r, std::int64_t c) {
                     if (r % T != 0) return Prediction::unknown();
                     return Prediction::of(dot(d, (k + T - 1) / T, [r, k, T](std::int64_t p) { return r * k + p * T; },
                                               [c, n, T](std::int64_t p) { return p * T * n + c; }));
                   }});
  }
}

std::vector<Candidate> candidates_for(const CaseData& d) {
  std::vector<Candidate> out;
  add_leading_dimensions(d, out);
  add_one_row_block(d, out);
  add_transposed_tiles(d, out);
  add_short_sums(d, out);
  return out;
}

}  // namespace

std::optional<Diagnosis> value_hypotheses(const evidence::CaseView& v) {
  if (!v.examined() || v.sample(State::Wrong).empty()) return std::nullopt;
  // Every candidate is tested: on a degenerate shape (one row, one K term)
  // two bugs can give the same values, and then both are named.
  std::vector<Candidate> fit;
  for (Candidate& c : candidates_for(v.data())) {
    bool known = false;
    for (const Candidate& f : fit) known = known || f.id == c.id;
    if (!known && evidence::explains(v, c.model)) fit.push_back(std::move(c));
  }
  if (fit.empty()) return constant_offset(v);
  Diagnosis d = make_diagnosis(fit[0].id, fit[0].text);
  for (std::size_t i = 1; i < fit.size(); ++i)
    d.text += (i == 1 ? "; these values fit just as well: " : "; or ") + fit[i].text;
  return d;
}

std::optional<Diagnosis> value_hypotheses_reading_zeros(const evidence::CaseView& v) {
  if (!v.examined() || v.sample(State::Wrong).empty()) return std::nullopt;
  CaseData zeros = v.data();
  zeros.outside_known = true;
  zeros.outside_value = 0.0f;
  const std::vector<Candidate> strict = candidates_for(v.data()), guessed = candidates_for(zeros);
  for (std::size_t c = 0; c < strict.size(); ++c) {
    // Only a candidate that reads outside A or B for some sampled element
    // has anything to add to the strict test it failed.
    bool reads_outside = false;
    for (int s = 0; s < evidence::kStates && !reads_outside; ++s)
      for (const evidence::Element& e : v.sample(State(s)))
        if (strict[c].model(e.i, e.j).kind == Prediction::Kind::Unknown) {
          reads_outside = true;
          break;
        }
    // That what lies there is 0 is a guess about the GPU's memory: a tenth of
    // the tested elements may hold something else.
    if (reads_outside && evidence::explains(v, guessed[c].model, true, 0.9))
      return make_diagnosis(guessed[c].id, guessed[c].text +
                                               " (it reads past the end of the matrix: the affected "
                                               "elements hold exactly what lies there, zeros)");
  }
  return std::nullopt;
}

}  // namespace sg
