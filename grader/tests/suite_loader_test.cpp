// The suite loader: the shipped suites load as specified, and every kind of
// bad input is rejected with "FILE:LINE:COLUMN: message" naming the problem.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <string>

#include "suite/suite_loader.h"

namespace sg {
namespace {

std::string root() { return SG_SOURCE_ROOT; }

// The message load_suite_string throws for `yaml`, or "" when it loads.
std::string error_of(const std::string& yaml) {
  try {
    load_suite_string(yaml, "t.yaml");
  } catch (const SuiteError& e) {
    return e.what();
  }
  return "";
}

// A valid suite with one case; tests splice extra lines into it.
std::string one_case(const std::string& case_extra, const std::string& tail = "") {
  return "suite: t\n"
         "cases:\n"
         "  - name: a\n"
         "    m: 32\n"
         "    k: 32\n"
         "    n: 32\n"
         "    points: 1\n" +
         case_extra + tail;
}

#define EXPECT_ERROR(yaml, where, text)                                   \
  do {                                                                    \
    const std::string err_ = error_of(yaml);                              \
    EXPECT_EQ(err_.rfind(std::string("t.yaml:") + where + ": ", 0), 0u) << err_; \
    EXPECT_NE(err_.find(text), std::string::npos) << err_;                \
  } while (0)

// Whatever tile a student picks (8, 16 or 32), each of m, k and n has a case
// where it alone is ragged, so a failure there points at that one boundary.
TEST(SuiteLoaderTest, DefaultSuiteHasOneRaggedDimensionPerTileSize) {
  const Suite s = load_suite_file(root() + "/testcases/default.yaml");
  for (int tile : {8, 16, 32}) {
    for (int dim = 0; dim < 3; ++dim) {
      bool found = false;
      for (const Case& c : s.cases) {
        const int d[3] = {c.m, c.k, c.n};
        bool others_aligned = true;
        for (int o = 0; o < 3; ++o) others_aligned = others_aligned && (o == dim || d[o] % tile == 0);
        found = found || (others_aligned && d[dim] % tile != 0 && d[dim] > tile);
      }
      EXPECT_TRUE(found) << "no case where only dimension " << "mkn"[dim] << " is not a multiple of " << tile;
    }
  }
}

TEST(SuiteLoaderTest, DefaultSuiteIsAsSpecifiedAndWorth100) {
  const Suite s = load_suite_file(root() + "/testcases/default.yaml");
  EXPECT_EQ(s.name, "default");
  EXPECT_FALSE(s.description.empty());
  EXPECT_DOUBLE_EQ(s.max_points(), 100.0);

  struct Want { int m, k, n; double points; Distribution inputs; Visibility vis; };
  const auto U = Distribution::Uniform;
  const auto P = Visibility::Public;
  const std::map<std::string, Want> want = {
      {"square_256", {256, 256, 256, 5, U, P}},
      {"square_1024", {1024, 1024, 1024, 5, U, P}},
      {"rect_multiples", {128, 384, 256, 5, U, P}},
      {"m_not_multiple", {196, 128, 96, 4, U, P}},
      {"k_not_multiple", {128, 196, 96, 4, U, P}},
      {"n_not_multiple", {128, 96, 196, 4, U, P}},
      {"odd_1000x777x333", {1000, 777, 333, 6, U, P}},
      {"odd_120x201x250", {120, 201, 250, 5, U, P}},
      {"tiny_1x1x1", {1, 1, 1, 3, U, P}},
      {"k_is_1", {64, 1, 48, 3, U, P}},
      {"m_is_1", {1, 300, 200, 3, U, P}},
      {"n_is_1", {300, 200, 1, 3, U, P}},
      {"k_below_tile", {50, 7, 70, 3, U, P}},
      {"tall_skinny", {2000, 64, 17, 4, U, P}},
      {"wide", {17, 64, 2000, 4, U, P}},
      {"cancellation", {333, 515, 221, 4, Distribution::Cancel, P}},
      {"small_integers_exact", {96, 80, 112, 4, Distribution::SmallInt, P}},
      {"hidden_odd_555x333x777", {555, 333, 777, 4, U, Visibility::Hidden}},
      {"perf_2048", {2048, 2048, 2048, 1, U, P}},
      {"perf_4096x2048x2048", {4096, 2048, 2048, 1, U, P}},
  };
  ASSERT_EQ(s.cases.size(), want.size());
  for (const Case& c : s.cases) {
    SCOPED_TRACE(c.name);
    const auto it = want.find(c.name);
    ASSERT_NE(it, want.end());
    EXPECT_EQ(c.m, it->second.m);
    EXPECT_EQ(c.k, it->second.k);
    EXPECT_EQ(c.n, it->second.n);
    EXPECT_DOUBLE_EQ(c.points, it->second.points);
    EXPECT_EQ(c.inputs, it->second.inputs);
    EXPECT_EQ(c.visibility, it->second.vis);
    EXPECT_EQ(c.exact, c.inputs == Distribution::SmallInt);
    EXPECT_DOUBLE_EQ(c.tolerance_factor, 2.0);
    EXPECT_GT(c.timeout_s, 0);
    EXPECT_EQ(c.where.file, root() + "/testcases/default.yaml");
    EXPECT_GT(c.where.line, 1);
    EXPECT_EQ(c.has_performance, c.name.rfind("perf_", 0) == 0);
  }
  const Case& p1 = s.cases[s.cases.size() - 2];
  const Case& p2 = s.cases.back();
  ASSERT_EQ(p1.name, "perf_2048");
  EXPECT_DOUBLE_EQ(p1.performance.points, 7);
  EXPECT_DOUBLE_EQ(p1.performance.zero_at, 0.75);
  EXPECT_DOUBLE_EQ(p1.performance.full_at, 0.95);
  EXPECT_EQ(p1.performance.samples, 15);
  EXPECT_EQ(p2.performance.samples, 11);
  EXPECT_DOUBLE_EQ(p2.performance.points, 7);

  ASSERT_EQ(s.checks.size(), 2u);
  EXPECT_EQ(s.checks[0].name, "structure");
  EXPECT_EQ(s.checks[0].kind, CheckKind::SharedAndBarrier);
  EXPECT_DOUBLE_EQ(s.checks[0].points, 5);
  EXPECT_EQ(s.checks[1].name, "sanitizer");
  EXPECT_EQ(s.checks[1].kind, CheckKind::Sanitizer);
  EXPECT_DOUBLE_EQ(s.checks[1].points, 6);
  EXPECT_EQ(s.checks[1].m, 40);
  EXPECT_EQ(s.checks[1].k, 50);
  EXPECT_EQ(s.checks[1].n, 36);
}

TEST(SuiteLoaderTest, SmokeSuiteIsSmallAndQuick) {
  const Suite s = load_suite_file(root() + "/testcases/smoke.yaml");
  EXPECT_GE(s.cases.size(), 3u);
  EXPECT_LE(s.cases.size(), 4u);
  for (const Case& c : s.cases) {
    EXPECT_FALSE(c.has_performance) << c.name;
    EXPECT_LE(double(c.m) * c.k * c.n, 1e6) << c.name;
  }
  ASSERT_EQ(s.checks.size(), 1u);
  EXPECT_EQ(s.checks[0].kind, CheckKind::SharedAndBarrier);
  EXPECT_GT(s.max_points(), 0);
}

TEST(SuiteLoaderTest, DefaultsApplyAndCasesOverrideThem) {
  const Suite s = load_suite_string(
      "suite: d\n"
      "defaults: {timeout_s: 4, tolerance_factor: 3.5, visibility: hidden, inputs: positive}\n"
      "cases:\n"
      "  - {name: a, m: 1, k: 2, n: 3, points: 1}\n"
      "  - {name: b, m: 1, k: 2, n: 3, points: 1.5, timeout_s: 7, tolerance_factor: 1,\n"
      "     visibility: public, inputs: small_int}\n"
      "  - {name: c, m: 1, k: 2, n: 3, points: 0, inputs: small_int, exact: false}\n"
      "checks:\n"
      "  - {name: sym, kind: symbols, points: 2}\n",
      "d.yaml");
  ASSERT_EQ(s.cases.size(), 3u);
  EXPECT_DOUBLE_EQ(s.cases[0].timeout_s, 4);
  EXPECT_DOUBLE_EQ(s.cases[0].tolerance_factor, 3.5);
  EXPECT_EQ(s.cases[0].visibility, Visibility::Hidden);
  EXPECT_EQ(s.cases[0].inputs, Distribution::Positive);
  EXPECT_FALSE(s.cases[0].exact);
  EXPECT_DOUBLE_EQ(s.cases[1].timeout_s, 7);
  EXPECT_DOUBLE_EQ(s.cases[1].tolerance_factor, 1);
  EXPECT_EQ(s.cases[1].visibility, Visibility::Public);
  EXPECT_TRUE(s.cases[1].exact);  // small_int implies exact
  EXPECT_FALSE(s.cases[2].exact);
  EXPECT_EQ(s.checks[0].visibility, Visibility::Hidden);  // visibility default applies to checks
  EXPECT_DOUBLE_EQ(s.checks[0].timeout_s, Check{}.timeout_s);  // timeout default does not
  EXPECT_DOUBLE_EQ(s.max_points(), 4.5);
  EXPECT_EQ(s.path, "d.yaml");
  EXPECT_EQ(s.cases[1].where.line, 5);
  EXPECT_EQ(s.cases[1].where.column, 5);
}

TEST(SuiteLoaderTest, AnchorsAndAliasesMayShareSettings) {
  const Suite s = load_suite_string(
      "suite: t\n"
      "cases:\n"
      "  - {name: a, m: 64, k: 64, n: 64, points: 1,\n"
      "     performance: &perf {points: 2, zero_at: 0.5, full_at: 1, warmups: 0}}\n"
      "  - {name: b, m: 32, k: 64, n: 64, points: 1, performance: *perf}\n",
      "t.yaml");
  ASSERT_EQ(s.cases.size(), 2u);
  EXPECT_TRUE(s.cases[1].has_performance);
  EXPECT_DOUBLE_EQ(s.cases[1].performance.points, 2);
  EXPECT_EQ(s.cases[1].performance.warmups, 0);
  EXPECT_EQ(s.cases[1].performance.samples, Performance{}.samples);
  EXPECT_DOUBLE_EQ(s.max_points(), 6);
}

TEST(SuiteLoaderTest, SyntaxErrorsCarryTheirPosition) {
  EXPECT_ERROR("suite: t\ncases: [1, 2\n", "3:1", "invalid YAML");
  EXPECT_ERROR("suite: t\n  cases: x\n", "2:8", "invalid YAML");
  EXPECT_ERROR("suite: *missing\n", "1:8", "invalid YAML");
}

TEST(SuiteLoaderTest, UnknownKeysAreNamedWithTheAllowedOnes) {
  EXPECT_ERROR("suite: t\ncase: []\n", "2:1",
               "unknown key 'case' in the suite; allowed keys: suite, description, without_gpu, defaults, cases, checks");
  EXPECT_ERROR(one_case("    pts: 3\n"), "8:5", "unknown key 'pts' in case 'a'; allowed keys: name, m, k, n,");
  EXPECT_ERROR(one_case("    performance: {points: 1, zero_at: 0, full_at: 1, sample: 3}\n"), "8:54",
               "unknown key 'sample' in case 'a' performance; allowed keys: points, zero_at, full_at, samples, warmups");
  EXPECT_ERROR("suite: t\ndefaults: {timeout: 3}\ncases: []\n", "2:12", "unknown key 'timeout' in defaults");
  EXPECT_ERROR(one_case("", "checks:\n  - {name: s, kind: symbols, points: 1, size: 3}\n"), "9:41",
               "unknown key 'size' in check 's'");
}

TEST(SuiteLoaderTest, WrongTypesNameKeyExpectationAndValue) {
  const std::string base = "suite: t\ncases:\n  - {name: a, k: 2, n: 3, points: 1, ";
  EXPECT_ERROR(base + "m: abc}\n", "3:41", "case 'a': m must be an integer from 1 to 65536, got 'abc'");
  EXPECT_ERROR(base + "m: \"256\"}\n", "3:41", "got '256' (a quoted string)");
  EXPECT_ERROR(base + "m: 2.5}\n", "3:41", "m must be an integer");
  EXPECT_ERROR(base + "m: [1]}\n", "3:41", "got a list");
  EXPECT_ERROR(base + "m: 0x10}\n", "3:41", "m must be an integer");
  EXPECT_ERROR(base + "m: 99999999999999999999}\n", "3:41", "m must be an integer");
  EXPECT_ERROR("suite: t\ncases:\n  - {name: a, m: 1, k: 1, n: 1, points: -1}\n", "3:41",
               "case 'a': points must be a number >= 0, got '-1'");
  EXPECT_ERROR(one_case("    exact: yes\n"), "8:12", "exact must be true or false, got 'yes'");
  EXPECT_ERROR(one_case("    inputs: gaussian\n"), "8:13",
               "inputs must be one of uniform, positive, small_int, cancel, got 'gaussian'");
  EXPECT_ERROR(one_case("    visibility: secret\n"), "8:17", "visibility must be one of public, hidden");
  EXPECT_ERROR(one_case("    timeout_s: .inf\n"), "8:16", "timeout_s must be a number > 0 and <= 3600");
  EXPECT_ERROR(one_case("    timeout_s: 0\n"), "8:16", "timeout_s must be a number > 0");
  EXPECT_ERROR(one_case("    tolerance_factor: 0\n"), "8:23", "tolerance_factor must be a number > 0, got '0'");
  EXPECT_ERROR(one_case("    tolerance_factor: nan\n"), "8:23", "tolerance_factor must be a number > 0");
  EXPECT_ERROR(one_case("    m: 1\n"), "8:5", "duplicate key 'm' in case 'a' (first at t.yaml:4:5)");
  EXPECT_ERROR("suite: t\ncases:\n  - {name: 'a b', m: 1, k: 1, n: 1, points: 1}\n", "3:12",
               "case #1: name must be 1 to 64 characters from A-Z a-z 0-9 _ . -, got 'a b'");
  EXPECT_ERROR("suite: t\ncases:\n  - {name: \"a\\x01\\u00e9\", m: 1, k: 1, n: 1, points: 1}\n", "3:12",
               "got 'a\\x01\xc3\xa9'");
  EXPECT_ERROR("suite: t\ncases: {a: 1}\n", "2:8", "cases must be a list of cases");
  EXPECT_ERROR("suite: t\ncases:\n  - just a word\n", "3:5", "case #1 must be a mapping");
  EXPECT_ERROR("suite: [t]\ncases: []\n", "1:8", "suite must be 1 to 64 characters");
  EXPECT_ERROR("suite: t\ndescription: {a: 1}\ncases: []\n", "2:14", "description must be text");
  EXPECT_ERROR("suite: t\n? [k]\n: 1\ncases: []\n", "2:3", "keys in the suite must be plain words, got a list");
}

TEST(SuiteLoaderTest, MissingFieldsAreNamedAtTheirMapping) {
  EXPECT_ERROR("suite: t\ncases:\n  - {name: a, m: 1, n: 1, points: 1}\n", "3:5",
               "case 'a' is missing the required key 'k'");
  EXPECT_ERROR("suite: t\ncases:\n  - {name: a, m: 1, k: 1, n: 1}\n", "3:5",
               "case 'a' is missing the required key 'points'");
  EXPECT_ERROR("suite: t\ncases:\n  - {name: a, m: 1, k: 1, n: 1, points: 1}\n  - {m: 1}\n", "4:5",
               "case #2 is missing the required key 'name'");
  EXPECT_ERROR("cases: []\n", "1:1", "the suite is missing the required key 'suite'");
  EXPECT_ERROR("suite: t\n", "1:1", "the suite is missing the required key 'cases'");
  EXPECT_ERROR(one_case("    performance: {points: 1, full_at: 1}\n"), "8:18",
               "case 'a' performance is missing the required key 'zero_at'");
  EXPECT_ERROR(one_case("", "checks:\n  - {name: s, points: 1}\n"), "9:5",
               "check 's' is missing the required key 'kind'");
  EXPECT_ERROR(one_case("", "checks:\n  - {name: s, kind: sanitizer, points: 1, m: 20, k: 20}\n"), "9:5",
               "check 's' is missing the required key 'n'");
}

TEST(SuiteLoaderTest, DuplicateNamesNameBothLocations) {
  EXPECT_ERROR(one_case("", "  - {name: a, m: 1, k: 1, n: 1, points: 1}\n"), "8:5",
               "duplicate name 'a': this case and the entry at t.yaml:3:5 share it");
  EXPECT_ERROR(one_case("", "checks:\n  - {name: a, kind: symbols, points: 1}\n"), "9:5",
               "duplicate name 'a': this check and the entry at t.yaml:3:5 share it");
}

TEST(SuiteLoaderTest, ImpossibleSizesAreRejected) {
  const std::string head = "suite: t\ncases:\n  - {name: a, points: 1, ";
  EXPECT_ERROR(head + "m: 0, k: 1, n: 1}\n", "3:29", "m must be an integer from 1 to 65536, got '0'");
  EXPECT_ERROR(head + "m: 1, k: 65537, n: 1}\n", "3:35", "k must be an integer from 1 to 65536, got '65537'");
  EXPECT_ERROR(head + "m: 1, k: 1, n: -4}\n", "3:41", "n must be an integer from 1 to 65536");
  EXPECT_ERROR(head + "m: 65536, k: 65536, n: 1}\n", "3:5",
               "case 'a': A would have m*k = 4294967296 elements; at most 2147483647 (2^31-1) are allowed");
  EXPECT_ERROR(head + "m: 1, k: 40000, n: 60000}\n", "3:5", "B would have k*n = 2400000000 elements");
  EXPECT_ERROR(head + "m: 50000, k: 1, n: 50000}\n", "3:5", "C would have m*n = 2500000000 elements");
  // At the limit exactly is fine.
  EXPECT_EQ(error_of(head + "m: 65536, k: 32767, n: 1}\n"), "");

  EXPECT_ERROR(one_case("    performance: {points: 1, zero_at: 0.9, full_at: 0.85}\n"), "8:53",
               "zero_at (0.9) must be below full_at (0.85)");
  EXPECT_ERROR(one_case("    performance: {points: 1, zero_at: 0.5, full_at: 0.5}\n"), "8:53",
               "must be below full_at");
  EXPECT_ERROR(one_case("    performance: {points: 1, zero_at: 0.5, full_at: 1, samples: 0}\n"), "8:65",
               "samples must be an integer from 1 to 1000, got '0'");
  EXPECT_ERROR(one_case("    performance: {points: 1, zero_at: 0.5, full_at: 1, warmups: -1}\n"), "8:65",
               "warmups must be an integer from 0 to 100");
  EXPECT_ERROR(one_case("    performance: {points: -2, zero_at: 0.5, full_at: 1}\n"), "8:27",
               "points must be a number >= 0");
  EXPECT_ERROR(one_case("    performance: 7\n"), "8:18", "case 'a' performance must be a mapping");
  EXPECT_ERROR(one_case("    performance:\n"), "8:5", "case 'a' performance must be a mapping");
}

TEST(SuiteLoaderTest, ExactResultsNeedSmallIntegers) {
  EXPECT_ERROR(one_case("    exact: true\n"), "8:12", "exact: true needs inputs: small_int");
  EXPECT_ERROR(one_case("    inputs: cancel\n    exact: true\n"), "9:12", "exact: true needs inputs: small_int");
  // Every allowed k keeps small-integer sums below 2^24 (k*16 < 2^24).
  const Suite s = load_suite_string(
      "suite: t\ncases:\n  - {name: a, m: 1, k: 65536, n: 1, points: 1, inputs: small_int}\n", "t.yaml");
  EXPECT_TRUE(s.cases[0].exact);
}

TEST(SuiteLoaderTest, EmptyCaseListsAndWorthlessSuitesAreRejected) {
  EXPECT_ERROR("suite: t\ncases: []\n", "2:8", "cases is empty; a suite needs at least one case");
  EXPECT_ERROR("suite: t\ncases:\n", "2:1", "cases is empty");
  EXPECT_ERROR("", "1:1", "the suite is empty");
  EXPECT_ERROR("# only a comment\n", "1:1", "the suite is empty");
  EXPECT_ERROR("- a\n- b\n", "1:1", "the suite must be a mapping");
  EXPECT_ERROR("suite: t\ncases:\n  - {name: a, m: 1, k: 1, n: 1, points: 0}\n", "1:1",
               "the suite is worth 0 points");
}

TEST(SuiteLoaderTest, ChecksFollowTheirKind) {
  const std::string ok = one_case("", "checks:\n");
  EXPECT_ERROR(ok + "  - {name: s, kind: sanitizer, points: 1, m: 20, k: 16, n: 20}\n", "9:53",
               "k must be > 16 so that the kernel runs at least two K tiles");
  EXPECT_ERROR(ok + "  - {name: s, kind: sanitizer, points: 1, m: 2000, k: 20, n: 20}\n", "9:46",
               "m must be an integer from 1 to 1024");
  EXPECT_ERROR(ok + "  - {name: s, kind: symbols, points: 1, k: 20}\n", "9:44",
               "k applies only to kinds sanitizer and shared_memory_and_barrier");
  EXPECT_ERROR(ok + "  - {name: s, kind: profiler, points: 1}\n", "9:21",
               "kind must be one of symbols, shared_memory_and_barrier, sanitizer, register_tiling, got 'profiler'");
  EXPECT_ERROR(ok + "  - {name: s, kind: symbols, points: 1, timeout_s: 4000}\n", "9:52",
               "timeout_s must be a number > 0 and <= 3600");
  const Suite s = load_suite_string(ok + "  - {name: s, kind: sanitizer, points: 1, m: 20, k: 17, n: 20, timeout_s: 60}\n"
                                         "  - {name: sym, kind: symbols, points: 0.5, visibility: hidden}\n",
                                    "t.yaml");
  ASSERT_EQ(s.checks.size(), 2u);
  EXPECT_EQ(s.checks[0].k, 17);
  EXPECT_DOUBLE_EQ(s.checks[0].timeout_s, 60);
  EXPECT_EQ(s.checks[1].kind, CheckKind::Symbols);
  EXPECT_EQ(s.checks[1].visibility, Visibility::Hidden);
  EXPECT_EQ(s.checks[1].m, 0);
  // An empty checks entry means no checks.
  EXPECT_TRUE(load_suite_string(ok, "t.yaml").checks.empty());
}

TEST(SuiteLoaderTest, HostileShapesAreRejectedQuickly) {
  EXPECT_ERROR("suite: &a [*a]\ncases: []\n", "1:12", "refers to a node that contains it");
  std::string deep = "suite: t\ncases: ";
  for (int i = 0; i < 5000; ++i) deep += "[";
  const std::string deep_error = error_of(deep);
  EXPECT_EQ(deep_error.rfind("t.yaml:2:", 0), 0u) << deep_error;
  EXPECT_NE(deep_error.find("nested more than 16 levels deep"), std::string::npos) << deep_error;
  EXPECT_ERROR(one_case("", "---\nsuite: u\n"), "8:1", "one YAML document");
  std::string big = one_case("", "description: '");
  big += std::string(1 << 20, 'x') + "'\n";
  EXPECT_ERROR(big, "1:1", "at most 1048576 are accepted");
  EXPECT_ERROR(std::string("suite: t\0\ncases: []\n", 19), "1:1", "NUL byte");
  // Many aliases of one big list stay cheap: the schema is walked to a fixed depth.
  std::string wide = "suite: t\nx: &x [";
  for (int i = 0; i < 1000; ++i) wide += "1,";
  wide += "1]\ncases: [*x, *x, *x]\n";
  EXPECT_ERROR(wide, "2:1", "unknown key 'x'");
}

TEST(SuiteLoaderTest, FilesAreReadWithTheirPathInMessages) {
  std::string dir = testing::TempDir();
  if (!dir.empty() && dir.back() == '/') dir.pop_back();
  const std::string path = dir + "/suite_loader_test_bad.yaml";
  {
    std::ofstream out(path);
    out << "suite: t\ncases:\n  - {name: a, m: 1, k: 1, n: 1, points: x}\n";
  }
  try {
    load_suite_file(path);
    ADD_FAILURE() << "no error for " << path;
  } catch (const SuiteError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path + ":3:", 0), 0u) << e.what();
  }
  std::remove(path.c_str());
  try {
    load_suite_file(dir + "/no_such_suite.yaml");
    ADD_FAILURE() << "no error for a missing file";
  } catch (const SuiteError& e) {
    EXPECT_EQ(std::string(e.what()), dir + "/no_such_suite.yaml:1:1: cannot open the suite: No such file or directory");
  }
  EXPECT_THROW(load_suite_file(dir), SuiteError);  // a directory
}

}  // namespace
}  // namespace sg
