// The scan of the preprocessed text (see preprocessed_scan.h).
#include "backends/cpu/preprocessed_scan.h"

#include <cctype>
#include <cstring>
#include <set>

namespace sg {
namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Attribute names that take a function out of the hooks' sight or change how it is compiled.
bool banned_attribute(const std::string& name) {
  static const std::set<std::string> kNames = {
      "no_sanitize", "no_sanitize_address", "no_address_safety_analysis", "no_sanitize_thread",
      "no_sanitize_undefined", "disable_sanitizer_instrumentation", "optimize", "naked", "no_split_stack"};
  std::string plain = name;
  if (plain.size() > 4 && plain.compare(0, 2, "__") == 0 && plain.compare(plain.size() - 2, 2, "__") == 0)
    plain = plain.substr(2, plain.size() - 4);  // __optimize__ is optimize
  return kNames.count(plain) > 0;
}

bool banned_word(const std::string& w) {
  return w == "asm" || w == "__asm" || w == "__asm__" || w.compare(0, 15, "__builtin_ia32_") == 0;
}

class Scanner {
 public:
  Scanner(const std::string& text, const std::string& student_file, std::size_t max)
      : s_(text), student_("\"" + student_file + "\""), max_(max) {}

  std::vector<std::string> run() {
    std::size_t p = 0;
    bool line_start = true;
    while (p < s_.size()) {
      if (line_start) {
        line_start = false;
        std::size_t q = p;
        while (q < s_.size() && (s_[q] == ' ' || s_[q] == '\t')) ++q;
        if (q < s_.size() && s_[q] == '#') {
          std::size_t end = s_.find('\n', q);
          if (end == std::string::npos) end = s_.size();
          directive(q + 1, end);
          p = end + 1;
          line_start = true;
          continue;
        }
      }
      const char c = s_[p];
      if (c == '\n') {
        ++line_;
        line_start = true;
        ++p;
      } else if (c == '"' || c == '\'') {
        p = literal(p);
      } else if (ident_start(c)) {
        const std::size_t b = p;
        while (p < s_.size() && ident_char(s_[p])) ++p;
        const std::string w = s_.substr(b, p - b);
        if (p < s_.size() && s_[p] == '"' && !w.empty() && w.back() == 'R' && w.size() <= 3) {
          p = raw_literal(p);  // R"delim(...)delim", also u8R, LR, uR, UR
          continue;
        }
        if (mine_) word(w);
      } else {
        if (mine_) punct(p);
        ++p;
      }
    }
    if (more_ > 0) problems_.push_back("(" + std::to_string(more_) + " more not shown)");
    return problems_;
  }

 private:
  void problem(const std::string& what) {
    const std::string msg = "kernel.cu:" + std::to_string(line_) + ": " + what + " is not supported on the CPU backend";
    if (!seen_.insert(msg).second) return;
    if (problems_.size() < max_)
      problems_.push_back(msg);
    else
      ++more_;
  }

  // A string or character literal from its quote; returns the position after it (or its line's end).
  std::size_t literal(std::size_t p) {
    const char quote = s_[p];
    for (++p; p < s_.size() && s_[p] != quote && s_[p] != '\n'; ++p)
      if (s_[p] == '\\' && p + 1 < s_.size() && s_[p + 1] != '\n') ++p;
    return p < s_.size() && s_[p] == quote ? p + 1 : p;
  }

  // A raw string literal from its quote: it may span lines, which are counted.
  std::size_t raw_literal(std::size_t p) {
    const std::size_t open = s_.find('(', p);
    if (open == std::string::npos || open - p > 17) return p + 1;  // not a raw string after all
    const std::string close = ")" + s_.substr(p + 1, open - p - 1) + "\"";
    const std::size_t end = s_.find(close, open);
    const std::size_t stop = end == std::string::npos ? s_.size() : end + close.size();
    for (std::size_t q = p; q < stop; ++q)
      if (s_[q] == '\n') ++line_;
    return stop;
  }

  // `# N "file" flags` (a line marker) or `#pragma ...`, from after the '#'.
  void directive(std::size_t p, std::size_t end) {
    while (p < end && s_[p] == ' ') ++p;
    if (p < end && std::isdigit(static_cast<unsigned char>(s_[p]))) {
      long n = 0;
      while (p < end && std::isdigit(static_cast<unsigned char>(s_[p])) && n < 100000000) n = n * 10 + (s_[p++] - '0');
      while (p < end && s_[p] == ' ') ++p;
      const std::size_t q = p < end && s_[p] == '"' ? s_.find('"', p + 1) : std::string::npos;
      if (q != std::string::npos && q < end) mine_ = s_.compare(p, q + 1 - p, student_) == 0;
      line_ = n;
      return;
    }
    if (mine_) {
      for (const char* bad : {"pragma GCC optimize", "pragma GCC push_options", "pragma GCC pop_options",
                              "pragma GCC reset_options", "pragma GCC target"})
        if (end - p >= std::strlen(bad) && s_.compare(p, std::strlen(bad), bad) == 0)
          problem("`#" + std::string(bad) + "`");
    }
    ++line_;
  }

  void punct(std::size_t p) {
    const char c = s_[p];
    if (c == '(' && attr_depth_ > 0) ++attr_depth_;
    if (c == ')' && attr_depth_ > 0 && --attr_depth_ == 1) attr_depth_ = 0;  // the attribute list closed
    if (c == '[' && p + 1 < s_.size() && s_[p + 1] == '[') in_brackets_ = true;
    if (c == ']' && p + 1 < s_.size() && s_[p + 1] == ']') in_brackets_ = false;
  }

  void word(const std::string& w) {
    if (banned_word(w)) {
      problem(w.compare(0, 15, "__builtin_ia32_") == 0 ? "the x86 builtin `" + w + "`" : "inline assembly (`" + w + "`)");
      return;
    }
    if (w == "__attribute__" || w == "__attribute") {
      attr_depth_ = 1;  // the parentheses that follow hold attributes
      return;
    }
    if ((attr_depth_ > 1 || in_brackets_) && banned_attribute(w)) problem("the attribute `" + w + "`");
  }

  const std::string& s_;
  const std::string student_;
  const std::size_t max_;
  std::vector<std::string> problems_;
  std::set<std::string> seen_;
  std::size_t more_ = 0;
  bool mine_ = false;
  long line_ = 1;
  int attr_depth_ = 0;  // > 1: inside __attribute__((...))
  bool in_brackets_ = false;  // inside [[...]]
};

}  // namespace

std::vector<std::string> scan_preprocessed(const std::string& text, const std::string& student_file,
                                           std::size_t max_problems) {
  return Scanner(text, student_file, max_problems).run();
}

}  // namespace sg
