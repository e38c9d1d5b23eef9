// The seeded inputs of timed samples (host side of proto/seeded_inputs.h),
// the digest of C, and Freivalds' check of a timed output. No GPU: the
// device runs the same header (runner_main.cu), and the GPU script
// (grader/tools/gpu_check_timing.sh) grades real kernels through it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <tuple>
#include <vector>

#include "compare/freivalds.h"
#include "words/timing_report.h"
#include "proto/seeded_digest.h"
#include "proto/seeded_inputs.h"

namespace {

namespace seeded = sg::seeded;

std::vector<float> make(std::uint64_t seed, std::uint64_t stream, std::size_t count) {
  std::vector<float> v(count);
  const std::uint64_t key = seeded::stream_key(seed, stream);
  for (std::size_t i = 0; i < count; ++i) v[i] = seeded::value(key, i);
  return v;
}

// C = A B in FP32, summed in the order `order` gives (0: forward, 1:
// backward, 2: 16-wide tiles with a running sum as the tiled kernel does).
std::vector<float> fp32_product(int m, int k, int n, std::uint64_t seed, int order) {
  const auto a = make(seed, seeded::kStreamA, std::size_t(m) * k);
  const auto b = make(seed, seeded::kStreamB, std::size_t(k) * n);
  std::vector<float> c(std::size_t(m) * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float s = 0;
      if (order == 0) {
        for (int l = 0; l < k; ++l) s += a[std::size_t(i) * k + l] * b[std::size_t(l) * n + j];
      } else if (order == 1) {
        for (int l = k - 1; l >= 0; --l) s += a[std::size_t(i) * k + l] * b[std::size_t(l) * n + j];
      } else {
        for (int t = 0; t < k; t += 16) {
          float part = 0;
          for (int l = t; l < k && l < t + 16; ++l) part += a[std::size_t(i) * k + l] * b[std::size_t(l) * n + j];
          s += part;
        }
      }
      c[std::size_t(i) * n + j] = s;
    }
  return c;
}

sg::FreivaldsResult check(int m, int k, int n, std::uint64_t seed, const std::vector<float>& c,
                          std::uint64_t x_seed = 99) {
  sg::FreivaldsInput in;
  in.m = m;
  in.k = k;
  in.n = n;
  in.seed = seed;
  in.c = c.data();
  in.x_seed = x_seed;
  return sg::freivalds_check(in);
}

TEST(SeededInputs, FixedValuesDoNotDrift) {
  // Host and device compute these from one header; pinning a few values
  // means a change to the generator is a deliberate one.
  const std::uint64_t key = seeded::stream_key(12345, seeded::kStreamA);
  EXPECT_EQ(seeded::splitmix64(0), 0xE220A8397B1DCDAFull);
  const float v0 = seeded::value(key, 0), v1 = seeded::value(key, 1), v7 = seeded::value(key, 1000000007);
  // Recomputed by hand from the definition: 24 bits, offset, scaled by 2^-23.
  auto by_hand = [key](std::uint64_t i) {
    const std::uint64_t r = seeded::splitmix64(key + i * 0x9E3779B97F4A7C15ull);
    return (static_cast<double>(r >> 40) - 8388608.0) / 8388608.0;
  };
  EXPECT_EQ(static_cast<double>(v0), by_hand(0));
  EXPECT_EQ(static_cast<double>(v1), by_hand(1));
  EXPECT_EQ(static_cast<double>(v7), by_hand(1000000007));
}

TEST(SeededInputs, ValuesAreExactMultiplesInRangeAndSeedsDiffer) {
  const auto a = make(7, seeded::kStreamA, 100000);
  const auto b = make(7, seeded::kStreamB, 100000);
  const auto a2 = make(8, seeded::kStreamA, 100000);
  double mean = 0;
  int same_ab = 0, same_seed = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_GE(a[i], -1.0f);
    ASSERT_LT(a[i], 1.0f);
    const double scaled = static_cast<double>(a[i]) * 8388608.0;
    ASSERT_EQ(scaled, std::floor(scaled)) << "not a multiple of 2^-23 at " << i;
    mean += a[i];
    same_ab += a[i] == b[i];
    same_seed += a[i] == a2[i];
  }
  EXPECT_LT(std::fabs(mean / a.size()), 0.01);
  EXPECT_LT(same_ab, 5);
  EXPECT_LT(same_seed, 5);
}

