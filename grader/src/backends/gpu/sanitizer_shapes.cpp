#include "backends/gpu/sanitizer_shapes.h"

#include <algorithm>
#include <set>
#include <sstream>
#include <tuple>

#include "io/clean_text.h"
#include "words/sanitizer_report.h"

namespace sg {
namespace {

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
  std::vector<std::vector<std::string>> names;  // of each shape: the check's or cases' names
  std::set<std::tuple<int, int, int>> seen;
  auto add = [&](int m, int k, int n, const std::string& name) {
    if (!seen.insert({m, k, n}).second) {
      for (std::size_t i = 0; i < shapes.size(); ++i)
        if (shapes[i].m == m && shapes[i].k == k && shapes[i].n == n && !name.empty()) names[i].push_back(name);
      return;
    }
    shapes.push_back({m, k, n, ""});
    names.push_back({name});
  };
  if (check.m > 0 && check.k > 0 && check.n > 0) add(check.m, check.k, check.n, check.name);
  // The cases smallest first (suite order among equals): a run ends at its
  // first failing launch, and the tool spends host time on each error it
  // records with the GPU held, so a bug is reported at the smallest shape
  // that shows it, with the fewest errors.
  std::vector<const Case*> covered;
  for (const Case& c : cases)
    if (memcheck_covers(check, c)) covered.push_back(&c);
  std::stable_sort(covered.begin(), covered.end(), [](const Case* a, const Case* b) {
    return double(a->m) * a->k * a->n < double(b->m) * b->k * b->n;
  });
  for (const Case* c : covered) add(c->m, c->k, c->n, c->name);
  for (std::size_t i = 0; i < shapes.size(); ++i)
    shapes[i].label = named_shape_label(shapes[i].m, shapes[i].k, shapes[i].n, names[i]);
  return shapes;
}

SanitizerShape racecheck_shape(std::uint64_t seed) {
  const std::uint64_t r = mix(seed ^ 0x7261636563686bull);  // "racechk": apart from the inputs' streams
  SanitizerShape s;
  s.m = ragged(r & 0xFFFF, 17, 79);
  s.k = ragged((r >> 16) & 0xFFFF, 33, 79);
  s.n = ragged((r >> 32) & 0xFFFF, 17, 79);
  s.label = drawn_shape_label(s.m, s.k, s.n);
  return s;
}

namespace {

// Untrusted text (the runner's and the tools' output) is read by plain scans,
// never std::regex: libstdc++'s matcher recurses per character, and a long
// line of a submission's prints overflowed the judge's stack.

// "MxKxN" (digits, 'x', digits, 'x', digits) at `at` in `text`; "" when not.
std::string shape_at(const std::string& text, std::size_t at) {
  std::size_t i = at;
  for (int part = 0; part < 3; ++part) {
    const std::size_t digits = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    if (i == digits || i - digits > 9) return "";
    if (part < 2) {
      if (i >= text.size() || text[i] != 'x') return "";
      ++i;
    }
  }
  return text.substr(at, i - at);
}

// The shape after the first `marker` in `text` that is followed by one.
std::string shape_after(const std::string& text, const std::string& marker) {
  for (std::size_t at = text.find(marker); at != std::string::npos; at = text.find(marker, at + 1))
    if (std::string shape = shape_at(text, at + marker.size()); !shape.empty()) return shape;
  return "";
}

const char* const kShapeMarker = "selftest: shape ";

// A line of compute-sanitizer's that reports an error: "===... Invalid",
// "= Error:", "= Program hit", "= Race", or a hazard.
bool error_line(const std::string& line) {
  for (const char* what : {"= Invalid", "= Error:", "= Program hit", "= Race", "hazard", "Hazard"})
    if (line.find(what) != std::string::npos) return true;
  return false;
}

}  // namespace

std::string shape_of_first_error(const std::string& output) {
  if (std::string failed = shape_after(output, "selftest: failed at "); !failed.empty()) return failed;
  std::istringstream in(output);
  std::string line, last;
  while (std::getline(in, line)) {
    if (std::string shape = shape_after(line, kShapeMarker); !shape.empty()) {
      last = shape;
      continue;
    }
    if (error_line(line)) return last;
  }
  return "";
}

std::vector<proto::RunCaseRequest> selftest_requests(const std::vector<SanitizerShape>& shapes, std::uint64_t seed) {
  std::vector<proto::RunCaseRequest> requests;
  for (const SanitizerShape& s : shapes) {
    proto::RunCaseRequest q;
    q.type = proto::RequestType::Selftest;
    q.m = s.m;
    q.k = s.k;
    q.n = s.n;
    q.seed = seed + requests.size();
    requests.push_back(q);
  }
  return requests;
}

SanitizerToolOutcome sanitizer_tool_outcome(const ToolRun& run, const std::vector<SanitizerShape>& shapes,
                                            double quiet_s) {
  SanitizerToolOutcome o;
  const bool all_answered = run.answered >= shapes.size();
  o.clean = run.started && run.exit.exited && run.exit.code == 0 && all_answered;
  if (o.clean) return o;
  o.hung = run.started && (run.exit.timed_out || run.went_quiet);
  // The judge knows which request was in flight; the runner's markers name the
  // shape only where every launch was answered (errors that did not fail one).
  if (!all_answered)
    o.shape = shapes[run.answered].label;
  else if (run.started)
    o.shape = shape_of_first_error(run.output);
  std::string said;  // what the ending's sentence quotes
  if (!run.started) {
    o.ending = SanitizerEnding::NotStarted;
    said = run.start_error;
  } else if (run.went_quiet) {
    o.ending = run.before_gate ? SanitizerEnding::QuietBeforeLaunches : SanitizerEnding::WentQuiet;
  } else if (run.exit.timed_out) {
    o.ending = SanitizerEnding::TimedOut;
  } else if (run.exit.exited && run.exit.code == 10) {
    o.ending = SanitizerEnding::FoundErrors;
  } else if (!run.refused.empty()) {
    o.ending = SanitizerEnding::LaunchFailed;
    said = run.refused;
  } else {
    o.ending = all_answered ? SanitizerEnding::Failed : SanitizerEnding::EndedEarly;
    said = run.exit.describe();
  }
  o.what = sanitizer_ending(o.ending, said, quiet_s);
  return o;
}

std::string sanitizer_summary(const std::string& tool, const ToolRun& r) {
  // The lines that say what was found, so the feedback is short: a line naming
  // a hazard, a race, a summary or the thread, whole; else from "Invalid
  // __global__" or "Invalid __shared__" to the end of the line.
  std::string out;
  int lines = 0;
  std::istringstream in(r.output);
  for (std::string line; lines < 12 && std::getline(in, line);) {
    bool whole = false;
    for (const char* what : {"hazard", "Hazard", "Race", "race", "ERROR SUMMARY", "RACECHECK SUMMARY", "by thread"})
      whole = whole || line.find(what) != std::string::npos;
    std::size_t from = std::string::npos;
    if (!whole)
      for (const char* what : {"Invalid __global__", "Invalid __shared__"})
        from = std::min(from, line.find(what));
    if (!whole && from == std::string::npos) continue;
    out += "  " + line.substr(whole ? 0 : from) + "\n";
    ++lines;
  }
  if (out.empty()) {
    // The start of the output, never ending inside a character (the output is UTF-8).
    out = r.output.substr(0, 2000);
    if (out.size() < r.output.size()) out.resize(out.size() - cut_sequence_tail(out));
  }
  return sanitizer_output_summary(tool, r.exit.describe(), out);
}

}  // namespace sg
