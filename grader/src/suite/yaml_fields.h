// Strict, located reading of one YAML mapping of the suite schema: keys must
// be plain words, appear once and be known; each value must have the type and
// range its key demands. Every failure names the key, the mapping and what was
// expected, at the offending node.
#pragma once
#include <yaml-cpp/yaml.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/suite.h"
#include "suite/yaml_source.h"

namespace sg::suite_yaml {

// Allowed range of a number; `lo_open` makes the lower end exclusive.
struct NumberRange {
  double lo = 0;
  bool lo_open = false;
  double hi = 0;  // inclusive; 0 or less means unbounded above
  std::string describe() const;  // e.g. "a number > 0", "a number from 0 to 3600"
};

// 1-64 characters of [A-Za-z0-9_.-]: names end up in file names, CSV
// headers and XML attributes.
bool is_identifier(const std::string& s);

class Fields {
 public:
  // `what` names the mapping in messages, e.g. "case 'square_256'".
  // `where_if_empty` locates the mapping when `node` is empty (yaml-cpp has no
  // useful mark for an empty value).
  Fields(const YAML::Node& node, std::string what, const Source& src,
         std::optional<SourceLocation> where_if_empty = std::nullopt);

  const std::string& what() const { return what_; }
  SourceLocation where() const { return src_.at(mark_); }

  // Fails on the first key not in `allowed`, listing the allowed ones.
  void allow_only(std::initializer_list<const char*> allowed) const;
  // Fails on the first of `keys` that is absent, at the mapping's start.
  void require(std::initializer_list<const char*> keys) const;

  bool has(const std::string& key) const { return find(key) != nullptr; }
  // Raw value (nullptr when absent), for nested mappings and lists.
  const YAML::Node* node(const std::string& key) const;
  // Where a key's value is (its key when the value is empty).
  SourceLocation where(const std::string& key) const;
  [[noreturn]] void fail(const std::string& key, const std::string& message) const;

  // Typed readers: nullopt when the key is absent.
  std::optional<long long> integer(const std::string& key, long long lo, long long hi) const;
  std::optional<double> number(const std::string& key, const NumberRange& range) const;
  std::optional<bool> boolean(const std::string& key) const;
  std::optional<std::string> text(const std::string& key) const;
  // An identifier (see is_identifier).
  std::optional<std::string> identifier(const std::string& key) const;
  // One word out of `choices`; returns its index.
  std::optional<int> choice(const std::string& key, const std::vector<std::string>& choices) const;

 private:
  struct Entry {
    std::string key;
    YAML::Node key_node;
    YAML::Node value;
  };
  const Entry* find(const std::string& key) const;
  // `typed`: a number or boolean was expected, so a quoted value is called out.
  [[noreturn]] void fail_type(const Entry& e, const std::string& expected,
                              bool typed = false) const;
  // The scalar text of a value meant as a number or boolean: plain (not
  // quoted) or explicitly tagged; nullopt otherwise.
  std::optional<std::string> plain_scalar(const Entry& e) const;

  std::string what_;
  const Source& src_;
  YAML::Mark mark_;
  std::vector<Entry> entries_;                          // in document order
  std::unordered_map<std::string, std::size_t> index_;  // key -> entries_ position
};

}  // namespace sg::suite_yaml
