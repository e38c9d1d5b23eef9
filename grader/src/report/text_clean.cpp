#include "report/text_clean.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>

namespace sg::report {
namespace {

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

std::string csv_text_cell(const std::string& raw) {
  std::string s = clean_line(raw);
  if (!s.empty() && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@')) s = "'" + s;
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char ch : s) q += (ch == '"') ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}

}  // namespace sg::report
