#include "backends/cpu/compiler_messages.h"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <vector>

namespace sg {
namespace {

// Compiler output quotes the student's text: it is read by plain scans, never
// std::regex, whose matcher recurses per character (a long name overflowed the stack).
bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':'; });
}

// g++'s "; did you mean 'NAME'?": where it starts and NAME; npos when the line has none.
std::size_t suggestion_in(const std::string& line, std::string& name, std::size_t& end) {
  static const std::string kOpen = "; did you mean '";
  for (std::size_t at = line.find(kOpen); at != std::string::npos; at = line.find(kOpen, at + 1)) {
    const std::size_t first = at + kOpen.size();
    const std::size_t close = line.find('\'', first);
    if (close == std::string::npos) return std::string::npos;
    if (close > first && close + 1 < line.size() && line[close + 1] == '?') {
      name = line.substr(first, close - first);
      end = close + 2;
      return at;
    }
  }
  return std::string::npos;
}

// The suggestion must appear as a whole word of the student's text.
bool student_wrote(const std::string& name, const std::string& source) {
  for (std::size_t at = source.find(name); at != std::string::npos; at = source.find(name, at + 1)) {
    const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    const bool left = at == 0 || !word(source[at - 1]);
    const std::size_t end = at + name.size();
    if (left && (end >= source.size() || !word(source[end]))) return true;
  }
  return false;
}

}  // namespace

std::string student_facing_messages(const std::string& log, const std::string& student_source) {
  std::istringstream in(log);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::string out;
  std::string dropped;  // the suggestion just removed: its fix-it line follows the caret line
  for (const std::string& line : lines) {
    std::string name;
    std::size_t end = 0;
    const std::size_t at = suggestion_in(line, name, end);
    if (at != std::string::npos && is_identifier(name) && !student_wrote(name, student_source)) {
      dropped = name;
      out += line.substr(0, at) + line.substr(end) + "\n";
      continue;
    }
    // g++ quotes the line ("   19 | ..."), marks it ("      |   ^~~") and
    // prints the fix-it ("      |   NAME"): drop that last one.
    if (!dropped.empty()) {
      const std::size_t bar = line.find(" | ");
      const std::size_t bare_bar = line.find_first_not_of(' ');
      if (bare_bar != std::string::npos && line[bare_bar] == '|') {
        const std::size_t text = line.find_first_not_of(' ', bare_bar + 1);
        if (text != std::string::npos && line.compare(text, std::string::npos, dropped) == 0) {
          dropped.clear();
          continue;
        }
      } else if (bar == std::string::npos) {
        dropped.clear();  // the next message: no fix-it came
      }
    }
    out += line + "\n";
  }
  if (!log.empty() && log.back() != '\n' && !out.empty()) out.pop_back();
  return out;
}

std::string first_error_line(const std::string& log) {
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);)
    if (line.find(" error: ") != std::string::npos || line.find(": error:") != std::string::npos) return line;
  return "";
}

bool mentions_cpu_layer(const std::string& log) {
  return log.find("cudacpu") != std::string::npos || log.find("cudacpu.h") != std::string::npos;
}

}  // namespace sg