TEST(SeededDigest, SeesEveryBitAndEveryPlace) {
  std::vector<float> c = fp32_product(40, 30, 50, 3, 0);
  const seeded::Digest d = seeded::host_digest(c.data(), c.size());
  EXPECT_EQ(seeded::host_digest(c.data(), c.size()).a, d.a);
  std::vector<float> flipped = c;
  std::uint32_t w;
  std::memcpy(&w, &flipped[777], 4);
  w ^= 1;  // one ULP of one element
  std::memcpy(&flipped[777], &w, 4);
  const seeded::Digest e = seeded::host_digest(flipped.data(), flipped.size());
  EXPECT_NE(e.a, d.a);
  EXPECT_NE(e.b, d.b);
  std::vector<float> swapped = c;
  std::swap(swapped[1], swapped[2]);
  EXPECT_NE(seeded::host_digest(swapped.data(), swapped.size()).a, d.a);
}

TEST(Freivalds, CorrectProductsOfAnySummationOrderPass) {
  for (int order = 0; order < 3; ++order) {
    for (auto [m, k, n] : {std::tuple{64, 256, 48}, std::tuple{33, 1000, 17}, std::tuple{1, 1, 1}}) {
      const auto c = fp32_product(m, k, n, 1000 + order, order);
      for (std::uint64_t x_seed : {1ull, 2ull, 3ull}) {
        const sg::FreivaldsResult r = check(m, k, n, 1000 + order, c, x_seed);
        EXPECT_TRUE(r.ok) << "order " << order << ", " << m << "x" << k << "x" << n << ": " << sg::freivalds_text(r);
      }
    }
  }
}

TEST(Freivalds, OneWrongElementOfOrdinarySizeFails) {
  const int m = 64, k = 256, n = 48;
  auto c = fp32_product(m, k, n, 5, 2);
  double typical = 0;
  for (float v : c) typical += std::fabs(v);
  typical /= c.size();
  c[std::size_t(37) * n + 11] += static_cast<float>(typical);  // off by a typical |value|
  const sg::FreivaldsResult r = check(m, k, n, 5, c);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.rows_failed, 1);
  EXPECT_EQ(r.first_row, 37);
  EXPECT_NE(sg::freivalds_text(r).find("row 37"), std::string::npos) << sg::freivalds_text(r);
}

TEST(Freivalds, ErrorsWithinTheCorrectnessToleranceAreNotItsBusiness) {
  // An error of 1e-3 |value| is far inside factor * gamma_k * (|A||B|) at
  // k = 256: the FP64 comparison of the checked launch would accept it, so
  // the timed output may not be held to more.
  const int m = 64, k = 256, n = 48;
  auto c = fp32_product(m, k, n, 5, 0);
  c[100] *= 1.001f;
  EXPECT_TRUE(check(m, k, n, 5, c).ok);
}

TEST(Freivalds, AProductOfOtherInputsFails) {
  const int m = 96, k = 128, n = 80;
  const auto stale = fp32_product(m, k, n, 41, 0);  // a copy kept from an earlier sample
  const sg::FreivaldsResult r = check(m, k, n, 42, stale);
  EXPECT_FALSE(r.ok);
  EXPECT_GT(r.rows_failed, m / 2);
}

