#include "suite/entry_schema.h"

#include <sstream>
#include <string>
#include <vector>

#include "model/check_kinds.h"
#include "suite/suite_schema.h"

namespace sg::suite_yaml {
namespace {

// Same order as the enums, spelled as model/names.cpp spells them.
const std::vector<std::string>& distribution_words() {
  static const std::vector<std::string> words = {
      to_string(Distribution::Uniform), to_string(Distribution::Positive),
      to_string(Distribution::SmallInt), to_string(Distribution::Cancel)};
  return words;
}
const std::vector<std::string>& visibility_words() {
  static const std::vector<std::string> words = {to_string(Visibility::Public),
                                                 to_string(Visibility::Hidden)};
  return words;
}
// The check table's words in its order, so that a choice's index is its row.
const std::vector<std::string>& check_kind_words() {
  static const std::vector<std::string> words = [] {
    std::vector<std::string> w;
    for (const CheckKindRow& row : kCheckKinds) w.push_back(row.word);
    return w;
  }();
  return words;
}

const NumberRange kPoints{0, false, 0};
const NumberRange kTimeout{0, true, kMaxTimeout};
const NumberRange kFactor{0, true, 0};

std::string number_text(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

// "case 'square_256'" when the entry has a usable name, else "case #3", so
// that even errors found before the name is read say which entry they are in.
std::string entry_label(const YAML::Node& node, const char* kind, std::size_t index) {
  if (node.IsMap())
    for (const auto& pair : node) {
      const YAML::Node key = pair.first, value = pair.second;
      if (key.IsScalar() && key.Scalar() == "name" && value.IsScalar() &&
          is_identifier(value.Scalar()))
        return std::string(kind) + " '" + value.Scalar() + "'";
    }
  return std::string(kind) + " #" + std::to_string(index + 1);
}

Visibility read_visibility(const Fields& f, Visibility fallback) {
  const auto v = f.choice("visibility", visibility_words());
  return v ? static_cast<Visibility>(*v) : fallback;
}

// Every matrix must be addressable with a 32-bit signed index.
void check_element_counts(const Fields& f, const Source& src, long long m, long long k,
                          long long n) {
  struct Product { const char* matrix; const char* formula; long long value; };
  const Product products[] = {{"A", "m*k", m * k}, {"B", "k*n", k * n}, {"C", "m*n", m * n}};
  for (const Product& p : products)
    if (p.value > kMaxElements)
      src.fail(f.where(), f.what() + ": " + p.matrix + " would have " + p.formula + " = " +
                              std::to_string(p.value) + " elements; at most " +
                              std::to_string(kMaxElements) + " (2^31-1) are allowed");
}

// m, k and n of a case or check, each in [1, max_edge].
void read_size(const Fields& f, const Source& src, long long max_edge, int& m, int& k, int& n) {
  f.require({"m", "k", "n"});
  const long long mm = *f.integer("m", 1, max_edge);
  const long long kk = *f.integer("k", 1, max_edge);
  const long long nn = *f.integer("n", 1, max_edge);
  check_element_counts(f, src, mm, kk, nn);
  m = static_cast<int>(mm);
  k = static_cast<int>(kk);
  n = static_cast<int>(nn);
}

Performance parse_performance(const YAML::Node& node, const Fields& owner, const Source& src) {
  Fields f(node, owner.what() + " performance", src, owner.where("performance"));
  f.allow_only({"points", "zero_at", "full_at", "samples", "warmups"});
  f.require({"points", "zero_at", "full_at"});
  Performance p;
  p.points = *f.number("points", kPoints);
  p.zero_at = *f.number("zero_at", NumberRange{0, false, 0});
  p.full_at = *f.number("full_at", NumberRange{0, true, 0});
  if (p.zero_at >= p.full_at)
    f.fail("full_at", "zero_at (" + number_text(p.zero_at) + ") must be below full_at (" +
                          number_text(p.full_at) + ")");
  p.samples = static_cast<int>(f.integer("samples", 1, kMaxSamples).value_or(p.samples));
  p.warmups = static_cast<int>(f.integer("warmups", 0, kMaxWarmups).value_or(p.warmups));
  return p;
}

}  // namespace

Defaults parse_defaults(const Fields& top, const Source& src) {
  Defaults d;
  const YAML::Node* node = top.node("defaults");
  if (!node) return d;
  Fields f(*node, "defaults", src, top.where("defaults"));
  f.allow_only({"timeout_s", "tolerance_factor", "visibility", "inputs"});
  d.timeout_s = f.number("timeout_s", kTimeout).value_or(d.timeout_s);
  d.tolerance_factor = f.number("tolerance_factor", kFactor).value_or(d.tolerance_factor);
  d.visibility = read_visibility(f, d.visibility);
  if (const auto v = f.choice("inputs", distribution_words()))
    d.inputs = static_cast<Distribution>(*v);
  return d;
}

Case parse_case(const YAML::Node& node, std::size_t index, const Defaults& defaults,
                const Source& src, const SourceLocation& list_at) {
  Fields f(node, entry_label(node, "case", index), src, list_at);
  f.allow_only({"name", "m", "k", "n", "inputs", "points", "visibility", "timeout_s",
                "tolerance_factor", "exact", "performance"});
  f.require({"name"});
  Case c;
  c.name = *f.identifier("name");
  c.where = f.where();
  read_size(f, src, kMaxEdge, c.m, c.k, c.n);
  f.require({"points"});
  c.points = *f.number("points", kPoints);
  const auto inputs = f.choice("inputs", distribution_words());
  c.inputs = inputs ? static_cast<Distribution>(*inputs) : defaults.inputs;
  c.visibility = read_visibility(f, defaults.visibility);
  c.timeout_s = f.number("timeout_s", kTimeout).value_or(defaults.timeout_s);
  c.tolerance_factor = f.number("tolerance_factor", kFactor).value_or(defaults.tolerance_factor);

  c.exact = f.boolean("exact").value_or(c.inputs == Distribution::SmallInt);
  if (c.exact && c.inputs != Distribution::SmallInt)
    f.fail("exact", "exact: true needs inputs: small_int (other inputs have no result that "
                    "FP32 can match bit for bit)");
  // Every partial sum must stay an integer below 2^24 for FP32 to hold it exactly.
  // (Implied by kMaxEdge today; kept so that raising that limit cannot break grading.)
  if (c.exact && static_cast<long long>(c.k) * kSmallIntMaxProduct >= kExactLimit)
    f.fail("k", "exact results need k*16 < 2^24 (k <= " +
                    std::to_string((kExactLimit - 1) / kSmallIntMaxProduct) + "), got k = " +
                    std::to_string(c.k) + "; lower k or set exact: false");

  if (const YAML::Node* perf = f.node("performance")) {
    c.performance = parse_performance(*perf, f, src);
    c.has_performance = true;
  }
  return c;
}

Check parse_check(const YAML::Node& node, std::size_t index, const Defaults& defaults,
                  const Source& src, const SourceLocation& list_at) {
  Fields f(node, entry_label(node, "check", index), src, list_at);
  f.allow_only({"name", "kind", "points", "visibility", "timeout_s", "m", "k", "n", "min_reuse"});
  f.require({"name"});
  Check c;
  c.name = *f.identifier("name");
  c.where = f.where();
  f.require({"kind", "points"});
  c.kind = kCheckKinds[static_cast<std::size_t>(*f.choice("kind", check_kind_words()))].kind;
  c.points = *f.number("points", kPoints);
  c.visibility = read_visibility(f, defaults.visibility);
  // Checks keep their own default timeout: a sanitizer run is much slower than a case.
  c.timeout_s = f.number("timeout_s", kTimeout).value_or(c.timeout_s);

  if (c.kind == CheckKind::Sanitizer) {
    read_size(f, src, kMaxSanitizerEdge, c.m, c.k, c.n);
    if (c.k <= kTile)
      f.fail("k", "k must be > " + std::to_string(kTile) +
                      " so that the kernel runs at least two K tiles (a missing second "
                      "__syncthreads() only shows then), got " + std::to_string(c.k));
  } else if (c.kind == CheckKind::SharedAndBarrier) {
    // The loads are counted at one shape (under ncu the kernel runs once);
    // the naive count 2*m*n*k/32 is exact when n is a multiple of 16.
    if (f.has("m") || f.has("k") || f.has("n")) {
      read_size(f, src, kMaxReuseEdge, c.m, c.k, c.n);
      if (c.n % kTile != 0)
        f.fail("n", "n must be a multiple of " + std::to_string(kTile) +
                        " (the naive kernel's load count is exact only then), got " + std::to_string(c.n));
    } else {
      c.m = c.k = c.n = kDefaultReuseEdge;
    }
    c.min_reuse = f.number("min_reuse", NumberRange{0, true, kMaxMinReuse}).value_or(c.min_reuse);
  } else {
    for (const char* key : {"m", "k", "n"})
      if (f.has(key))
        f.fail(key, std::string(key) + " applies only to kinds sanitizer and shared_memory_and_barrier");
  }
  if (c.kind != CheckKind::SharedAndBarrier && f.has("min_reuse"))
    f.fail("min_reuse", "min_reuse applies only to kind: shared_memory_and_barrier");
  return c;
}

}  // namespace sg::suite_yaml
