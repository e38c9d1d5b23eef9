#include "backends/cpu/compiler_messages.h"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <unordered_set>
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

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Whether `name` occurs in `source` with no word character on either side,
// every occurrence found in one Knuth-Morris-Pratt pass (std::string::find
// from each start would compare up to the name's length at each byte).
bool whole_word_in(const std::string& name, const std::string& source) {
  if (name.empty()) return false;
  std::vector<std::size_t> border(name.size(), 0);  // longest proper border of each prefix of name
  for (std::size_t i = 1, k = 0; i < name.size(); ++i) {
    while (k > 0 && name[i] != name[k]) k = border[k - 1];
    if (name[i] == name[k]) ++k;
    border[i] = k;
  }
  for (std::size_t i = 0, k = 0; i < source.size(); ++i) {
    while (k > 0 && source[i] != name[k]) k = border[k - 1];
    if (source[i] == name[k]) ++k;
    if (k < name.size()) continue;
    const std::size_t at = i + 1 - name.size(), end = i + 1;
    if ((at == 0 || !word_char(source[at - 1])) && (end >= source.size() || !word_char(source[end]))) return true;
    k = border[k - 1];
  }
  return false;
}

// The suggestion must appear as a whole word of the student's text. A name
// of word characters alone is such a word when it is one of the source's
// maximal runs of them, listed once for every suggestion of the log; a
// qualified one (`ns::f`) is looked for in a pass of its own.
class StudentWords {
 public:
  explicit StudentWords(const std::string& source) : source_(source) {}
  bool wrote(const std::string& name) {
    if (!std::all_of(name.begin(), name.end(), word_char)) return whole_word_in(name, source_);
    if (!listed_) {
      for (std::size_t i = 0; i < source_.size();) {
        if (!word_char(source_[i])) {
          ++i;
          continue;
        }
        std::size_t j = i;
        while (j < source_.size() && word_char(source_[j])) ++j;
        words_.insert(source_.substr(i, j - i));
        i = j;
      }
      listed_ = true;
    }
    return words_.count(name) > 0;
  }

 private:
  const std::string& source_;
  std::unordered_set<std::string> words_;
  bool listed_ = false;
};

}  // namespace

std::string student_facing_messages(const std::string& log, const std::string& student_source) {
  std::istringstream in(log);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::string out;
  std::string dropped;  // the suggestion just removed: its fix-it line follows the caret line
  StudentWords student(student_source);
  for (const std::string& line : lines) {
    std::string name;
    std::size_t end = 0;
    const std::size_t at = suggestion_in(line, name, end);
    if (at != std::string::npos && is_identifier(name) && !student.wrote(name)) {
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
