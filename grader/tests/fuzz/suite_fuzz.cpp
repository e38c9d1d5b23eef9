// libFuzzer target for the suite loader. Any input must either load into a
// suite that keeps every promise of the schema, or be rejected with a
// SuiteError that reads "FILE:LINE:COLUMN: message". Anything else (another
// exception, a crash, a hang, a sanitizer report) is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "suite/suite_loader.h"

namespace {

// Abort with a reason that libFuzzer prints with the crashing input.
[[noreturn]] void broken(const char* why) {
  std::fprintf(stderr, "broken promise: %s\n", why);
  std::abort();
}

bool positive_int_at(const std::string& s, std::size_t& pos) {
  const std::size_t start = pos;
  while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') ++pos;
  return pos > start && s[start] != '0';
}

void check_message(const std::string& msg) {
  const std::string prefix = "fuzz.yaml:";
  if (msg.rfind(prefix, 0) != 0) broken("message does not start with the file name");
  std::size_t pos = prefix.size();
  if (!positive_int_at(msg, pos) || pos >= msg.size() || msg[pos++] != ':')
    broken("message has no 1-based line");
  if (!positive_int_at(msg, pos) || msg.compare(pos, 2, ": ") != 0 || msg.size() <= pos + 2)
    broken("message has no 1-based column or no text");
}

void check_suite(const sg::Suite& s) {
  if (s.cases.empty()) broken("a suite without cases");
  if (!(s.max_points() > 0)) broken("a suite worth nothing");
  for (const sg::Case& c : s.cases) {
    if (c.name.empty()) broken("a case without a name");
    for (int edge : {c.m, c.k, c.n})
      if (edge < 1 || edge > 65536) broken("a case size out of range");
    const std::int64_t m = c.m, k = c.k, n = c.n, limit = 2147483647;
    if (m * k > limit || k * n > limit || m * n > limit) broken("a matrix over 2^31-1 elements");
    if (!(c.points >= 0) || !(c.timeout_s > 0) || !(c.tolerance_factor > 0)) broken("a bad case number");
    if (c.exact && c.inputs != sg::Distribution::SmallInt) broken("exact without small_int");
    if (c.has_performance) {
      const sg::Performance& p = c.performance;
      if (!(p.zero_at < p.full_at) || p.samples < 1 || p.warmups < 0 || !(p.points >= 0))
        broken("bad performance thresholds");
    }
  }
  for (const sg::Check& c : s.checks) {
    if (c.name.empty() || !(c.points >= 0) || !(c.timeout_s > 0)) broken("a bad check");
    if (c.kind == sg::CheckKind::Sanitizer && (c.k <= 16 || c.m < 1 || c.n < 1))
      broken("a sanitizer check without two K tiles");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    check_suite(sg::load_suite_string(text, "fuzz.yaml"));
  } catch (const sg::SuiteError& e) {
    check_message(e.what());
  }
  return 0;
}
