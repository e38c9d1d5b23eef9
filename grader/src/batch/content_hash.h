// Fingerprint of a submission's files, so a resumed batch can tell whether a
// student changed their submission since it was graded.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace sg::batch {

// Incremental SHA-256 (FIPS 180-4). Small and dependency-free on purpose: the
// grader library links no crypto library.
class Sha256 {
 public:
  Sha256();
  void update(const void* data, std::size_t size);
  void update(const std::string& s) { update(s.data(), s.size()); }
  std::string hex_digest();  // 64 lowercase hex digits; the object is spent afterwards

 private:
  void block(const unsigned char* p);
  std::uint32_t h_[8];
  unsigned char buf_[64];
  std::size_t buffered_ = 0;
  std::uint64_t total_bytes_ = 0;
};

// "sha256:<hex>" over every regular file and symlink under `path` (or the file
// itself), in sorted order of their relative paths: each contributes its path,
// its kind and size, and its bytes (a symlink: its target text, never followed).
// `.git` folders are skipped: a fetch must not count as a change.
// Throws std::runtime_error naming the file that cannot be read.
std::string submission_hash(const std::string& path);

}  // namespace sg::batch
