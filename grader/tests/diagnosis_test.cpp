// Diagnoses from error patterns. The per-case patterns come from a small CPU
// emulation of the 16x16 tiled kernel with one classic bug switched on, so
// the tests see the patterns real submissions produce; a few come from
// hand-made outputs where no emulation is needed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "compare/diagnosis.h"
#include "backends/cpu/host_oracle.h"
#include "compare/tolerance.h"
#include "words/case_report.h"
#include "suite/suite_loader.h"

namespace sg {
namespace {

constexpr int T = 16;

// The tests read the sentences; DiagnosisIds checks the ids separately.
std::vector<std::string> texts_of(const std::vector<Diagnosis>& ds) {
  std::vector<std::string> out;
  for (const Diagnosis& d : ds) out.push_back(d.text);
  return out;
}
std::vector<std::string> case_texts(const CaseEvidence& e) { return texts_of(diagnose_case(e)); }
std::vector<std::string> across_texts(const std::vector<SizeOutcome>& o) { return texts_of(diagnose_across(o)); }

struct Bugs {
  int tile = 16;                // TILE_SIZE of the emulated kernel
  bool grid_floor = false;      // gridDim = m/T x n/T
  bool grid_swapped = false;    // gridDim.x from m, gridDim.y from n
  bool same_block_index = false;  // row and column both from blockIdx.x
  bool phases_floor = false;    // k/T phases: the partial K tile is skipped
  bool phases_from_n = false;   // (n + T - 1)/T phases
  bool no_load_guard = false;   // tiles loaded without bounds checks or zero fill
  float pad = 0.0f;             // what a guarded load puts past the edge
  bool no_store_guard = false;  // C stored without the row/col check
  bool row_guard_n = false;     // the store's guard compares the row with n
  bool b_stride_k = false;      // B indexed with k where n belongs
  bool c_stride_k = false;      // C indexed with k where n belongs
  bool one_row_block = false;   // blockDim.y = 1: only threadIdx.y == 0 exists
  bool grid_1d = false;         // gridDim.y = 1: only blockIdx.y == 0 exists
  bool c_stride_m = false;      // C indexed with m where n belongs
  bool b_tile_unloaded = false; // the in-bounds load of the B tile is missing (padding still 0)
  bool divergent_barrier = false;  // threads outside C skip the second barrier: their B-tile rows run a phase ahead
  float past_end = 0.5f;        // what reads past A and B find (NaN: a GPU's poisoned C after B)
  float stale = 0.5f;           // shared memory never loaded: GPU garbage; the CPU backend's is 0
  bool tf32 = false;            // inputs rounded to 10 mantissa bits before multiplying
  bool a_stride_n = false;      // A indexed with n where k belongs (A[row*n + t])
  bool a_tile_from_tx = false;  // the A tile loaded with its row from threadIdx.x: As holds the tile transposed
  bool b_guard_m = false;       // the B tile's load checks its K index against m instead of k
  bool store_row_squared = false;  // the store's row is blockIdx.y * blockIdx.y + threadIdx.y
};

float to_tf32(float x) {
  int e = 0;
  const float f = std::frexp(x, &e);
  return std::ldexp(std::round(std::ldexp(f, 11)) / 2048.0f, e);
}

// The bits the runners fill C with before a launch.
float poison() {
  float f;
  const std::uint32_t bits = kPoisonBits;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// Runs the tiled algorithm block by block on the CPU. Reads past the end of A
// or B and writes past the end of C land in padding, as on a GPU where they
// would usually hit other allocations.
std::vector<float> emulate(int m, int k, int n, const std::vector<float>& a_in,
                           const std::vector<float>& b_in, const Bugs& bug) {
  const int T = bug.tile;
  const std::size_t pad = 64 * 1024;
  std::vector<float> a(a_in), b(b_in);
  a.resize(a.size() + pad, bug.past_end);
  b.resize(b.size() + pad, bug.past_end);
  std::vector<float> c(std::size_t(m) * n + pad, poison());
  const int gx = bug.grid_floor ? n / T : bug.grid_swapped ? (m + T - 1) / T : (n + T - 1) / T;
  const int gy = bug.grid_1d ? 1 : bug.grid_floor ? m / T : bug.grid_swapped ? (n + T - 1) / T : (m + T - 1) / T;
  const int phases = bug.phases_floor ? k / T : bug.phases_from_n ? (n + T - 1) / T : (k + T - 1) / T;
  const int ldb = bug.b_stride_k ? k : n;
  const int ldc = bug.c_stride_k ? k : bug.c_stride_m ? m : n;
  const int rows_in_block = bug.one_row_block ? 1 : T;
  auto mul = [&](float x, float y) { return bug.tf32 ? to_tf32(x) * to_tf32(y) : x * y; };
  for (int by = 0; by < gy; ++by)
    for (int bx = 0; bx < gx; ++bx) {
      const int row0 = (bug.same_block_index ? bx : by) * T, col0 = bx * T;
      float sum[32][32] = {};
      for (int ph = 0; ph < phases; ++ph) {
        float as[32][32], bs[32][32];
        for (auto& r : as) std::fill(std::begin(r), std::end(r), bug.stale);  // never loaded
        for (auto& r : bs) std::fill(std::begin(r), std::end(r), bug.stale);
        for (int ty = 0; ty < rows_in_block; ++ty)
          for (int tx = 0; tx < T; ++tx) {
            const long ar = row0 + (bug.a_tile_from_tx ? tx : ty), ac = ph * T + (bug.a_tile_from_tx ? ty : tx);
            const long br = ph * T + ty, bc = col0 + tx;
            const bool a_in_range = ar < m && ac < k, b_in_range = br < (bug.b_guard_m ? m : k) && bc < n;
            const long lda = bug.a_stride_n ? n : k;
            as[ty][tx] = (a_in_range || bug.no_load_guard) ? a[std::min<std::size_t>(ar * lda + ac, a.size() - 1)] : bug.pad;
            if (bug.b_tile_unloaded && b_in_range) continue;
            if (bug.divergent_barrier && (ar >= m || bc >= n) && ph + 1 < phases) {
              const long ahead = br + T;
              bs[ty][tx] = ahead < k && bc < n ? b[ahead * ldb + bc] : bug.pad;
              continue;
            }
            bs[ty][tx] = (b_in_range || bug.no_load_guard) ? b[std::min<std::size_t>(br * ldb + bc, b.size() - 1)] : bug.pad;
          }
        for (int ty = 0; ty < rows_in_block; ++ty)
          for (int tx = 0; tx < T; ++tx)
            for (int t = 0; t < T; ++t) sum[ty][tx] = std::fma(1.0f, mul(as[ty][t], bs[t][tx]), sum[ty][tx]);
      }
      for (int ty = 0; ty < rows_in_block; ++ty)
        for (int tx = 0; tx < T; ++tx) {
          const long r = row0 + ty, col = col0 + tx;
          const bool in = (bug.row_guard_n ? r < n : r < m) && col < n;
          const long r_store = bug.store_row_squared ? long(by) * by + ty : r;
          if (in || bug.no_store_guard) c[std::min<std::size_t>(r_store * ldc + col, c.size() - 1)] = sum[ty][tx];
        }
    }
  c.resize(std::size_t(m) * n);
  return c;
}

struct Emulated {
  CaseEvidence evidence;
  std::vector<std::string> diagnoses;  // from the error pattern alone
  // The case's data, and what diagnose_case says when it may test hypotheses on it.
  std::vector<float> a, b, c;
  std::vector<double> c64, abs_ab;
  CaseData data;
  std::vector<Diagnosis> tested;
  bool reproduced = false;  // diagnose(): a bug's prediction reproduced the output
};

// Returned by pointer: `data` points into the object's own vectors.
std::unique_ptr<Emulated> run_case_with_data(int m, int k, int n, const Bugs& bug, std::uint64_t seed = 1) {
  auto r = std::make_unique<Emulated>();
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  r->a.resize(std::size_t(m) * k);
  r->b.resize(std::size_t(k) * n);
  for (float& x : r->a) x = u(rng);
  for (float& x : r->b) x = u(rng);
  host_oracle(m, n, k, r->a.data(), r->b.data(), r->c64, r->abs_ab);
  r->c = emulate(m, k, n, r->a, r->b, bug);
  CompareInput in;
  in.m = m;
  in.n = n;
  in.k = k;
  in.c = r->c.data();
  in.c64 = r->c64.data();
  in.abs_ab = r->abs_ab.data();
  r->evidence.m = m;
  r->evidence.k = k;
  r->evidence.n = n;
  r->evidence.first = compare(in);
  r->diagnoses = case_texts(r->evidence);
  r->data = CaseData{m, k, n, r->a.data(), r->b.data(), r->c.data(), r->c64.data(), r->abs_ab.data(), 2.0};
  CaseEvidence with_data = r->evidence;
  with_data.data = &r->data;
  const CaseDiagnosis found = diagnose(with_data);
  r->tested = found.causes;
  r->reproduced = found.reproduced;
  return r;
}

Emulated run_case(int m, int k, int n, const Bugs& bug, std::uint64_t seed = 1) {
  Emulated r = *run_case_with_data(m, k, n, bug, seed);
  r.data = CaseData{};  // its pointers were into the copied-from object
  return r;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += "[" + x + "] ";
  return s;
}

bool any_contains(const std::vector<std::string>& v, const std::string& needle) {
  for (const auto& x : v)
    if (x.find(needle) != std::string::npos) return true;
  return false;
}

TEST(DiagnosisTest, CorrectEmulationPassesWithoutDiagnoses) {
  for (auto [m, k, n] : {std::tuple{40, 50, 36}, {64, 64, 64}, {1, 7, 33}}) {
    const Emulated r = run_case(m, k, n, Bugs{});
    EXPECT_EQ(r.evidence.first.wrong, 0) << m << "x" << k << "x" << n;
    EXPECT_TRUE(r.diagnoses.empty()) << joined(r.diagnoses);
  }
}

TEST(DiagnosisTest, FlooredGridLeavesEdgeTilesUnwritten) {
  Bugs bug;
  bug.grid_floor = true;
  const Emulated r = run_case(40, 50, 36, bug);
  ASSERT_GT(r.evidence.first.wrong, 0);
  EXPECT_EQ(r.evidence.first.non_finite, r.evidence.first.wrong);
  EXPECT_EQ(r.evidence.first.unwritten, r.evidence.first.wrong);
  EXPECT_EQ(r.evidence.first.tile_map, (std::vector<std::string>{"..#", "..#", "###"}));
  ASSERT_FALSE(r.diagnoses.empty());
  EXPECT_NE(r.diagnoses[0].find("never written"), std::string::npos) << joined(r.diagnoses);
  EXPECT_NE(r.diagnoses[0].find("rows 32-39"), std::string::npos) << r.diagnoses[0];
  EXPECT_NE(r.diagnoses[0].find("columns 32-35"), std::string::npos) << r.diagnoses[0];

  // Only m ragged: only the last row of tiles is named.
  const Emulated rows_only = run_case(40, 32, 48, bug);
  ASSERT_FALSE(rows_only.diagnoses.empty());
  EXPECT_NE(rows_only.diagnoses[0].find("last row of tiles"), std::string::npos);
  EXPECT_EQ(rows_only.diagnoses[0].find("last column of tiles"), std::string::npos);
}

TEST(DiagnosisTest, EdgeTilesWithWrongValuesPointAtBoundaryChecks) {
  // Hand-made: the last, partial row of tiles holds finite wrong values.
  const int m = 200, n = 96;
  std::vector<double> c64(m * n, 2.0), abs_ab(m * n, 2.0);
  std::vector<float> c(m * n, 2.0f);
  for (int i = 192; i < m; ++i)
    for (int j = 0; j < n; ++j) c[i * n + j] = 3.0f;
  CompareInput in;
  in.m = m; in.n = n; in.k = 128;
  in.c = c.data(); in.c64 = c64.data(); in.abs_ab = abs_ab.data();
  CaseEvidence e;
  e.m = m; e.k = 128; e.n = n;
  e.first = compare(in);
  const auto d = case_texts(e);
  ASSERT_FALSE(d.empty());
  EXPECT_NE(d[0].find("last row of tiles (rows 192-199, m = 200)"), std::string::npos) << d[0];
  // k and n are multiples of the tile: no load guard can reach rows < m, so
  // the threads outside C disturbed the others (liuyuanlai_divergent_barrier).
  EXPECT_NE(d[0].find("__syncthreads() inside if (row < m && col < n)"), std::string::npos) << d[0];
  EXPECT_EQ(diagnose_case(e)[0].id, "barrier.divergent");

  // With k ragged as well, the partial K tile's loads may be at fault.
  CaseEvidence ragged_k = e;
  ragged_k.k = 100;
  const auto dk = case_texts(ragged_k);
  ASSERT_FALSE(dk.empty());
  EXPECT_NE(dk[0].find("load 0"), std::string::npos) << dk[0];

  // The same pattern when m is a multiple of 16 is not a boundary problem.
  CaseEvidence aligned = e;
  aligned.m = 208;  // geometry no longer explains the pattern as a ragged edge
  std::vector<double> c64b(208 * n, 2.0), abs_b(208 * n, 2.0);
  std::vector<float> cb(208 * n, 2.0f);
  for (int i = 192; i < 208; ++i)
    for (int j = 0; j < n; ++j) cb[i * n + j] = 3.0f;
  in.m = 208; in.c = cb.data(); in.c64 = c64b.data(); in.abs_ab = abs_b.data();
  aligned.first = compare(in);
  EXPECT_FALSE(any_contains(case_texts(aligned), "sticks out")) << joined(case_texts(aligned));
}

// liuyuanlai_divergent_barrier as a GPU runs it: in the blocks on the edge
// of C the threads outside skip the second barrier and load the next phase's
// B rows while the others still compute. Only m is ragged (m_not_multiple).
TEST(DiagnosisTest, EdgeWrongWithEveryOperandInsideNamesTheDivergentBarrier) {
  Bugs bug;
  bug.divergent_barrier = true;
  const auto r = run_case_with_data(196, 128, 96, bug);
  ASSERT_GT(r->evidence.first.wrong, 0);
  EXPECT_EQ(r->evidence.first.unwritten, 0);
  ASSERT_FALSE(r->tested.empty()) << joined(r->diagnoses);
  EXPECT_EQ(r->tested[0].id, "barrier.divergent") << r->tested[0].text;
  EXPECT_NE(r->tested[0].text.find("__syncthreads"), std::string::npos) << r->tested[0].text;
}

TEST(DiagnosisTest, UnguardedStoreWrapsIntoFirstTileColumn) {
  Bugs bug;
  bug.no_store_guard = true;
  const Emulated r = run_case(40, 32, 36, bug);
  ASSERT_GT(r.evidence.first.wrong, 0);
  ASSERT_FALSE(r.diagnoses.empty()) << "map: " << r.evidence.first.tile_map.size();
  EXPECT_NE(r.diagnoses[0].find("first column of tiles"), std::string::npos) << joined(r.diagnoses);
}

TEST(DiagnosisTest, SwappedGridLeavesOnlyTheSquareRight) {
  Bugs bug;
  bug.grid_swapped = true;
  for (auto [m, k, n] : {std::tuple{64, 40, 32}, {32, 40, 80}, {1000, 48, 333}}) {
    const Emulated r = run_case(m, k, n, bug);
    ASSERT_GT(r.evidence.first.wrong, 0);
    ASSERT_FALSE(r.diagnoses.empty()) << m << "x" << n;
    EXPECT_NE(r.diagnoses[0].find("swapped"), std::string::npos) << joined(r.diagnoses);
    EXPECT_NE(r.diagnoses[0].find(std::to_string(std::min(m, n)) + " square"), std::string::npos);
  }
}

TEST(DiagnosisTest, SameBlockIndexForRowsAndColumnsGivesWholeTiles) {
  Bugs bug;
  bug.same_block_index = true;
  const Emulated r = run_case(64, 32, 64, bug);
  ASSERT_GT(r.evidence.first.wrong, 0);
  EXPECT_EQ(r.evidence.first.tile_map[0], ".###");
  ASSERT_FALSE(r.diagnoses.empty());
  EXPECT_NE(r.diagnoses[0].find("whole tiles"), std::string::npos) << joined(r.diagnoses);
}

TEST(DiagnosisTest, SkippedPartialKTileWithKBelowTileGivesZeros) {
  Bugs bug;
  bug.phases_floor = true;
  const Emulated r = run_case(50, 7, 70, bug);
  EXPECT_EQ(r.evidence.first.wrong, r.evidence.first.checked);
  EXPECT_TRUE(any_contains(r.diagnoses, "C holds exact zeros")) << joined(r.diagnoses);
  // With k > 16 the same bug gives no zeros, so that hint must not appear.
  const Emulated big = run_case(40, 50, 36, bug);
  EXPECT_GT(big.evidence.first.wrong, 0);
  EXPECT_FALSE(any_contains(big.diagnoses, "zeros")) << joined(big.diagnoses);
}

// alvtdev_b_tile_not_loaded on the CPU backend: the B tile's load is
// missing, shared memory nothing loads is zero there, so C is all zeros. The
// output cannot tell which tile: the hint names a tile never filled, not
// only a sum that is never accumulated.
TEST(DiagnosisTest, ExactZerosNameATileThatIsNeverFilled) {
  Bugs bug;
  bug.b_tile_unloaded = true;
  bug.stale = 0.0f;
  const auto r = run_case_with_data(64, 64, 64, bug);
  EXPECT_EQ(r->evidence.first.wrong, r->evidence.first.checked);
  ASSERT_FALSE(r->tested.empty());
  EXPECT_EQ(r->tested[0].id, "zeros.exact") << r->tested[0].text;
  EXPECT_NE(r->tested[0].text.find("B tile is never filled"), std::string::npos) << r->tested[0].text;
  EXPECT_NE(r->tested[0].text.find("loop over K tiles never runs"), std::string::npos) << r->tested[0].text;
}

TEST(DiagnosisTest, ReducedPrecisionIsRecognised) {
  Bugs bug;
  bug.tf32 = true;
  const Emulated r = run_case(64, 256, 64, bug);
  ASSERT_GT(r.evidence.first.wrong * 10, r.evidence.first.checked);
  EXPECT_TRUE(any_contains(r.diagnoses, "reduced precision")) << joined(r.diagnoses);
  // A missing K tile also gives finite errors everywhere, but large ones.
  Bugs k_bug;
  k_bug.phases_floor = true;
  const Emulated k_tail = run_case(64, 250, 64, k_bug);
  ASSERT_GT(k_tail.evidence.first.wrong, 0);
  EXPECT_FALSE(any_contains(k_tail.diagnoses, "reduced precision")) << joined(k_tail.diagnoses);
}

TEST(DiagnosisTest, DifferentRunsMeanARace) {
  const Emulated r = run_case(40, 50, 36, Bugs{});
  CaseEvidence e = r.evidence;
  e.outputs_differ_between_runs = true;
  auto d = case_texts(e);
  ASSERT_FALSE(d.empty());
  EXPECT_NE(d[0].find("race"), std::string::npos);
  EXPECT_NE(d[0].find("__syncthreads()"), std::string::npos);

  // Or found by comparing two checked runs that fail differently.
  Bugs bug;
  bug.grid_floor = true;
  const Emulated first = run_case(40, 50, 36, bug, 1);
  const Emulated second = run_case(40, 50, 36, Bugs{}, 1);
  CaseEvidence two = first.evidence;
  two.repeat = &second.evidence.first;
  d = case_texts(two);
  ASSERT_FALSE(d.empty());
  EXPECT_NE(d[0].find("race"), std::string::npos);
  // The same failure twice is no race.
  two.repeat = &first.evidence.first;
  EXPECT_FALSE(any_contains(case_texts(two), "race"));
}

TEST(DiagnosisTest, AllNanMeansNothingWasWritten) {
  const int m = 33, n = 17;
  std::vector<double> c64(m * n, 1.0), abs_ab(m * n, 1.0);
  std::vector<float> c(m * n, poison());
  CompareInput in;
  in.m = m; in.n = n; in.k = 5;
  in.c = c.data(); in.c64 = c64.data(); in.abs_ab = abs_ab.data();
  CaseEvidence e;
  e.m = m; e.k = 5; e.n = n;
  e.first = compare(in);
  auto d = case_texts(e);
  ASSERT_EQ(d.size(), 1u) << joined(d);
  EXPECT_NE(d[0].find("NaN poison"), std::string::npos);

  // Most but not all NaN, in no tile pattern: the grid covers too little.
  for (int i = 0; i < m * n; i += 17) c[i] = 1.0f;
  e.first = compare(in);
  d = case_texts(e);
  EXPECT_TRUE(any_contains(d, "most of C was never written")) << joined(d);
}

TEST(DiagnosisTest, ComputedNanIsNotCalledUnwritten) {
  // Every element written, but as NaN (e.g. from garbage read out of bounds):
  // the poison test tells this from a kernel that wrote nothing.
  const int m = 33, n = 17;
  std::vector<double> c64(m * n, 1.0), abs_ab(m * n, 1.0);
  std::vector<float> c(m * n, std::numeric_limits<float>::quiet_NaN());
  CompareInput in;
  in.m = m; in.n = n; in.k = 5;
  in.c = c.data(); in.c64 = c64.data(); in.abs_ab = abs_ab.data();
  CaseEvidence e;
  e.m = m; e.k = 5; e.n = n;
  e.first = compare(in);
  EXPECT_EQ(e.first.unwritten, 0);
  const auto d = diagnose_case(e);
  ASSERT_FALSE(d.empty());
  EXPECT_EQ(d[0].id, "nonfinite.computed") << d[0].text;
  EXPECT_EQ(d[0].text.find("never written"), std::string::npos) << d[0].text;
}

// ---- hypotheses tested against the output -----------------------------------

TEST(DiagnosisHypotheses, LeadingDimensionKForBAndCIsNamedOnce) {
  Bugs bug;
  bug.b_stride_k = bug.c_stride_k = true;  // the k_as_leading_dim sample
  // k < n: B read with rows of k stays inside B, so the hypothesis can be
  // tested (with k > n it would read past B, which nothing can predict).
  const auto r = run_case_with_data(45, 29, 37, bug);
  ASSERT_GT(r->evidence.first.wrong, 0);
  ASSERT_FALSE(r->tested.empty());
  EXPECT_EQ(r->tested[0].id, "ld.b_and_c_use_k") << r->tested[0].text;
  EXPECT_NE(r->tested[0].text.find("k = 29"), std::string::npos) << r->tested[0].text;
  EXPECT_TRUE(is_confirmed_hypothesis(r->tested[0]));
  EXPECT_TRUE(r->reproduced);
}

TEST(DiagnosisHypotheses, OnlyBWithStrideKIsToldApartFromBAndC) {
  Bugs bug;
  bug.b_stride_k = true;
  const auto r = run_case_with_data(40, 30, 50, bug);
  ASSERT_FALSE(r->tested.empty());
  EXPECT_EQ(r->tested[0].id, "ld.b_uses_k") << r->tested[0].text;
}

TEST(DiagnosisHypotheses, PhaseCountFromNInsteadOfK) {
  Bugs bug;
  bug.phases_from_n = true;
  const auto r = run_case_with_data(40, 100, 20, bug);  // (n + 15) / 16 = 2 tiles of k = 100's 7
  ASSERT_GT(r->evidence.first.wrong, 0);
  ASSERT_FALSE(r->tested.empty());
  EXPECT_EQ(r->tested[0].id, "phases.from_n") << r->tested[0].text;
  EXPECT_NE(r->tested[0].text.find("first 32 of the k = 100"), std::string::npos) << r->tested[0].text;
  EXPECT_NE(r->tested[0].text.find("from n"), std::string::npos) << r->tested[0].text;
}

TEST(DiagnosisHypotheses, PaddingWithOneInsteadOfZero) {
  Bugs bug;
  bug.pad = 1.0f;
  const auto r = run_case_with_data(40, 50, 36, bug);  // 64 - 50 = 14 extra terms of 1 * 1
  ASSERT_GT(r->evidence.first.wrong, 0);
  ASSERT_FALSE(r->tested.empty());
  EXPECT_EQ(r->tested[0].id, "padding.nonzero") << r->tested[0].text;
  EXPECT_NE(r->tested[0].text.find("padded with 1 instead of 0"), std::string::npos) << r->tested[0].text;
}

TEST(DiagnosisHypotheses, SwappedGridIsToldApartFromAGuardAgainstN) {
  Bugs swapped;
  swapped.grid_swapped = true;
  const auto s = run_case_with_data(100, 32, 40, swapped);
  ASSERT_FALSE(s->tested.empty()) << joined(s->diagnoses);
  EXPECT_EQ(s->tested[0].id, "grid.swapped_xy") << s->tested[0].text;

  // The grid is right, but the store's guard compares the row with n: the
  // same "top-left square right" look, another bug.
  Bugs guard;
  guard.row_guard_n = true;
  const auto g = run_case_with_data(100, 32, 40, guard);
  ASSERT_FALSE(g->tested.empty()) << joined(g->diagnoses);
  EXPECT_EQ(g->tested[0].id, "guard.row_vs_n") << g->tested[0].text;
  EXPECT_NE(g->tested[0].text.find("rows 40 to 99"), std::string::npos) << g->tested[0].text;
}

TEST(DiagnosisHypotheses, BlockOfOneRowIsNamedByItsShape) {
  Bugs bug;
  bug.one_row_block = true;
  const auto r = run_case_with_data(64, 32, 48, bug);
  ASSERT_FALSE(r->tested.empty()) << joined(r->diagnoses);
  EXPECT_EQ(r->tested[0].id, "block.one_row") << r->tested[0].text;
  EXPECT_NE(r->tested[0].text.find("blockDim.y = 1"), std::string::npos);
}

// thomasjy_block_16x1_grid_1d and its kin: dim3 block(16) on a 1-D grid, so
// every thread computes row 0. On the CPU backend the B tile's rows 1-15 stay
// zero, and row 0's values give the tile edge away.
TEST(DiagnosisHypotheses, OneRowBlockOnAOneDimensionalGridIsNamedWithItsTile) {
  Bugs bug;
  bug.one_row_block = bug.grid_1d = true;
  bug.stale = 0.0f;
  const auto r = run_case_with_data(64, 48, 80, bug);
  ASSERT_FALSE(r->tested.empty()) << joined(r->diagnoses);
  EXPECT_EQ(r->tested[0].id, "block.one_row") << r->tested[0].text;
  for (const char* w : {"only row 0 of C", "blockDim.y = 1", "every 16th term", "dim3 block(16, 16)"})
    EXPECT_NE(r->tested[0].text.find(w), std::string::npos) << w << " in " << r->tested[0].text;

  bug.tile = 8;
  const auto e = run_case_with_data(64, 48, 80, bug);
  ASSERT_FALSE(e->tested.empty()) << joined(e->diagnoses);
  EXPECT_EQ(e->tested[0].id, "block.one_row") << e->tested[0].text;
  EXPECT_NE(e->tested[0].text.find("dim3 block(8, 8)"), std::string::npos) << e->tested[0].text;
  EXPECT_EQ(e->tested[0].text.find("16"), std::string::npos) << e->tested[0].text;
}

// On a GPU the never-loaded rows hold stale values: the shape is still
// named from the written elements alone, without claiming a tile edge.
TEST(DiagnosisHypotheses, OneRowBlockWithStaleSharedMemoryNamesNoTileItCannotSee) {
  Bugs bug;
  bug.one_row_block = bug.grid_1d = true;  // stale = 0.5: GPU garbage
  const auto r = run_case_with_data(64, 48, 80, bug);
  ASSERT_FALSE(r->tested.empty()) << joined(r->diagnoses);
  EXPECT_EQ(r->tested[0].id, "block.one_row") << r->tested[0].text;
  EXPECT_NE(r->tested[0].text.find("blockDim.y = 1"), std::string::npos) << r->tested[0].text;
  EXPECT_NE(r->tested[0].text.find("dim3 block(TILE_SIZE, TILE_SIZE)"), std::string::npos) << r->tested[0].text;
  EXPECT_EQ(r->tested[0].text.find("every 16th term"), std::string::npos) << r->tested[0].text;
}

// liuyuanlai_divergent_barrier_c_stride_m: C[Row*m + Col]. With m < n rows
// overlap (threads race for an element) and the end of C is never written;
// recomputing C under "C's rows are m long" reproduces both.
TEST(DiagnosisHypotheses, CWrittenWithRowStrideMIsNamed) {
  Bugs bug;
  bug.c_stride_m = true;
  const auto r = run_case_with_data(64, 96, 128, bug);
  ASSERT_GT(r->evidence.first.unwritten, 0);
  ASSERT_FALSE(r->tested.empty()) << joined(r->diagnoses);
  EXPECT_EQ(r->tested[0].id, "ld.c_uses_m") << r->tested[0].text;
  EXPECT_NE(r->tested[0].text.find("leading dimension"), std::string::npos) << r->tested[0].text;
  EXPECT_NE(r->tested[0].text.find("m = 64"), std::string::npos) << r->tested[0].text;
  // m > n: rows spread out, skipping elements; still C's stride.
  const auto t = run_case_with_data(96, 40, 64, bug);
  ASSERT_FALSE(t->tested.empty()) << joined(t->diagnoses);
  EXPECT_EQ(t->tested[0].id, "ld.c_uses_m") << t->tested[0].text;
  // A correct kernel on the same shapes claims nothing.
  EXPECT_TRUE(run_case_with_data(64, 96, 128, Bugs{})->tested.empty());
}

// alvtdev_b_stride_k on a GPU (and on the CPU backend, whose red zones hold
// NaN): B read with rows of k = 384 > n runs past the end of B into NaN for
// every element; nothing finite is left to test, but
// only B's leading dimension reads outside for them (k is a multiple of 16,
// so an unguarded partial tile cannot).
TEST(DiagnosisHypotheses, NonFiniteFromReadsPastBAreTracedToItsLeadingDimension) {
  Bugs bug;
  bug.b_stride_k = true;
  bug.past_end = std::numeric_limits<float>::quiet_NaN();
  const auto r = run_case_with_data(128, 384, 256, bug);
  ASSERT_EQ(r->evidence.first.non_finite, r->evidence.first.checked);
  ASSERT_EQ(r->evidence.first.unwritten, 0);
  ASSERT_FALSE(r->tested.empty()) << joined(r->diagnoses);
  EXPECT_EQ(r->tested[0].id, "ld.b_uses_k") << r->tested[0].text;
  EXPECT_NE(r->tested[0].text.find("leading dimension"), std::string::npos) << r->tested[0].text;
  EXPECT_NE(r->tested[0].text.find("past the end of B"), std::string::npos) << r->tested[0].text;
}

// iambyt3z_masked_loads on a GPU: the partial K tile is read unguarded,
// past the end of B. With k == n only the unguarded load reads outside.
TEST(DiagnosisHypotheses, NonFiniteFromAnUnguardedPartialTileNameTheLoad) {
  Bugs bug;
  bug.no_load_guard = true;
  bug.past_end = std::numeric_limits<float>::quiet_NaN();
  const auto r = run_case_with_data(64, 100, 100, bug);
  ASSERT_GT(r->evidence.first.non_finite, 0);
  ASSERT_FALSE(r->tested.empty()) << joined(r->diagnoses);
  EXPECT_EQ(r->tested[0].id, "load.unguarded") << r->tested[0].text;
  EXPECT_NE(r->tested[0].text.find("out-of-bounds"), std::string::npos) << r->tested[0].text;
  // k_not_multiple (k != n): B read with rows of k would read outside for the
  // same elements; both causes are named, under one id.
  const auto t = run_case_with_data(128, 196, 96, bug);
  ASSERT_FALSE(t->tested.empty()) << joined(t->diagnoses);
  EXPECT_EQ(t->tested[0].id, "memory.reads_outside") << t->tested[0].text;
  EXPECT_NE(t->tested[0].text.find("bounds check on k"), std::string::npos) << t->tested[0].text;
  // Non-finite values where no candidate reads outside are not explained.
  Bugs nan_inputs;
  nan_inputs.stale = std::numeric_limits<float>::quiet_NaN();
  nan_inputs.b_tile_unloaded = true;
  const auto u = run_case_with_data(64, 64, 64, nan_inputs);
  for (const auto& d : u->tested) EXPECT_FALSE(is_confirmed_hypothesis(d)) << d.id << ": " << d.text;
  EXPECT_FALSE(u->reproduced);
}

// thomasjy_block_256x1 on the CPU backend: the overrun of a shared tile
// stops the kernel, and the reply's facts give the block shape and the
// array; the first hint is the 256 x 1 block behind it, with the tile edge
// the overrun array shows.
TEST(DiagnosisHypotheses, SharedOverrunByABlockOfOneRowNamesTheBlock) {
  CaseOutcome o;
  o.kind = CaseOutcome::Kind::CudaError;
  o.failure = CaseOutcome::Failure::CudaError;
  o.message = "out-of-bounds read of __shared__ ds_B at index 271 (allocation of 256 floats) by thread "
              "(255,0) of block (0,0) (blocks of 256x1 threads)";
  o.facts.block_x = 256;
  o.facts.block_y = 1;
  o.facts.grid_x = 256;
  o.facts.grid_y = 1;
  o.facts.fault = sg::proto::FaultKind::OutOfBounds;
  o.facts.fault_shared = 1;
  o.facts.fault_elements = 256;
  TestResult t;
  record_runner_failure(t, o);
  EXPECT_EQ(t.verdict, "CUDA error: " + o.message) << "the CPU layer's message names the thread and its block already";
  ASSERT_FALSE(t.diagnoses.empty());
  EXPECT_EQ(t.diagnoses[0].id, "block.one_row") << t.diagnoses[0].text;
  EXPECT_EQ(t.diagnoses[0].text,
            "the kernel ran with blocks of 256 x 1 threads (blockDim.y = 1): threadIdx.y is always 0, so only one "
            "row of each tile is loaded and computed, and threadIdx.x runs up to 255, past the edge of a 16 x 16 "
            "tile (the access named above) — launch dim3 block(16, 16) and a two-dimensional grid, dim3 grid((n + "
            "16 - 1) / 16, (m + 16 - 1) / 16)");
  for (const auto& d : t.diagnoses) EXPECT_NE(d.id, "memory.illegal_address") << d.text;
  // A square block's overrun is something else: no shape is blamed.
  o.message = "out-of-bounds read of __shared__ ds_B at index 271 (allocation of 256 floats) by thread "
              "(15,15) of block (0,0) (blocks of 16x16 threads)";
  o.facts.block_x = o.facts.block_y = 16;
  TestResult square;
  record_runner_failure(square, o);
  for (const auto& d : square.diagnoses) EXPECT_NE(d.id, "block.one_row") << d.text;
  // Dynamic shared memory (no element count, no __shared__ array): the block is
  // still blamed, with no tile edge and no access pointed at.
  o.facts.block_x = 256;
  o.facts.block_y = 1;
  o.facts.fault_shared = 0;
  o.facts.fault_elements = 0;
  TestResult dynamic;
  record_runner_failure(dynamic, o);
  ASSERT_FALSE(dynamic.diagnoses.empty());
  EXPECT_NE(dynamic.diagnoses[0].text.find("past the edge of a TILE_SIZE x TILE_SIZE tile — launch"),
            std::string::npos)
      << dynamic.diagnoses[0].text;
}

// The same kernel on the GPU: an illegal address, and the runner's facts of
// the launch's shape (runner_main.cu), which the verdict says after the
// CUDA error as it always has; the block still leads.
TEST(DiagnosisHypotheses, AnIllegalAddressOnTheGpuWithABlockOfOneRowNamesTheBlock) {
  CaseOutcome o;
  o.kind = CaseOutcome::Kind::CudaError;
  o.failure = CaseOutcome::Failure::CudaError;
  o.message = "cudaDeviceSynchronize() failed: cudaErrorIllegalAddress (an illegal memory access was encountered)";
  o.facts.block_x = 256;
  o.facts.block_y = 1;
  o.facts.grid_x = 256;
  o.facts.grid_y = 1;
  o.facts.fault = sg::proto::FaultKind::IllegalAddress;
  TestResult t;
  record_runner_failure(t, o);
  EXPECT_EQ(t.verdict, "CUDA error: cudaDeviceSynchronize() failed: cudaErrorIllegalAddress (an illegal memory "
                       "access was encountered) (blocks of 256x1 threads, grid 256x1)");
  ASSERT_GE(t.diagnoses.size(), 2u);
  EXPECT_EQ(t.diagnoses[0].id, "block.one_row") << t.diagnoses[0].text;
  EXPECT_NE(t.diagnoses[0].text.find("blockDim.y = 1"), std::string::npos) << t.diagnoses[0].text;
  EXPECT_EQ(t.diagnoses[0].text.find("named above"), std::string::npos) << "the GPU names no access";
  EXPECT_EQ(t.diagnoses[1].id, "memory.illegal_address");
}

// The reply's facts decide, never the words of a cause (issue 32, item 3): a
// cause that reads like a 256x1 launch and an illegal address, with no facts,
// is blamed on neither; the facts alone, with a cause that says nothing of
// the launch, name the block and the shape.
TEST(DiagnosisHypotheses, TheReplysFactsNotItsWordsDriveTheBlockOfOneRow) {
  CaseOutcome words;
  words.kind = CaseOutcome::Kind::CudaError;
  words.failure = CaseOutcome::Failure::CudaError;
  words.message = "kernel printed cudaErrorIllegalAddress (blocks of 256x1 threads, grid 256x1) and "
                  "(allocation of 256 floats) of __shared__ x";
  TestResult w;
  record_runner_failure(w, words);
  EXPECT_EQ(w.verdict, "CUDA error: " + words.message);
  for (const auto& d : w.diagnoses) {
    EXPECT_NE(d.id, "block.one_row") << d.text;
    EXPECT_NE(d.id, "memory.illegal_address") << d.text;
  }
  CaseOutcome facts;
  facts.kind = CaseOutcome::Kind::LaunchError;
  facts.failure = CaseOutcome::Failure::LaunchFailed;
  facts.message = "basicSgemm's kernel failed";
  facts.facts.block_x = 64;
  facts.facts.block_y = 1;
  facts.facts.grid_x = 1024;
  facts.facts.grid_y = 1;
  TestResult f;
  record_runner_failure(f, facts);
  EXPECT_EQ(f.verdict, "basicSgemm's kernel failed (blocks of 64x1 threads, grid 1024x1)");
  ASSERT_FALSE(f.diagnoses.empty());
  EXPECT_EQ(f.diagnoses[0].id, "block.one_row");
  EXPECT_NE(f.diagnoses[0].text.find("blocks of 64 x 1 threads"), std::string::npos) << f.diagnoses[0].text;
  EXPECT_NE(f.diagnoses[0].text.find("threadIdx.x runs up to 63"), std::string::npos) << f.diagnoses[0].text;
  for (const auto& d : f.diagnoses) EXPECT_NE(d.id, "memory.illegal_address") << d.text;
}

// A CPU-backend case that ran out of time while its blocks kept completing is
// no hang: the hint names the grid's size, not a loop or a barrier.
TEST(DiagnosisHypotheses, ATimeoutWhileBlocksKeptCompletingIsNoHang) {
  CaseOutcome slow;
  slow.kind = CaseOutcome::Kind::TimedOut;
  slow.extended = true;
  slow.failure = CaseOutcome::Failure::TimedOutExtended;
  slow.after_s = 80;
  slow.limit_s = 40;
  TestResult t;
  record_runner_failure(t, slow);
  ASSERT_FALSE(t.diagnoses.empty());
  EXPECT_EQ(t.diagnoses[0].id, "grid.slow_on_cpu");
  for (const auto& d : t.diagnoses) EXPECT_NE(d.id, "hang.timeout");
  CaseOutcome stuck;
  stuck.kind = CaseOutcome::Kind::TimedOut;
  TestResult h;
  record_runner_failure(h, stuck);
  ASSERT_FALSE(h.diagnoses.empty());
  EXPECT_EQ(h.diagnoses[0].id, "hang.timeout");
}

TEST(DiagnosisHypotheses, TheStudentsTileSizeIsUsedInTheHint) {
  Bugs bug;
  bug.tile = 8;
  bug.phases_floor = true;
  // 60 / 8 = 7 tiles cover 56 terms: no 16-wide count gives 56 for this shape.
  const auto r = run_case_with_data(40, 60, 36, bug);
  ASSERT_FALSE(r->tested.empty()) << joined(r->diagnoses);
  EXPECT_EQ(r->tested[0].id, "phases.floor") << r->tested[0].text;
  EXPECT_NE(r->tested[0].text.find("k / 8 = 7"), std::string::npos) << r->tested[0].text;
  EXPECT_EQ(r->tested[0].text.find("16"), std::string::npos) << r->tested[0].text;
}

TEST(DiagnosisHypotheses, NothingIsClaimedForACorrectKernelOrAnUnrelatedBug) {
  const auto ok = run_case_with_data(45, 37, 29, Bugs{});
  EXPECT_TRUE(ok->tested.empty());
  Bugs race_like;
  race_like.tf32 = true;  // reduced precision: no bug hypothesis reproduces it
  const auto p = run_case_with_data(64, 64, 64, race_like);
  for (const auto& d : p->tested) EXPECT_FALSE(is_confirmed_hypothesis(d)) << d.id << ": " << d.text;
  EXPECT_FALSE(p->reproduced);
}

// ---- issue 36, item 10: hints that tell the truth ----------------------------
// Each hint below was offered although it does not explain the wrong
// elements; the rule is that a hypothesis is checked against every kind of
// element (wrong, right, unwritten, computed as NaN) before it is offered.

std::string all_text(const std::vector<Diagnosis>& ds) {
  std::string s;
  for (const Diagnosis& d : ds) s += "[" + d.id + "] " + d.text + "\n";
  return s;
}

// floor_phases on k_is_1: k / 16 = 0 K tiles, so C is all zeros. A stride of
// m for A predicts row 0 right, and row 0 is wrong: not a leading dimension.
TEST(DiagnosisTruth, NoKTilesAtAllIsNotCalledALeadingDimension) {
  Bugs bug;
  bug.phases_floor = true;
  const auto r = run_case_with_data(64, 1, 48, bug);
  ASSERT_EQ(r->evidence.first.wrong, r->evidence.first.checked);
  ASSERT_FALSE(r->tested.empty());
  for (const Diagnosis& d : r->tested) EXPECT_NE(d.id.rfind("ld.", 0), 0u) << all_text(r->tested);
  EXPECT_EQ(r->tested[0].id, "zeros.exact") << all_text(r->tested);
  EXPECT_NE(r->tested[0].text.find("k / TILE_SIZE = 0"), std::string::npos) << r->tested[0].text;
}

// no_load_bounds on a GPU whose memory past A and B holds the bytes 0x4F: the
// 4 padding terms of m_is_1 add 4 * 3.47808e9^2 to every element, a number
// no 64-bit integer holds.
TEST(DiagnosisTruth, AHugeConstantOffsetIsPrintedAsANumber) {
  Bugs bug;
  bug.no_load_guard = true;
  const std::uint32_t bits = 0x4F4F4F4Fu;
  std::memcpy(&bug.past_end, &bits, sizeof bits);
  const auto r = run_case_with_data(1, 300, 200, bug);
  ASSERT_EQ(r->evidence.first.wrong, r->evidence.first.checked);
  ASSERT_FALSE(r->tested.empty());
  EXPECT_EQ(r->tested[0].id, "padding.nonzero") << all_text(r->tested);
  const std::string& t = r->tested[0].text;
  EXPECT_EQ(t.find("-9223372036854775808"), std::string::npos) << t;
  EXPECT_NE(t.find("e+19"), std::string::npos) << t;
  EXPECT_NE(t.find("3.47808e+09"), std::string::npos) << t;
  EXPECT_NE(t.find("past the end of A or B"), std::string::npos) << t;
}

// Bs loaded when p*TILE + ty < m (not < k): the sums stop after m terms while
// the loop count is right. Where m is a multiple of the tile a count from m
// gives the same sums, so both are named; elsewhere only the guard fits.
TEST(DiagnosisTruth, AGuardAgainstMInTheTileLoadIsNotCalledALoopCount) {
  Bugs bug;
  bug.b_guard_m = true;
  const auto both = run_case_with_data(128, 384, 256, bug);
  ASSERT_FALSE(both->tested.empty());
  const std::string& t = both->tested[0].text;
  EXPECT_NE(t.find("first 128 of the k = 384 terms"), std::string::npos) << all_text(both->tested);
  EXPECT_NE(t.find("compares its K index with m"), std::string::npos) << t;
  EXPECT_NE(t.find("its count comes from m"), std::string::npos) << t;

  const auto only = run_case_with_data(17, 64, 48, bug);
  ASSERT_FALSE(only->tested.empty()) << all_text(only->tested);
  EXPECT_EQ(only->tested[0].id, "guard.k_vs_m") << all_text(only->tested);
  EXPECT_NE(only->tested[0].text.find("first 17 of the k = 64 terms"), std::string::npos) << only->tested[0].text;
  EXPECT_EQ(only->tested[0].text.find("count comes from"), std::string::npos) << only->tested[0].text;
}

TEST(DiagnosisTruth, ARowsOfLengthNAreNamed) {
  Bugs bug;
  bug.a_stride_n = true;
  const auto r = run_case_with_data(45, 37, 29, bug);
  ASSERT_GT(r->evidence.first.wrong, 0);
  ASSERT_FALSE(r->tested.empty());
  EXPECT_EQ(r->tested[0].id, "ld.a_uses_n") << all_text(r->tested);
  EXPECT_NE(r->tested[0].text.find("n = 29"), std::string::npos) << r->tested[0].text;
  EXPECT_NE(r->tested[0].text.find("A[row*k + t]"), std::string::npos) << r->tested[0].text;
  EXPECT_TRUE(is_confirmed_hypothesis(r->tested[0]));
}

TEST(DiagnosisTruth, ATileLoadedWithItsRowFromThreadIdxXIsNamed) {
  Bugs bug;
  bug.a_tile_from_tx = true;
  for (auto [m, k, n] : {std::tuple{64, 64, 64}, {40, 50, 36}}) {
    const auto r = run_case_with_data(m, k, n, bug);
    ASSERT_GT(r->evidence.first.wrong, 0);
    ASSERT_FALSE(r->tested.empty()) << m << "x" << k << "x" << n;
    EXPECT_EQ(r->tested[0].id, "index.a_tile_transposed") << all_text(r->tested);
    EXPECT_NE(r->tested[0].text.find("threadIdx.x"), std::string::npos) << r->tested[0].text;
  }
}

// C[(by*by + ty)*n + col]: every sum is right, stored in another row; some
// rows are never written. The grid and the bounds checks are right.
TEST(DiagnosisTruth, AStoreToAnotherRowIsNotBlamedOnTheGrid) {
  Bugs bug;
  bug.store_row_squared = true;
  for (auto [m, k, n] : {std::tuple{64, 32, 48}, {17, 32, 100}, {40, 50, 36}}) {
    const auto r = run_case_with_data(m, k, n, bug);
    ASSERT_GT(r->evidence.first.wrong, 0);
    ASSERT_FALSE(r->tested.empty()) << m << "x" << k << "x" << n;
    const std::string all = all_text(r->tested);
    EXPECT_EQ(all.find("the grid or a bounds check skips them"), std::string::npos) << all;
    EXPECT_EQ(all.find("rounded down"), std::string::npos) << all;
    EXPECT_EQ(r->tested[0].id, "store.row_misplaced") << all;
    EXPECT_NE(r->tested[0].text.find("never written"), std::string::npos) << all;
  }
}

TEST(DiagnosisTruth, ASwappedGridOf32WideTilesIsToldNoOtherTile) {
  Bugs bug;
  bug.grid_swapped = true;
  bug.tile = 32;
  // 16 and 32 leave the same elements unwritten here: no tile edge is named.
  const auto either = run_case_with_data(128, 64, 256, bug);
  ASSERT_FALSE(either->tested.empty());
  EXPECT_EQ(either->tested[0].id, "grid.swapped_xy") << all_text(either->tested);
  EXPECT_EQ(either->tested[0].text.find("/ 16"), std::string::npos) << either->tested[0].text;
  EXPECT_NE(either->tested[0].text.find("(n + TILE_SIZE - 1) / TILE_SIZE"), std::string::npos)
      << either->tested[0].text;
  // Only 32 fits: it is named.
  const auto only = run_case_with_data(1000, 48, 333, bug);
  ASSERT_FALSE(only->tested.empty());
  EXPECT_EQ(only->tested[0].id, "grid.swapped_xy") << all_text(only->tested);
  EXPECT_NE(only->tested[0].text.find("(n + 31) / 32"), std::string::npos) << only->tested[0].text;
  EXPECT_EQ(only->tested[0].text.find("/ 16"), std::string::npos) << only->tested[0].text;
}

// m_is_1 with a block of one row of threads: only row 0 of each B tile is
// loaded, so the sums take every 16th term, and an A tile stored transposed
// gives the very same values for a single row. Both are named.
TEST(DiagnosisTruth, TwoBugsWithTheSameValuesAreBothNamed) {
  Bugs bug;
  bug.one_row_block = bug.grid_1d = true;
  bug.stale = 0.0f;
  const auto r = run_case_with_data(1, 300, 200, bug);
  ASSERT_FALSE(r->tested.empty());
  EXPECT_EQ(r->tested[0].id, "block.one_row") << all_text(r->tested);
  EXPECT_NE(r->tested[0].text.find("every 16th term"), std::string::npos) << r->tested[0].text;
  EXPECT_NE(r->tested[0].text.find("fit just as well: the A tile is stored transposed"), std::string::npos)
      << r->tested[0].text;
}

// A kernel that stores NaN everywhere, on a shape where an unguarded K tile
// would read past B for every element: the read fits, but nothing singles it
// out, and the hint says so.
TEST(DiagnosisTruth, NanEverywhereIsNotPinnedOnAReadThatReachesEveryElement) {
  const auto r = run_case_with_data(64, 1, 48, Bugs{});
  std::vector<float> c(r->c.size(), std::numeric_limits<float>::quiet_NaN());
  CaseData data = r->data;
  data.c = c.data();
  const auto d = matching_hypotheses(data);
  ASSERT_FALSE(d.empty());
  EXPECT_EQ(d[0].text.find("for exactly such elements"), std::string::npos) << d[0].text;
  EXPECT_NE(d[0].text.find("reaches every element"), std::string::npos) << d[0].text;
  EXPECT_NE(d[0].text.find("shared memory never loaded"), std::string::npos) << d[0].text;
}

// A wrong output no hypothesis reproduces: the hint says where the wrong
// elements are and offers no cause.
TEST(DiagnosisTruth, WithNothingConfirmedTheHintSaysWhereAndNoMore) {
  const auto r = run_case_with_data(64, 32, 48, Bugs{});
  std::vector<float> c = r->c;
  for (int j = 0; j < 48; ++j) c[3 * 48 + j] += 1.0f;
  for (int j = 20; j < 30; ++j) c[40 * 48 + j] += 1.0f;
  CaseData data = r->data;
  data.c = c.data();
  CompareInput in;
  in.m = 64; in.n = 48; in.k = 32;
  in.c = c.data(); in.c64 = r->c64.data(); in.abs_ab = r->abs_ab.data();
  CaseEvidence e;
  e.m = 64; e.k = 32; e.n = 48;
  e.first = compare(in);
  e.data = &data;
  const auto d = diagnose_case(e);
  ASSERT_EQ(d.size(), 1u) << all_text(d);
  EXPECT_EQ(d[0].id, "wrong.where") << d[0].text;
  EXPECT_FALSE(is_confirmed_hypothesis(d[0]));
  EXPECT_NE(d[0].text.find("rows 3, 40"), std::string::npos) << d[0].text;
  EXPECT_NE(d[0].text.find("columns 0-47"), std::string::npos) << d[0].text;
}

TEST(DiagnosisTest, PassingCaseHasNoDiagnosis) {
  CaseEvidence e;
  e.m = e.k = e.n = 16;
  e.first.checked = 256;
  EXPECT_TRUE(case_texts(e).empty());
}

// Outcomes of the default suite's correctness cases for a kernel that fails
// exactly where `fails` says.
template <typename Fails>
std::vector<SizeOutcome> default_suite_outcomes(Fails fails) {
  const Suite s = load_suite_file(std::string(SG_SOURCE_ROOT) + "/testcases/default.yaml");
  std::vector<SizeOutcome> out;
  for (const Case& c : s.cases) out.push_back(SizeOutcome{c.m, c.k, c.n, !fails(c.m, c.k, c.n)});
  return out;
}

TEST(DiagnosisTest, AcrossCasesNamesTheLastKTile) {
  const auto d = across_texts(default_suite_outcomes([](int, int k, int) { return k % 16 != 0; }));
  ASSERT_EQ(d.size(), 1u) << joined(d);
  EXPECT_NE(d[0].find("k is not a multiple of 16"), std::string::npos);
}

TEST(DiagnosisTest, AcrossCasesNamesALeadingDimension) {
  const auto d = across_texts(default_suite_outcomes([](int, int k, int n) { return k != n; }));
  ASSERT_EQ(d.size(), 1u) << joined(d);
  EXPECT_NE(d[0].find("k != n"), std::string::npos);
  EXPECT_NE(d[0].find("leading dimension"), std::string::npos);
}

TEST(DiagnosisTest, AcrossCasesNamesASwappedGrid) {
  // A swapped grid fails where m and n need different numbers of tiles.
  const auto d = across_texts(default_suite_outcomes(
      [](int m, int, int n) { return (m + 15) / 16 != (n + 15) / 16; }));
  // On this suite every case with m != n also has m != k, so A's leading
  // dimension is an equally good explanation; both are offered, nothing else.
  EXPECT_TRUE(any_contains(d, "m != n")) << joined(d);
  EXPECT_TRUE(any_contains(d, "swapped")) << joined(d);
  EXPECT_LE(d.size(), 2u) << joined(d);
  EXPECT_FALSE(any_contains(d, "multiple of 16")) << joined(d);
  EXPECT_FALSE(any_contains(d, "k != n")) << joined(d);
}

TEST(DiagnosisTest, AcrossCasesNamesTheRaggedEdges) {
  const auto d = across_texts(
      default_suite_outcomes([](int m, int, int n) { return m % 16 != 0 || n % 16 != 0; }));
  ASSERT_EQ(d.size(), 1u) << joined(d);
  EXPECT_NE(d[0].find("m or n is not a multiple of 16"), std::string::npos);
}

TEST(DiagnosisTest, IdsStayTheSameWhateverTheSizes) {
  // The class summary counts causes by id: two cases with the same bug and
  // different sizes must give the same ids, and the text must carry the sizes.
  const auto k_tail = diagnose_across(default_suite_outcomes([](int, int k, int) { return k % 16 != 0; }));
  ASSERT_EQ(k_tail.size(), 1u);
  EXPECT_EQ(k_tail[0].id, "across.k_tail");
  const auto b_stride = diagnose_across(default_suite_outcomes([](int, int k, int n) { return k != n; }));
  ASSERT_EQ(b_stride.size(), 1u);
  EXPECT_EQ(b_stride[0].id, "across.leading_dim_b");
  for (const auto& [m, n] : {std::pair{40, 36}, std::pair{200, 17}}) {
    Bugs b;
    b.no_store_guard = true;
    const Emulated r = run_case(m, 24, n, b);
    const auto d = diagnose_case(r.evidence);
    ASSERT_FALSE(d.empty()) << m << "x" << n;
    for (const Diagnosis& x : d) {
      EXPECT_FALSE(x.id.empty()) << x.text;
      EXPECT_EQ(x.id.find_first_of("0123456789 "), std::string::npos) << "an id holds no sizes: " << x.id;
    }
  }
}

TEST(DiagnosisTest, AcrossCasesStaysQuietWithoutAPattern) {
  // Everything or nothing failing says nothing about sizes.
  EXPECT_TRUE(across_texts(default_suite_outcomes([](int, int, int) { return true; })).empty());
  EXPECT_TRUE(across_texts(default_suite_outcomes([](int, int, int) { return false; })).empty());
  // One odd failure among many passing cases with the same property.
  EXPECT_TRUE(across_texts(default_suite_outcomes(
                  [](int m, int k, int n) { return m == 555 && k == 333 && n == 777; }))
                  .empty());
  EXPECT_TRUE(across_texts({}).empty());
}

TEST(DiagnosisTest, TiedSizeRulesBecomeOneDiagnosisNotThreeContradictingOnes) {
  // Fails where m, k and n are not all equal: on the default suite k != n,
  // m != k and m != n pick out the same cases.
  const auto d = diagnose_across(default_suite_outcomes([](int m, int k, int n) { return !(m == k && k == n); }));
  ASSERT_EQ(d.size(), 1u) << d.size();
  EXPECT_EQ(d[0].id, "across.ambiguous") << d[0].text;
}

}  // namespace
}  // namespace sg