TEST(Freivalds, NaNOrInfAnywhereFails) {
  const int m = 16, k = 64, n = 24;
  auto c = fp32_product(m, k, n, 9, 0);
  auto with_nan = c;
  with_nan[5 * n + 3] = std::numeric_limits<float>::quiet_NaN();
  sg::FreivaldsResult r = check(m, k, n, 9, with_nan);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.first_row, 5);
  auto with_inf = c;
  with_inf[2] = std::numeric_limits<float>::infinity();
  r = check(m, k, n, 9, with_inf);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.first_row, 0);
  // The poison the runner writes before every launch: an unwritten C.
  std::vector<float> poison(c.size());
  std::memset(poison.data(), 0xFF, poison.size() * sizeof(float));
  r = check(m, k, n, 9, poison);
  EXPECT_EQ(r.rows_failed, m);
}

// The digest as the header defines it, lane by lane (the device's shape),
// against the host's front-to-back walk.
seeded::Digest digest_by_lanes(const std::vector<float>& c) {
  std::vector<std::uint32_t> words(c.size());
  if (!c.empty()) std::memcpy(words.data(), c.data(), c.size() * sizeof(float));
  std::vector<std::uint64_t> la(seeded::kDigestLanes), lb(seeded::kDigestLanes);
  for (std::uint32_t l = 0; l < seeded::kDigestLanes; ++l) seeded::digest_lane(words.data(), words.size(), l, la[l], lb[l]);
  std::vector<std::uint64_t> fa(seeded::kDigestFolds), fb(seeded::kDigestFolds);
  for (std::uint32_t p = 0; p < seeded::kDigestFolds; ++p)
    seeded::digest_fold(la.data(), lb.data(), p * seeded::kDigestFold, seeded::kDigestFold, 1, fa[p], fb[p]);
  std::vector<std::uint64_t> ga(seeded::kDigestFolds2), gb(seeded::kDigestFolds2);
  for (std::uint32_t p = 0; p < seeded::kDigestFolds2; ++p)
    seeded::digest_fold(fa.data(), fb.data(), p * seeded::kDigestFold2, seeded::kDigestFold2, 2, ga[p], gb[p]);
  return seeded::digest_finish(ga.data(), gb.data());
}

TEST(SeededDigest, HostWalkEqualsTheLaneDefinition) {
  for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{70000}, std::size_t{4 * 65536 + 3}}) {
    std::vector<float> c(count);
    for (std::size_t i = 0; i < count; ++i) c[i] = static_cast<float>((i * 2654435761u) % 1000) - 500.0f;
    const seeded::Digest lanes = digest_by_lanes(c), host = seeded::host_digest(c.data(), c.size(), 3);
    EXPECT_EQ(host.a, lanes.a) << count;
    EXPECT_EQ(host.b, lanes.b) << count;
  }
}

TEST(SeededDigest, ThreadsDoNotChangeIt) {
  // More elements than lanes, and a count that is not a multiple of them.
  std::vector<float> c(3 * seeded::kDigestLanes + 12345);
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = static_cast<float>(i % 977) * 0.25f - 7.0f;
  const seeded::Digest one = seeded::host_digest(c.data(), c.size(), 1);
  for (unsigned t : {2u, 3u, 7u, 16u}) {
    const seeded::Digest many = seeded::host_digest(c.data(), c.size(), t);
    EXPECT_EQ(many.a, one.a) << t << " threads";
    EXPECT_EQ(many.b, one.b) << t << " threads";
  }
}

TEST(Freivalds, ThreadsDoNotChangeTheVerdict) {
  const int m = 50, k = 70, n = 30;
  auto c = fp32_product(m, k, n, 17, 0);
  c[std::size_t(41) * n + 2] += 100.0f;
  c[std::size_t(13) * n + 29] = std::numeric_limits<float>::quiet_NaN();
  sg::FreivaldsInput in;
  in.m = m;
  in.k = k;
  in.n = n;
  in.seed = 17;
  in.c = c.data();
  in.x_seed = 5;
  const sg::FreivaldsResult one = sg::freivalds_check(in);
  in.threads = 6;
  const sg::FreivaldsResult six = sg::freivalds_check(in);
  EXPECT_EQ(one.rows_failed, 2);
  EXPECT_EQ(six.rows_failed, 2);
  EXPECT_EQ(six.first_row, 13);
  EXPECT_EQ(one.first_row, 13);
}

}  // namespace
