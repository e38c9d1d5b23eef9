#include "proto/seeded_digest.h"

#include <cstring>
#include <vector>

namespace sg::seeded {

Digest host_digest(const float* c, std::uint64_t count) {
  static_assert(sizeof(float) == sizeof(std::uint32_t), "C is hashed as 32-bit words");
  // The same chains as digest_lane, walked in memory order (each lane's steps
  // still come in its own order), so the host reads C once, front to back.
  std::vector<std::uint64_t> lane_a(kDigestLanes), lane_b(kDigestLanes);
  for (std::uint32_t l = 0; l < kDigestLanes; ++l) {
    lane_a[l] = splitmix64(l + 1);
    lane_b[l] = splitmix64(lane_a[l]);
  }
  for (std::uint64_t i = 0; i < count; ++i) {
    std::uint32_t word;
    std::memcpy(&word, c + i, sizeof word);
    const std::uint32_t l = static_cast<std::uint32_t>(i % kDigestLanes);
    digest_step(lane_a[l], lane_b[l], word, i);
  }
  std::vector<std::uint64_t> fold_a(kDigestLanes / kDigestFold), fold_b(kDigestLanes / kDigestFold);
  for (std::uint32_t p = 0; p < kDigestLanes / kDigestFold; ++p)
    digest_fold(lane_a.data(), lane_b.data(), p * kDigestFold, fold_a[p], fold_b[p]);
  return digest_finish(fold_a.data(), fold_b.data());
}

}  // namespace sg::seeded
