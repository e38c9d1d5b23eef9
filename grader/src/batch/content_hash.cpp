#include "batch/content_hash.h"

#include <sha2.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <vector>

namespace fs = std::filesystem;

namespace sg::batch {

struct Sha256::State {
  SHA2_CTX ctx;
};

Sha256::Sha256() : state_(std::make_unique<State>()) { SHA256Init(&state_->ctx); }

Sha256::~Sha256() = default;

void Sha256::update(const void* data, std::size_t size) {
  SHA256Update(&state_->ctx, static_cast<const std::uint8_t*>(data), size);
}

std::string Sha256::hex_digest() {
  std::uint8_t digest[SHA256_DIGEST_LENGTH];
  SHA256Final(digest, &state_->ctx);
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (std::uint8_t b : digest) {
    out += digits[b >> 4];
    out += digits[b & 0xf];
  }
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
