#include "proto/seeded_digest.h"

#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

namespace sg::seeded {

Digest host_digest(const float* c, std::uint64_t count, unsigned threads) {
  static_assert(sizeof(float) == sizeof(std::uint32_t), "C is hashed as 32-bit words");
  std::vector<std::uint64_t> lane_a(kDigestLanes), lane_b(kDigestLanes);
  // The same chains as digest_lane, walked one stripe of kDigestLanes
  // elements at a time (each lane's steps still come in its own order), so
  // the host reads C front to back; each thread owns a range of lanes.
  auto lanes = [&](std::uint32_t lo, std::uint32_t hi) {
    for (std::uint32_t l = lo; l < hi; ++l) {
      lane_a[l] = splitmix64(l + 1);
      lane_b[l] = splitmix64(lane_a[l]);
    }
    for (std::uint64_t stripe = 0; stripe < count; stripe += kDigestLanes)
      for (std::uint32_t l = lo; l < hi && stripe + l < count; ++l) {
        std::uint32_t word;
        std::memcpy(&word, c + stripe + l, sizeof word);
        digest_step(lane_a[l], lane_b[l], word, stripe + l);
      }
  };
  const unsigned t = std::clamp(threads, 1u, 64u);
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < t; ++i)
    pool.emplace_back(lanes, static_cast<std::uint32_t>(std::uint64_t{kDigestLanes} * i / t),
                      static_cast<std::uint32_t>(std::uint64_t{kDigestLanes} * (i + 1) / t));
  lanes(0, static_cast<std::uint32_t>(kDigestLanes / t));
  for (auto& th : pool) th.join();
  std::vector<std::uint64_t> fold_a(kDigestFolds), fold_b(kDigestFolds);
  for (std::uint32_t p = 0; p < kDigestFolds; ++p)
    digest_fold(lane_a.data(), lane_b.data(), p * kDigestFold, kDigestFold, 1, fold_a[p], fold_b[p]);
  std::vector<std::uint64_t> fold2_a(kDigestFolds2), fold2_b(kDigestFolds2);
  for (std::uint32_t p = 0; p < kDigestFolds2; ++p)
    digest_fold(fold_a.data(), fold_b.data(), p * kDigestFold2, kDigestFold2, 2, fold2_a[p], fold2_b[p]);
  return digest_finish(fold2_a.data(), fold2_b.data());
}

}  // namespace sg::seeded
