#include "batch/content_hash.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <vector>

namespace fs = std::filesystem;

namespace sg::batch {
namespace {

constexpr std::uint32_t kRound[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

inline std::uint32_t rotr(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

}  // namespace

Sha256::Sha256()
    : h_{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19},
      buf_{} {}

void Sha256::block(const unsigned char* p) {
  std::uint32_t w[64];
  for (int i = 0; i < 16; ++i)
    w[i] = (std::uint32_t(p[4 * i]) << 24) | (std::uint32_t(p[4 * i + 1]) << 16) |
           (std::uint32_t(p[4 * i + 2]) << 8) | std::uint32_t(p[4 * i + 3]);
  for (int i = 16; i < 64; ++i) {
    const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  std::uint32_t a = h_[0], b = h_[1], c = h_[2], d = h_[3], e = h_[4], f = h_[5], g = h_[6], h = h_[7];
  for (int i = 0; i < 64; ++i) {
    const std::uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kRound[i] + w[i];
    const std::uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  h_[0] += a; h_[1] += b; h_[2] += c; h_[3] += d; h_[4] += e; h_[5] += f; h_[6] += g; h_[7] += h;
}

void Sha256::update(const void* data, std::size_t size) {
  const auto* p = static_cast<const unsigned char*>(data);
  total_bytes_ += size;
  while (size > 0) {
    const std::size_t take = std::min(size, sizeof buf_ - buffered_);
    std::memcpy(buf_ + buffered_, p, take);
    buffered_ += take;
    p += take;
    size -= take;
    if (buffered_ == sizeof buf_) {
      block(buf_);
      buffered_ = 0;
    }
  }
}

std::string Sha256::hex_digest() {
  const std::uint64_t bits = total_bytes_ * 8;
  const unsigned char one = 0x80, zero = 0;
  update(&one, 1);
  while (buffered_ != 56) update(&zero, 1);
  unsigned char len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<unsigned char>(bits >> (56 - 8 * i));
  update(len, 8);
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (std::uint32_t v : h_)
    for (int shift = 28; shift >= 0; shift -= 4) out += digits[(v >> shift) & 0xf];
  return out;
}

namespace {

// A fixed-width field so that no file's path and bytes can run into the next one's.
void put_u64(Sha256& h, std::uint64_t v) {
  unsigned char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<unsigned char>(v >> (56 - 8 * i));
  h.update(b, 8);
}

void hash_entry(Sha256& h, const fs::path& file, const std::string& rel) {
  h.update(rel);
  h.update("\0", 1);
  if (fs::is_symlink(file)) {
    const std::string target = fs::read_symlink(file).string();
    h.update("L", 1);
    put_u64(h, target.size());
    h.update(target);
    return;
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + file.string() + " to fingerprint the submission");
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  h.update("F", 1);
  put_u64(h, ec ? 0 : size);
  char chunk[1 << 16];
  while (in) {
    in.read(chunk, sizeof chunk);
    h.update(chunk, static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) throw std::runtime_error("error reading " + file.string() + " to fingerprint the submission");
}

}  // namespace

std::string submission_hash(const std::string& path) {
  Sha256 h;
  const fs::path root(path);
  if (!fs::is_directory(root)) {
    if (!fs::exists(fs::symlink_status(root)))
      throw std::runtime_error("cannot fingerprint " + path + ": no such file or folder");
    hash_entry(h, root, root.filename().string());
    return "sha256:" + h.hex_digest();
  }
  std::vector<std::pair<std::string, fs::path>> files;
  std::error_code ec;
  fs::recursive_directory_iterator it(root, fs::directory_options::none, ec), end;
  if (ec) throw std::runtime_error("cannot list " + path + ": " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) throw std::runtime_error("cannot list " + path + ": " + ec.message());
    const fs::directory_entry& e = *it;
    if (e.is_directory() && !e.is_symlink()) {
      if (e.path().filename() == ".git") it.disable_recursion_pending();
      continue;
    }
    if (e.is_symlink() || e.is_regular_file())
      files.emplace_back(e.path().lexically_relative(root).generic_string(), e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& [rel, file] : files) hash_entry(h, file, rel);
  return "sha256:" + h.hex_digest();
}

}  // namespace sg::batch
