#include "backends/gpu/ncu_reuse.h"

#include "process/tool_run.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>

#include "io/clean_text.h"
#include "words/check_report.h"

namespace sg {
namespace {

// One CSV line as ncu writes it: fields in double quotes ("" inside is a quote).
// false for anything that is not such a line.
bool split_quoted(const std::string& line, std::vector<std::string>& fields) {
  fields.clear();
  std::size_t i = 0;
  while (i < line.size()) {
    if (line[i] != '"') return false;
    std::string f;
    ++i;
    for (;;) {
      if (i >= line.size()) return false;
      if (line[i] == '"') {
        if (i + 1 < line.size() && line[i + 1] == '"') {
          f += '"';
          i += 2;
          continue;
        }
        ++i;
        break;
      }
      f += line[i++];
    }
    fields.push_back(f);
    if (i == line.size()) return true;
    if (line[i] != ',') return false;
    ++i;
  }
  return !fields.empty();
}

// "67108864", "67,108,864" or "1048576.00": a non-negative count.
std::optional<double> parse_count(const std::string& s) {
  std::string digits;
  std::size_t i = 0, group = 0;
  bool grouped = false;
  for (; i < s.size() && s[i] != '.'; ++i) {
    if (s[i] == ',') {
      if (digits.empty() || (grouped && group != 3) || (!grouped && digits.size() > 3)) return std::nullopt;
      grouped = true;
      group = 0;
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return std::nullopt;
    digits += s[i];
    ++group;
  }
  if (digits.empty() || (grouped && group != 3)) return std::nullopt;
  if (i < s.size()) {  // a fraction: digits only
    if (i + 1 == s.size()) return std::nullopt;
    for (std::size_t j = i + 1; j < s.size(); ++j)
      if (!std::isdigit(static_cast<unsigned char>(s[j]))) return std::nullopt;
    digits += s.substr(i);
  }
  if (digits.size() > 30) return std::nullopt;
  const double v = std::strtod(digits.c_str(), nullptr);
  if (!std::isfinite(v) || v < 0) return std::nullopt;
  return v;
}

int column(const std::vector<std::string>& header, const char* name) {
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return static_cast<int>(i);
  return -1;
}

}  // namespace


NcuLoads parse_ncu_loads(const std::string& output, const std::string& metric) {
  NcuLoads r;
  r.no_permission = output.find("ERR_NVGPUCTRPERM") != std::string::npos;
  std::istringstream in(output);
  std::string line;
  std::vector<std::string> header, fields;
  int name_col = -1, value_col = -1, headers = 0;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] != '"') continue;  // ncu's ==PROF== lines, the program's prints
    if (!split_quoted(line, fields)) {
      if (headers > 0) {
        r.why = ncu_line_not_csv();
        return r;
      }
      continue;
    }
    if (column(fields, "Metric Name") >= 0 && column(fields, "Metric Value") >= 0) {
      if (++headers > 1) {
        r.why = ncu_two_headers();
        return r;
      }
      header = fields;
      name_col = column(header, "Metric Name");
      value_col = column(header, "Metric Value");
      continue;
    }
    if (headers == 0) continue;  // quoted text before the table is the program's
    if (fields.size() != header.size()) {
      r.why = ncu_row_width(fields.size(), header.size());
      return r;
    }
    if (fields[name_col] != metric) continue;
    const std::optional<double> v = parse_count(fields[value_col]);
    if (!v) {
      // Its first 40 bytes, never ending inside a character (the output is UTF-8).
      std::string shown = fields[value_col].substr(0, 40);
      if (shown.size() < fields[value_col].size()) shown.resize(shown.size() - cut_sequence_tail(shown));
      r.why = ncu_value_not_count(metric, shown);
      return r;
    }
    r.loads += *v;
    ++r.kernels;
  }
  if (headers == 0) {
    r.why = r.no_permission ? ncu_counters_admin_only(false) : ncu_no_table();
    return r;
  }
  if (r.kernels == 0) {
    r.why = ncu_no_row(metric);
    return r;
  }
  r.ok = true;
  return r;
}

