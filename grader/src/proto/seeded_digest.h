// The host's copy of the digest a timed reply carries (proto/seeded_inputs.h):
// the judge recomputes it over the C it read back and requires the runner's value.
#pragma once
#include <cstdint>

#include "proto/seeded_inputs.h"

namespace sg::seeded {

// The digest of `count` floats (their raw bits), as the runner computes it on
// the device; `threads` share the lanes (the result does not depend on it).
Digest host_digest(const float* c, std::uint64_t count, unsigned threads = 1);

}  // namespace sg::seeded
