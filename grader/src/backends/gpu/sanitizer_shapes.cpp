#include "backends/gpu/sanitizer_shapes.h"

#include <regex>
#include <set>
#include <sstream>
#include <tuple>

namespace sg {
namespace {

std::string dims(int m, int k, int n) {
  return std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n);
}

// splitmix64: a well-mixed value from any seed (0 included).
std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// A value in [lo, hi] that is not a multiple of 16.
int ragged(std::uint64_t r, int lo, int hi) {
  int v = lo + static_cast<int>(r % static_cast<std::uint64_t>(hi - lo + 1));
  if (v % 16 == 0) v = (v + 1 <= hi) ? v + 1 : v - 1;
  return v;
}

}  // namespace

std::vector<SanitizerShape> memcheck_shapes(const Check& check, const std::vector<Case>& cases) {
  std::vector<SanitizerShape> shapes;
  std::set<std::tuple<int, int, int>> seen;
  auto add = [&](int m, int k, int n, const std::string& name) {
    if (!seen.insert({m, k, n}).second) {
      for (SanitizerShape& s : shapes)
        if (s.m == m && s.k == k && s.n == n && !name.empty()) {
          s.label.pop_back();  // "...)" -> "..., name)"
          s.label += ", " + name + ")";
        }
      return;
    }
    shapes.push_back({m, k, n, dims(m, k, n) + " (" + name + ")"});
  };
  if (check.m > 0 && check.k > 0 && check.n > 0) add(check.m, check.k, check.n, check.name);
  for (const Case& c : cases)
    if (memcheck_covers(check, c)) add(c.m, c.k, c.n, c.name);
  return shapes;
}

SanitizerShape racecheck_shape(std::uint64_t seed) {
  const std::uint64_t r = mix(seed ^ 0x7261636563686bull);  // "racechk": apart from the inputs' streams
  SanitizerShape s;
  s.m = ragged(r & 0xFFFF, 17, 79);
  s.k = ragged((r >> 16) & 0xFFFF, 33, 79);
  s.n = ragged((r >> 32) & 0xFFFF, 17, 79);
  s.label = dims(s.m, s.k, s.n) + " (drawn from the seed)";
  return s;
}

namespace {
// The runner's line before each launch: "selftest: shape MxKxN".
const std::regex& shape_line() {
  static const std::regex shape(R"(selftest: shape (\d+x\d+x\d+))");
  return shape;
}
}  // namespace

std::string shape_of_first_error(const std::string& output) {
  static const std::regex failed(R"(selftest: failed at (\d+x\d+x\d+))");
  const std::regex& shape = shape_line();
  static const std::regex error(R"(=+ (Invalid|Error:|Program hit|Race)|[Hh]azard)");
  std::smatch m;
  if (std::regex_search(output, m, failed)) return m[1];
  std::istringstream in(output);
  std::string line, last;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, shape)) {
      last = m[1];
      continue;
    }
    if (std::regex_search(line, error)) return last;
  }
  return "";
}

std::string last_shape_started(const std::string& output) {
  std::string last;
  for (auto it = std::sregex_iterator(output.begin(), output.end(), shape_line()); it != std::sregex_iterator(); ++it)
    last = (*it)[1];
  return last;
}

void append_shapes(std::vector<std::string>& argv, const std::vector<SanitizerShape>& shapes) {
  for (const SanitizerShape& s : shapes) {
    argv.push_back(std::to_string(s.m));
    argv.push_back(std::to_string(s.k));
    argv.push_back(std::to_string(s.n));
  }
}

std::string sanitizer_summary(const std::string& tool, const ToolRun& r) {
  // The lines that say what was found, so the feedback is short.
  static const std::regex interesting(
      R"((Invalid (__global__|__shared__)[^\n]*|[^\n]*(hazard|Hazard|Race|race)[^\n]*|[^\n]*ERROR SUMMARY[^\n]*|[^\n]*RACECHECK SUMMARY[^\n]*|[^\n]*by thread[^\n]*))");
  std::string out;
  int lines = 0;
  for (std::sregex_iterator it(r.output.begin(), r.output.end(), interesting), end; it != end && lines < 12;
       ++it, ++lines)
    out += "  " + it->str() + "\n";
  if (out.empty()) out = r.output.substr(0, 2000);
  return tool + ": " + r.exit.describe() + "\n" + out;
}

}  // namespace sg
