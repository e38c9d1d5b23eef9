// Shared by the fuzz tests of the judge's readers of untrusted bytes
// (reader_fuzz_test.cpp: the runner's wire and files; reader_fuzz_text_test.cpp:
// the text of captured output and of the tools). Inputs come from std::mt19937
// with fixed seeds, so every run sees the same inputs and a failure repeats.
#pragma once
#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace sg_fuzz {

using Clock = std::chrono::steady_clock;
inline double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The time bound of one fuzz loop or one huge input: a complexity guard, far
// above what a linear reader needs, so a reader gone quadratic (or waiting on
// a peer) fails it while a busy machine does not.
constexpr double kBoundS = 10;

// Random bytes: pieces of `dict`, digits and arbitrary bytes (NUL included).
inline std::string fuzz_text(std::mt19937& g, const std::vector<std::string>& dict, int max_pieces) {
  std::string s;
  for (int i = static_cast<int>(g() % (max_pieces + 1)); i > 0; --i) {
    const unsigned pick = g() % 8;
    if (pick == 0) {
      s += static_cast<char>(g());
    } else if (pick == 1) {
      s += static_cast<char>('0' + g() % 10);
    } else {
      s += dict[g() % dict.size()];
    }
  }
  return s;
}

// Strict UTF-8 (no overlong forms, surrogates or values past U+10FFFF), its code points into `cps`.
inline bool utf8(std::string_view s, std::vector<std::uint32_t>* cps = nullptr) {
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    const std::size_t len = b < 0x80 ? 1 : b >= 0xC2 && b <= 0xDF ? 2 : b >= 0xE0 && b <= 0xEF ? 3
                          : b >= 0xF0 && b <= 0xF4 ? 4 : 0;
    if (len == 0 || i + len > s.size()) return false;
    std::uint32_t cp = len == 1 ? b : b & (0xFF >> (len + 1));
    for (std::size_t j = 1; j < len; ++j) {
      if ((static_cast<unsigned char>(s[i + j]) & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (static_cast<unsigned char>(s[i + j]) & 0x3F);
    }
    const std::uint32_t min[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    if (cps) cps->push_back(cp);
    i += len;
  }
  return true;
}

// What io/clean_text.h promises: UTF-8 without controls (tab and newline
// aside), C1 controls, U+FFFE or U+FFFF.
inline bool is_clean(std::string_view s) {
  std::vector<std::uint32_t> cps;
  if (!utf8(s, &cps)) return false;
  for (std::uint32_t c : cps)
    if ((c < 0x20 && c != '\n' && c != '\t') || (c >= 0x7F && c <= 0x9F) || c == 0xFFFE || c == 0xFFFF) return false;
  return true;
}

}  // namespace sg_fuzz
