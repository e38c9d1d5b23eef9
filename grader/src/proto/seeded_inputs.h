// Inputs of the timed launches, made from a seed on the device (by the
// runner, in the timed request) and again on the host (by the judge, to check
// the output): the same integer steps on both sides, so the values agree bit
// for bit. The seed is only known when the request arrives, so a runner
// cannot have the product ready in advance.
//
// Also the digest of C that a timed reply carries: the runner commits to its
// output before the judge asks for it, so the output cannot be computed after
// the judge's clock has stopped (proto/protocol.h, TimeSeeded).
#pragma once
#include <cstdint>

#if defined(__CUDACC__)
#define SG_HOST_DEVICE __host__ __device__
#else
#define SG_HOST_DEVICE
#endif

namespace sg::seeded {

// Streams of the generator: one per matrix, so A and B differ for one seed.
constexpr std::uint64_t kStreamA = 0xA1;
constexpr std::uint64_t kStreamB = 0xB2;

// The digest runs kDigestLanes independent chains (lane L reads elements
// L, L + kDigestLanes, ...), folds them kDigestFold at a time (1024 chains),
// those kDigestFold2 at a time (32 chains), and chains the 32 in order: short
// sequential steps for the device (the runner's kernels mirror this shape).
constexpr std::uint32_t kDigestLanes = 65536;
constexpr std::uint32_t kDigestFold = 64;
constexpr std::uint32_t kDigestFolds = kDigestLanes / kDigestFold;  // 1024
constexpr std::uint32_t kDigestFold2 = 32;
constexpr std::uint32_t kDigestFolds2 = kDigestFolds / kDigestFold2;  // 32

SG_HOST_DEVICE inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// The key of one matrix of one sample.
SG_HOST_DEVICE inline std::uint64_t stream_key(std::uint64_t seed, std::uint64_t stream) {
  return splitmix64(splitmix64(seed) ^ (stream * 0xD6E8FEB86659FD93ull));
}

// Element `index` (row-major) of the matrix keyed by `key`: a multiple of
// 2^-23 in [-1, 1). 24 random bits as an integer are exact in a float, and
// scaling by a power of two is exact, so host and device agree bit for bit.
SG_HOST_DEVICE inline float value(std::uint64_t key, std::uint64_t index) {
  const std::uint64_t r = splitmix64(key + index * 0x9E3779B97F4A7C15ull);
  const std::int32_t v = static_cast<std::int32_t>(r >> 40) - (1 << 23);
  return static_cast<float>(v) * (1.0f / 8388608.0f);
}

// A 128-bit chain: finding another output with the same digest means
// matching both halves, which no search over small changes of C can do.
struct Digest {
  std::uint64_t a = 0, b = 0;
};

SG_HOST_DEVICE inline void digest_step(std::uint64_t& a, std::uint64_t& b, std::uint64_t word, std::uint64_t index) {
  a = splitmix64(a ^ word ^ (index << 32));
  b = splitmix64(b + a + index);
}

// Lane L's chain over c (count elements, as raw bits).
SG_HOST_DEVICE inline void digest_lane(const std::uint32_t* c, std::uint64_t count, std::uint32_t lane,
                                       std::uint64_t& a, std::uint64_t& b) {
  a = splitmix64(lane + 1);
  b = splitmix64(a);
  for (std::uint64_t i = lane; i < count; i += kDigestLanes) digest_step(a, b, c[i], i);
}

// Folds pairs [first, first + count) into one pair; `level` keeps the
// levels apart.
SG_HOST_DEVICE inline void digest_fold(const std::uint64_t* in_a, const std::uint64_t* in_b, std::uint32_t first,
                                       std::uint32_t count, std::uint32_t level, std::uint64_t& a, std::uint64_t& b) {
  a = splitmix64(first + (std::uint64_t{level} << 40) + 0x51ull);
  b = splitmix64(a);
  for (std::uint32_t l = first; l < first + count; ++l) digest_step(a, b, in_a[l], in_b[l]);
}

// The last step: the kDigestFolds2 pairs of the second level, in order.
SG_HOST_DEVICE inline Digest digest_finish(const std::uint64_t* fold_a, const std::uint64_t* fold_b) {
  Digest d;
  d.a = 0x243F6A8885A308D3ull;
  d.b = 0x13198A2E03707344ull;
  for (std::uint32_t p = 0; p < kDigestFolds2; ++p) digest_step(d.a, d.b, fold_a[p], fold_b[p]);
  return d;
}

}  // namespace sg::seeded
