// The scan of the preprocessed text (see preprocessed_scan.h).
#include "backends/cpu/preprocessed_scan.h"

#include <cctype>
#include <set>

#include "backends/cpu/cuda_tokens.h"

namespace sg {
namespace {

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

bool x86_builtin(const std::string& w) { return w.compare(0, 15, "__builtin_ia32_") == 0; }
bool inline_asm(const std::string& w) { return w == "asm" || w == "__asm" || w == "__asm__"; }

// Walks the tokens of the shared tokenizer (cuda_tokens.h, which the
// rewriter uses too), so that a literal, a number or a raw string is taken
// apart here as it is there; no token is kept.
class Scanner {
 public:
  Scanner(const std::string& text, const std::string& student_file, std::size_t max)
      : s_(text), student_("\"" + student_file + "\""), max_(max) {}

  SourceProblems run() {
    for_each_cuda_token(s_, [this](const Token& t) { token(t); });
    return {std::move(problems_), more_};
  }

 private:
  void token(const Token& t) {
    if (t.kind == TokenKind::Directive) {
      directive_ = token_text(s_, t);
      directive_words_.clear();
      directive_line_ = source_line(t);
      if (!directive_.empty() && std::isdigit(static_cast<unsigned char>(directive_[0]))) line_marker(t);
      return;
    }
    if (t.in_directive) {
      directive_token(t);
      return;
    }
    if (!mine_) return;
    if (t.kind == TokenKind::Identifier) word(token_text(s_, t), source_line(t));
    if (t.kind == TokenKind::Punct) punct(s_[t.offset]);
    previous_ = t.kind == TokenKind::Punct ? s_[t.offset] : '\0';
  }

  // `# N "file" flags`: the next line is line N of file.
  void line_marker(const Token& t) {
    long n = 0;
    for (std::size_t i = 0; i < directive_.size() && n < 100000000; ++i)
      if (std::isdigit(static_cast<unsigned char>(directive_[i]))) n = n * 10 + (directive_[i] - '0');
    marker_number_ = n;
    marker_at_ = t.line;
    marker_file_pending_ = true;
  }

  void directive_token(const Token& t) {
    if (marker_file_pending_) {
      marker_file_pending_ = false;
      if (t.kind == TokenKind::Literal) mine_ = token_text(s_, t) == student_;
      return;
    }
    if (!mine_ || directive_ != "pragma" || t.kind != TokenKind::Identifier || directive_words_.size() >= 2) return;
    directive_words_.push_back(token_text(s_, t));
    if (directive_words_.size() == 2 && directive_words_[0] == "GCC" &&
        (directive_words_[1] == "optimize" || directive_words_[1] == "push_options" ||
         directive_words_[1] == "pop_options" || directive_words_[1] == "reset_options" ||
         directive_words_[1] == "target"))
      problem(directive_line_, SourceProblemKind::GccPragma, directive_words_[1]);
  }

  long source_line(const Token& t) const { return marker_number_ + (t.line - marker_at_ - 1); }

  void problem(long line, SourceProblemKind kind, const std::string& what) {
    SourceProblem p{line, kind, what};
    if (!seen_.insert(p).second) return;
    if (problems_.size() < max_)
      problems_.push_back(std::move(p));
    else
      ++more_;
  }

  void punct(char c) {
    if (c == '(' && attr_depth_ > 0) ++attr_depth_;
    if (c == ')' && attr_depth_ > 0 && --attr_depth_ == 1) attr_depth_ = 0;  // the attribute list closed
    if (c == '[' && previous_ == '[') in_brackets_ = true;  // `[[`, also written `[ [`
    if (c == ']' && previous_ == ']') in_brackets_ = false;
  }

  void word(const std::string& w, long line) {
    if (inline_asm(w)) return problem(line, SourceProblemKind::InlineAssembly, w);
    if (x86_builtin(w)) return problem(line, SourceProblemKind::X86Builtin, w);
    if (w == "__attribute__" || w == "__attribute") {
      attr_depth_ = 1;  // the parentheses that follow hold attributes
      return;
    }
    if ((attr_depth_ > 1 || in_brackets_) && banned_attribute(w)) problem(line, SourceProblemKind::Attribute, w);
  }

  const std::string& s_;
  const std::string student_;
  const std::size_t max_;
  std::vector<SourceProblem> problems_;
  std::set<SourceProblem> seen_;
  std::size_t more_ = 0;
  bool mine_ = false;
  // The last line marker: its number and the line of the text it stands on.
  long marker_number_ = 1;
  long marker_at_ = 0;
  bool marker_file_pending_ = false;  // its file name is the next token
  std::string directive_;  // the directive being read ("pragma", "12", ...)
  std::vector<std::string> directive_words_;  // its first identifiers
  long directive_line_ = 0;
  char previous_ = '\0';  // the last token of the student's code, where it was a punctuator
  int attr_depth_ = 0;  // > 1: inside __attribute__((...))
  bool in_brackets_ = false;  // inside [[...]]
};

}  // namespace

SourceProblems scan_preprocessed(const std::string& text, const std::string& student_file,
                                 std::size_t max_problems) {
  return Scanner(text, student_file, max_problems).run();
}

}  // namespace sg