std::optional<bool> counters_admin_only(const std::string& params_path) {
  std::ifstream in(params_path);
  if (!in) return std::nullopt;
  std::string line;
  const std::string key = "RmProfilingAdminOnly:";
  while (std::getline(in, line)) {
    if (line.compare(0, key.size(), key) != 0) continue;
    std::istringstream value(line.substr(key.size()));
    int v = -1;
    if (value >> v && (v == 0 || v == 1)) return v == 1;
    return std::nullopt;
  }
  return std::nullopt;
}

std::vector<std::string> ncu_command(const std::string& ncu, const std::string& runner) {
  // Instruction counts depend neither on clocks nor on caches: leaving both
  // alone spares the clock lock (which may need privileges) and the flushes.
  // The runner's own output goes to /dev/null (through a shell that execs
  // it, so ncu still profiles the runner's process): whatever the submission
  // prints cannot bury or imitate ncu's table on ncu's output.
  return {ncu,
          "--csv",
          "--metrics",
          kGlobalLoadMetric,
          "--print-units",
          "base",
          "--clock-control",
          "none",
          "--cache-control",
          "none",
          "/bin/sh",
          "-c",
          "exec \"$0\" \"$@\" >/dev/null 2>&1",
          runner};
}

std::string ncu_errors(const std::string& output) {
  std::string said;
  std::size_t at = 0;
  while ((at = output.find("==ERROR==", at)) != std::string::npos && said.size() < 400) {
    // The rest of the marker's line, past one space: the output may end
    // anywhere, right after the marker too, and the next line is not part of it.
    std::size_t from = at + 9;
    if (from < output.size() && output[from] == ' ') ++from;
    const std::size_t end = std::min(output.find('\n', from), output.size());
    said += (said.empty() ? ": " : "; ") + output.substr(from, end - from);
    at = end;
  }
  return said;
}


ReuseMeasurement ncu_reuse_outcome(const Check& c, const ToolRun& run, const std::string& over,
                                   std::optional<bool> admin_only, double quiet_s, double seconds) {
  ReuseMeasurement r;
  r.source = ReuseSource::Ncu;
  r.naive_loads = naive_global_loads(c.m, c.n, c.k);
  r.seconds = seconds;
  const NcuLoads loads = parse_ncu_loads(run.output);
  if (loads.no_permission && !loads.ok && !admin_only.has_value()) {
    // The driver's setting is unknown here: ncu's own word stands.
    r.why = ncu_counters_admin_only(false);
    return r;
  }
  r.outcome = ReuseMeasurement::Outcome::NotMeasured;
  if (!run.started) {
    r.why = ncu_not_started(run.start_error);
    return r;
  }
  if (!run.exit.exited || run.exit.code != 0 || run.answered != 1 || !over.empty()) {
    // The kernel failed at this shape (its correctness cases say how): its
    // loads cannot be counted, so the static check stands in, as without ncu.
    // (A submission could fail here on purpose to get the static check: said in README's threat model.)
    r.outcome = ReuseMeasurement::Outcome::Unavailable;
    const std::string reason = !over.empty()          ? over
                               : run.before_gate      ? ncu_hung_before_launch(quiet_s)
                               : run.went_quiet       ? ncu_went_quiet(quiet_s)
                               : !run.refused.empty() ? ncu_launch_failed(run.refused)
                               : run.answered == 0    ? ncu_ended_before_launch(run.exit.describe())
                                                      : run.exit.describe();
    r.why = ncu_kernel_incomplete(c.m, c.k, c.n, reason, ncu_errors(run.output));
    return r;
  }
  if (!loads.ok) {
    r.why = loads.why;
    return r;
  }
  if (loads.loads <= 0) {
    r.why = no_global_load();
    return r;
  }
  r.outcome = ReuseMeasurement::Outcome::Measured;
  r.loads = loads.loads;
  r.kernels = loads.kernels;
  return r;
}

}  // namespace sg
