#include "suite/yaml_source.h"

#include <cstdio>

#include "suite/suite_loader.h"

namespace sg::suite_yaml {
namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is not one.
std::size_t utf8_length(const std::string& s, std::size_t i) {
  const unsigned char lead = static_cast<unsigned char>(s[i]);
  std::size_t len = 0;
  unsigned min_code = 0;
  unsigned code = 0;
  if (lead < 0x80) return 1;
  if ((lead & 0xe0) == 0xc0) { len = 2; code = lead & 0x1f; min_code = 0x80; }
  else if ((lead & 0xf0) == 0xe0) { len = 3; code = lead & 0x0f; min_code = 0x800; }
  else if ((lead & 0xf8) == 0xf0) { len = 4; code = lead & 0x07; min_code = 0x10000; }
  else return 0;
  if (i + len > s.size()) return 0;
  for (std::size_t j = 1; j < len; ++j) {
    const unsigned char cont = static_cast<unsigned char>(s[i + j]);
    if ((cont & 0xc0) != 0x80) return 0;
    code = (code << 6) | (cont & 0x3f);
  }
  // Overlong forms, surrogates and values past U+10FFFF are not valid UTF-8.
  if (code < min_code || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return 0;
  return len;
}

}  // namespace

SourceLocation Source::at(const YAML::Mark& mark) const {
  SourceLocation where;
  where.file = file_;
  where.line = mark.line >= 0 ? mark.line + 1 : 1;
  where.column = mark.column >= 0 ? mark.column + 1 : 1;
  return where;
}

void Source::fail(const YAML::Mark& mark, const std::string& message) const {
  fail(at(mark), message);
}

void Source::fail(const SourceLocation& where, const std::string& message) const {
  throw SuiteError(location_text(where) + ": " + message);
}

std::string location_text(const SourceLocation& where) {
  return where.file + ":" + std::to_string(where.line) + ":" + std::to_string(where.column);
}

std::string show(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null: return "nothing";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Scalar: break;
  }
  // Values come from untrusted files and end up in terminals and reports:
  // escape control bytes and anything that is not valid UTF-8.
  constexpr std::size_t kMaxChars = 40;
  const std::string& raw = node.Scalar();
  std::string out = "'";
  std::size_t i = 0, chars = 0;
  while (i < raw.size() && chars < kMaxChars) {
    const std::size_t len = utf8_length(raw, i);
    const unsigned char ch = static_cast<unsigned char>(raw[i]);
    if (len == 0 || (len == 1 && (ch < 0x20 || ch == 0x7f))) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", ch);
      out += buf;
      i += 1;
    } else {
      out.append(raw, i, len);
      i += len;
    }
    ++chars;
  }
  if (i < raw.size()) out += "...";
  return out + "'";
}

}  // namespace sg::suite_yaml
