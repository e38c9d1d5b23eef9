// Fingerprint of a submission's files, so a resumed batch can tell whether a
// student changed their submission since it was graded.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace sg::batch {

// Incremental SHA-256 (FIPS 180-4), computed by libmd (Debian's libmd-dev,
// linked statically; see the Makefile's MD_INC/MD_LIB).
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(const void* data, std::size_t size);
  void update(const std::string& s) { update(s.data(), s.size()); }
  std::string hex_digest();  // 64 lowercase hex digits; the object is spent afterwards

 private:
  struct State;  // libmd's SHA2_CTX, kept out of this header
  std::unique_ptr<State> state_;
};

// "sha256:<hex>" over every regular file and symlink under `path` (or the file
// itself), in sorted order of their relative paths: each contributes its path,
// its kind and size, and its bytes (a symlink: its target text, never followed).
// `.git` folders are skipped: a fetch must not count as a change.
// Throws std::runtime_error naming the file that cannot be read.
std::string submission_hash(const std::string& path);

}  // namespace sg::batch
