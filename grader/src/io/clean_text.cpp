#include "io/clean_text.h"

#include <cstdint>

namespace sg {
namespace {

constexpr char kReplacement[] = "\xEF\xBF\xBD";  // U+FFFD

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Decodes one strict UTF-8 sequence at s[i]. Returns its length, or 0 when the
// bytes are not valid UTF-8 (overlong forms, surrogates and values beyond
// U+10FFFF are invalid too).
std::size_t decode(std::string_view s, std::size_t i, std::uint32_t& cp) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  std::size_t len = 0;
  std::uint32_t min = 0;
  if (b0 >= 0xC2 && b0 <= 0xDF) { len = 2; cp = b0 & 0x1F; min = 0x80; }
  else if (b0 >= 0xE0 && b0 <= 0xEF) { len = 3; cp = b0 & 0x0F; min = 0x800; }
  else if (b0 >= 0xF0 && b0 <= 0xF4) { len = 4; cp = b0 & 0x07; min = 0x10000; }
  else return 0;
  if (i + len > s.size()) return 0;
  for (std::size_t j = 1; j < len; ++j) {
    const auto b = static_cast<unsigned char>(s[i + j]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

// Length of the ANSI escape sequence starting with ESC at s[i] (at least 1).
// Terminal colours in student output would otherwise leave "[31m" debris.
std::size_t escape_length(std::string_view s, std::size_t i) {
  std::size_t j = i + 1;
  if (j >= s.size()) return 1;
  if (s[j] == '[') {  // CSI: parameters, then one final byte in 0x40..0x7E
    for (++j; j < s.size(); ++j) {
      const auto b = static_cast<unsigned char>(s[j]);
      if (b >= 0x40 && b <= 0x7E) return j + 1 - i;
      if (b < 0x20 || b > 0x3F) return j - i;  // malformed: stop before it
    }
    return s.size() - i;
  }
  if (s[j] == ']') {  // OSC: up to BEL or ESC backslash
    for (++j; j < s.size(); ++j) {
      if (s[j] == '\a') return j + 1 - i;
      if (s[j] == '\x1b') return (j + 1 < s.size() && s[j + 1] == '\\') ? j + 2 - i : j - i;
    }
    return s.size() - i;
  }
  const auto b = static_cast<unsigned char>(s[j]);
  return (b >= 0x20 && b <= 0x7E) ? 2 : 1;  // two-byte escape such as ESC c
}

}  // namespace

std::string clean_text(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  std::size_t i = 0;
  while (i < raw.size()) {
    const auto b = static_cast<unsigned char>(raw[i]);
    if (b < 0x80) {
      if (b == '\n' || b == '\t' || (b >= 0x20 && b != 0x7F)) {
        out += static_cast<char>(b);
      } else if (b == '\r') {
        if (i + 1 >= raw.size() || raw[i + 1] != '\n') out += '\n';
      } else if (b == 0x1B) {
        i += escape_length(raw, i);
        continue;
      }
      ++i;  // other C0 controls and DEL are dropped
      continue;
    }
    std::uint32_t cp = 0;
    const std::size_t len = decode(raw, i, cp);
    if (len == 0) {
      out += kReplacement;
      ++i;
      continue;
    }
    const bool forbidden = (cp >= 0x80 && cp <= 0x9F) || cp == 0xFFFE || cp == 0xFFFF;
    if (!forbidden) append_utf8(out, cp);
    i += len;
  }
  return out;
}

std::size_t cut_sequence_tail(std::string_view raw) {
  // Look back over at most three continuation bytes for a lead byte whose
  // sequence needs more bytes than are left.
  for (std::size_t back = 1; back <= 4 && back <= raw.size(); ++back) {
    const auto b = static_cast<unsigned char>(raw[raw.size() - back]);
    if ((b & 0xC0) == 0x80) continue;  // continuation byte
    const std::size_t need = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
    return need > back ? back : 0;
  }
  return 0;
}

}  // namespace sg
