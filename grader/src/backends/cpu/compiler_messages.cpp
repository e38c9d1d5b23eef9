#include "backends/cpu/compiler_messages.h"

#include <regex>
#include <sstream>
#include <vector>

namespace sg {
namespace {

bool is_identifier(const std::string& s) {
  static const std::regex id("[A-Za-z_][A-Za-z0-9_:]*");
  return std::regex_match(s, id);
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
  static const std::regex suggestion("; did you mean '([^']+)'\\?");
  std::istringstream in(log);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::string out;
  std::string dropped;  // the suggestion just removed: its fix-it line follows the caret line
  for (const std::string& line : lines) {
    std::smatch m;
    if (std::regex_search(line, m, suggestion) && is_identifier(m[1].str()) &&
        !student_wrote(m[1].str(), student_source)) {
      dropped = m[1].str();
      out += m.prefix().str() + m.suffix().str() + "\n";
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
