#include "suite/yaml_fields.h"

#include <charconv>
#include <cmath>
#include <sstream>

namespace sg::suite_yaml {
namespace {

const char* const kIntTag = "tag:yaml.org,2002:int";
const char* const kFloatTag = "tag:yaml.org,2002:float";
const char* const kBoolTag = "tag:yaml.org,2002:bool";

// from_chars does not take a leading '+', YAML does.
std::string_view without_plus(const std::string& s) {
  std::string_view v(s);
  if (v.size() > 1 && v[0] == '+' && v[1] != '-' && v[1] != '+') v.remove_prefix(1);
  return v;
}

std::string format_number(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

}  // namespace

bool is_identifier(const std::string& s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
          c == '.' || c == '-'))
      return false;
  return true;
}

std::string NumberRange::describe() const {
  std::string lo_text = format_number(lo);
  if (hi > 0) {
    if (lo_open) return "a number > " + lo_text + " and <= " + format_number(hi);
    return "a number from " + lo_text + " to " + format_number(hi);
  }
  return std::string("a number ") + (lo_open ? "> " : ">= ") + lo_text;
}

Fields::Fields(const YAML::Node& node, std::string what, const Source& src,
               std::optional<SourceLocation> where_if_empty)
    : what_(std::move(what)), src_(src), mark_(node.Mark()) {
  if (!node.IsMap()) {
    const SourceLocation at =
        (!node.IsDefined() || node.IsNull()) && where_if_empty ? *where_if_empty : src_.at(mark_);
    src_.fail(at, what_ + " must be a mapping of 'key: value' lines, got " + show(node));
  }
  for (const auto& pair : node) {
    const YAML::Node key = pair.first;  // a copy: the iterator's pair is a temporary
    const YAML::Mark key_mark = key.Mark().line >= 0 ? key.Mark() : mark_;
    if (!key.IsScalar())
      src_.fail(key_mark, "keys in " + what_ + " must be plain words, got " + show(key));
    if (const Entry* earlier = find(key.Scalar()))
      src_.fail(key_mark, "duplicate key " + show(key) + " in " + what_ + " (first at " +
                              location_text(src_.at(earlier->key_node.Mark())) + ")");
    index_.emplace(key.Scalar(), entries_.size());
    entries_.push_back(Entry{key.Scalar(), key, pair.second});
  }
}

const Fields::Entry* Fields::find(const std::string& key) const {
  const auto it = index_.find(key);
  return it == index_.end() ? nullptr : &entries_[it->second];
}

void Fields::allow_only(std::initializer_list<const char*> allowed) const {
  for (const Entry& e : entries_) {
    bool known = false;
    for (const char* a : allowed) known = known || e.key == a;
    if (known) continue;
    std::string list;
    for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
    src_.fail(e.key_node.Mark(),
              "unknown key " + show(e.key_node) + " in " + what_ + "; allowed keys: " + list);
  }
}

void Fields::require(std::initializer_list<const char*> keys) const {
  for (const char* k : keys)
    if (!find(k)) src_.fail(mark_, what_ + " is missing the required key '" + k + "'");
}

const YAML::Node* Fields::node(const std::string& key) const {
  const Entry* e = find(key);
  return e ? &e->value : nullptr;
}

SourceLocation Fields::where(const std::string& key) const {
  const Entry* e = find(key);
  if (!e) return src_.at(mark_);
  // yaml-cpp places an empty value at the start of the next line; the key is clearer.
  if (e->value.IsNull() || e->value.Mark().line < 0) return src_.at(e->key_node.Mark());
  return src_.at(e->value.Mark());
}

void Fields::fail(const std::string& key, const std::string& message) const {
  src_.fail(where(key), what_ + ": " + message);
}

void Fields::fail_type(const Entry& e, const std::string& expected, bool typed) const {
  const bool quoted = typed && e.value.IsScalar() && e.value.Tag() == "!";
  fail(e.key, e.key + " must be " + expected + ", got " + show(e.value) +
                  (quoted ? " (a quoted string)" : ""));
}

std::optional<std::string> Fields::plain_scalar(const Entry& e) const {
  if (!e.value.IsScalar()) return std::nullopt;
  const std::string& tag = e.value.Tag();
  if (tag == "?" || tag == kIntTag || tag == kFloatTag || tag == kBoolTag) return e.value.Scalar();
  return std::nullopt;
}

std::optional<long long> Fields::integer(const std::string& key, long long lo, long long hi) const {
  const Entry* e = find(key);
  if (!e) return std::nullopt;
  const std::string expected =
      "an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
  const auto text = plain_scalar(*e);
  if (!text) fail_type(*e, expected, true);
  const std::string_view v = without_plus(*text);
  long long value = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), value);
  if (v.empty() || ec != std::errc() || end != v.data() + v.size() || value < lo || value > hi)
    fail_type(*e, expected, true);
  return value;
}

std::optional<double> Fields::number(const std::string& key, const NumberRange& range) const {
  const Entry* e = find(key);
  if (!e) return std::nullopt;
  const auto text = plain_scalar(*e);
  if (!text) fail_type(*e, range.describe(), true);
  const std::string_view v = without_plus(*text);
  double value = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), value);
  const bool parsed = !v.empty() && ec == std::errc() && end == v.data() + v.size() &&
                      std::isfinite(value);
  const bool in_range = parsed && (range.lo_open ? value > range.lo : value >= range.lo) &&
                        (range.hi <= 0 || value <= range.hi);
  if (!in_range) fail_type(*e, range.describe(), true);
  return value;
}

std::optional<bool> Fields::boolean(const std::string& key) const {
  const Entry* e = find(key);
  if (!e) return std::nullopt;
  const auto text = plain_scalar(*e);
  if (text && (*text == "true" || *text == "True" || *text == "TRUE")) return true;
  if (text && (*text == "false" || *text == "False" || *text == "FALSE")) return false;
  fail_type(*e, "true or false", true);
}

std::optional<std::string> Fields::text(const std::string& key) const {
  const Entry* e = find(key);
  if (!e) return std::nullopt;
  if (!e->value.IsScalar()) fail_type(*e, "text");
  return e->value.Scalar();
}

std::optional<std::string> Fields::identifier(const std::string& key) const {
  const Entry* e = find(key);
  if (!e) return std::nullopt;
  if (!e->value.IsScalar() || !is_identifier(e->value.Scalar()))
    fail_type(*e, "1 to 64 characters from A-Z a-z 0-9 _ . -");
  return e->value.Scalar();
}

std::optional<int> Fields::choice(const std::string& key,
                                  const std::vector<std::string>& choices) const {
  const Entry* e = find(key);
  if (!e) return std::nullopt;
  if (e->value.IsScalar())
    for (std::size_t i = 0; i < choices.size(); ++i)
      if (e->value.Scalar() == choices[i]) return static_cast<int>(i);
  std::string list;
  for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
  fail_type(*e, "one of " + list);
}

}  // namespace sg::suite_yaml
