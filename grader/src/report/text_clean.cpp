#include "report/text_clean.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>

namespace sg::report {
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

bool is_unreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
         c == '-' || c == '.' || c == '_' || c == '~';
}

std::string escape_markup(std::string_view raw, bool attribute) {
  const std::string clean = clean_text(raw);
  std::string out;
  out.reserve(clean.size() + clean.size() / 8);
  for (char c : clean) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      case '\n': out += attribute ? "&#10;" : "\n"; break;
      case '\t': out += attribute ? "&#9;" : "\t"; break;
      default: out += c;
    }
  }
  return out;
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

std::string clean_line(std::string_view raw) {
  std::string out = clean_text(raw);
  std::replace(out.begin(), out.end(), '\n', ' ');
  std::replace(out.begin(), out.end(), '\t', ' ');
  return out;
}

std::string cap_text(const std::string& clean, std::size_t max_bytes) {
  if (clean.size() <= max_bytes) return clean;
  std::size_t cut = max_bytes;
  // Step back over continuation bytes so no code point is split.
  while (cut > 0 && (static_cast<unsigned char>(clean[cut]) & 0xC0) == 0x80) --cut;
  std::string out = clean.substr(0, cut);
  if (!out.empty() && out.back() != '\n') out += '\n';
  out += "[... " + std::to_string(clean.size() - cut) + " more bytes not shown]\n";
  return out;
}

std::size_t display_width(std::string_view utf8) {
  std::size_t n = 0;
  for (char c : utf8)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

std::string fit_width(const std::string& clean, std::size_t width) {
  if (display_width(clean) <= width) return clean;
  if (width <= 3) return std::string(width, '.');
  std::string out;
  std::size_t cols = 0;
  for (std::size_t i = 0; i < clean.size(); ++i) {
    const bool starts = (static_cast<unsigned char>(clean[i]) & 0xC0) != 0x80;
    if (starts && cols == width - 3) break;
    if (starts) ++cols;
    out += clean[i];
  }
  return out + "...";
}

std::string xml_escape(std::string_view raw) { return escape_markup(raw, false); }

std::string xml_attr(std::string_view raw) { return escape_markup(raw, true); }

std::string md_cell(std::string_view raw) {
  const std::string line = clean_line(raw);
  std::string out;
  out.reserve(line.size());
  // A backslash before ASCII punctuation shows that character literally in
  // CommonMark (inside table cells too), so `B[t*n + col]` keeps its asterisks
  // and `<b>` is text, never markup; an entity like &lt; would show raw in code.
  // ('>' matters only at a line's start, where these never go.)
  // An '_' inside a word never starts emphasis: left bare, names stay readable.
  auto word = [&](std::size_t i) { return i < line.size() && std::isalnum(static_cast<unsigned char>(line[i])); };
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    const bool inside_word = c == '_' && i > 0 && word(i - 1) && word(i + 1);
    if (c != '\0' && std::strchr("\\`*_[]<|~&", c) != nullptr && !inside_word) out += '\\';
    out += c;
  }
  return out;
}

std::string md_fence(std::string_view raw, const std::string& info) {
  std::string body = clean_text(raw);
  std::size_t longest = 0, run = 0;
  for (char c : body) {
    run = (c == '`') ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(std::max<std::size_t>(3, longest + 1), '`');
  if (!body.empty() && body.back() != '\n') body += '\n';
  return fence + info + "\n" + body + fence + "\n";
}

std::string url_segment(std::string_view raw) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  // "." and ".." would be read as path steps, not as a name.
  if (raw == "." || raw == "..") return raw.size() == 1 ? "%2E" : "%2E%2E";
  std::string out;
  for (char ch : raw) {
    const auto c = static_cast<unsigned char>(ch);
    if (is_unreserved(c)) {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0x0F];
    }
  }
  return out;
}

}  // namespace sg::report
