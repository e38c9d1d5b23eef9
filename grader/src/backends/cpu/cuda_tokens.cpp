// CUDA source tokenizer (see cuda_tokens.h).
#include "backends/cpu/cuda_tokens.h"

#include <algorithm>
#include <cctype>

namespace sg {
namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

class Lexer {
 public:
  Lexer(const std::string& s, const std::function<void(const Token&)>& visit) : s_(s), visit_(visit) {}

  void run() {
    bool line_start = true;  // only whitespace since the last newline
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == '\n') {
        ++line_;
        ++i_;
        line_start = true;
        in_directive_ = false;
        continue;
      }
      if (c == '\\' && peek(1) == '\n') {  // line continuation
        i_ += 2;
        ++line_;
        continue;
      }
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i_;
        continue;
      }
      if (c == '/' && peek(1) == '/') {
        skip_line_comment();
        continue;
      }
      if (c == '/' && peek(1) == '*') {
        skip_block_comment();
        continue;
      }
      if (c == '#' && line_start) {
        directive();
        line_start = false;
        continue;
      }
      line_start = false;
      if (c == 'R' && peek(1) == '"') {
        raw_string();
        continue;
      }
      if (c == '"' || c == '\'') {
        quoted(c);
        continue;
      }
      if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && std::isdigit(static_cast<unsigned char>(peek(1))))) {
        number();
        continue;
      }
      if (ident_start(c)) {
        const std::size_t b = i_;
        const int line = line_;
        identifier_rest();
        // An encoding prefix glued to a literal belongs to the literal.
        if (i_ < s_.size() && (s_[i_] == '"' || s_[i_] == '\'') && is_encoding_prefix(b, i_)) {
          if (s_[i_ - 1] == 'R' && s_[i_] == '"') {
            --i_;
            raw_string(b);
          } else {
            quoted(s_[i_], b);
          }
          continue;
        }
        push(TokenKind::Identifier, b, i_ - b, line);
        continue;
      }
      punct();
    }
  }

 private:
  char peek(std::size_t ahead) const { return i_ + ahead < s_.size() ? s_[i_ + ahead] : '\0'; }

  // Identifier characters, and the line splices between them (a splice
  // followed by anything else is left to the main loop).
  void identifier_rest() {
    while (i_ < s_.size()) {
      if (ident_char(s_[i_])) {
        ++i_;
        continue;
      }
      const std::size_t splice = line_splice_at(s_, i_);
      if (splice == 0 || i_ + splice >= s_.size() || !ident_char(s_[i_ + splice])) return;
      i_ += splice;
      ++line_;
    }
  }

  bool is_encoding_prefix(std::size_t b, std::size_t e) const {
    Token t;
    t.offset = b;
    t.length = e - b;
    const std::string p = token_spelling(s_, t);
    return p == "L" || p == "u" || p == "U" || p == "u8" || p == "R" || p == "LR" || p == "uR" || p == "UR" ||
           p == "u8R";
  }

  void push(TokenKind kind, std::size_t offset, std::size_t length, int line = 0, std::string header = "") {
    Token t;
    t.kind = kind;
    t.offset = offset;
    t.length = length;
    t.line = line ? line : line_;
    t.in_directive = in_directive_;
    t.header = std::move(header);
    visit_(t);
  }

  void advance_counting() {
    if (s_[i_] == '\n') ++line_;
    ++i_;
  }

  void skip_line_comment() {
    while (i_ < s_.size() && s_[i_] != '\n') {
      if (s_[i_] == '\\' && peek(1) == '\n') {  // a continued // comment goes on
        i_ += 2;
        ++line_;
        continue;
      }
      ++i_;
    }
  }

  void skip_block_comment() {
    i_ += 2;
    while (i_ < s_.size() && !(s_[i_] == '*' && peek(1) == '/')) advance_counting();
    i_ = i_ < s_.size() ? i_ + 2 : i_;
  }

  void quoted(char q, std::size_t begin = std::string::npos) {
    const std::size_t b = begin == std::string::npos ? i_ : begin;
    const int line = line_;
    ++i_;
    while (i_ < s_.size() && s_[i_] != q && s_[i_] != '\n') {
      if (s_[i_] == '\\' && i_ + 1 < s_.size()) advance_counting();
      advance_counting();
    }
    if (i_ < s_.size() && s_[i_] == q) ++i_;
    push(TokenKind::Literal, b, i_ - b, line);
  }

  void raw_string(std::size_t begin = std::string::npos) {
    const std::size_t b = begin == std::string::npos ? i_ : begin;
    const int line = line_;
    i_ += 2;  // R"
    std::string delim;
    while (i_ < s_.size() && s_[i_] != '(' && delim.size() < 16) delim += s_[i_++];
    const std::string close = ")" + delim + "\"";
    const std::size_t end = s_.find(close, i_);
    const std::size_t stop = end == std::string::npos ? s_.size() : end + close.size();
    while (i_ < stop) advance_counting();
    push(TokenKind::Literal, b, i_ - b, line);
  }

  void number() {
    const std::size_t b = i_;
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (ident_char(c) || c == '.') {
        ++i_;
      } else if ((c == '+' || c == '-') && i_ > b && (s_[i_ - 1] == 'e' || s_[i_ - 1] == 'E' || s_[i_ - 1] == 'p' ||
                                                     s_[i_ - 1] == 'P')) {
        ++i_;
      } else if (c == '\'' && ident_char(peek(1))) {  // digit separator
        ++i_;
      } else {
        break;
      }
    }
    push(TokenKind::Number, b, i_ - b);
  }

  void directive() {
    const int line = line_;
    in_directive_ = true;
    ++i_;  // '#'
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t')) ++i_;
    const std::size_t b = i_;
    while (i_ < s_.size() && ident_char(s_[i_])) ++i_;
    const std::size_t e = i_;
    std::string header;
    if (s_.compare(b, e - b, "include") == 0) {  // the rest of other directives is tokenized as code
      while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t')) ++i_;
      if (i_ < s_.size() && (s_[i_] == '<' || s_[i_] == '"')) {
        const char close = s_[i_] == '<' ? '>' : '"';
        const std::size_t hb = ++i_;
        while (i_ < s_.size() && s_[i_] != close && s_[i_] != '\n') ++i_;
        header = s_.substr(hb, i_ - hb);
        if (i_ < s_.size() && s_[i_] == close) ++i_;
      }
    }
    push(TokenKind::Directive, b, e - b, line, std::move(header));
  }

  void punct() {
    static const char* const kMulti[] = {"<<<", ">>>", "::", "<<", ">>", "->"};
    for (const char* p : kMulti) {
      const std::string op(p);
      if (s_.compare(i_, op.size(), op) == 0) {
        push(TokenKind::Punct, i_, op.size());
        i_ += op.size();
        return;
      }
    }
    push(TokenKind::Punct, i_, 1);
    ++i_;
  }

  const std::string& s_;
  std::size_t i_ = 0;
  const std::function<void(const Token&)>& visit_;
  int line_ = 1;
  bool in_directive_ = false;
};

}  // namespace

std::size_t line_splice_at(const std::string& source, std::size_t at) {
  if (at >= source.size() || source[at] != '\\') return 0;
  std::size_t j = at + 1;
  while (j < source.size() && (source[j] == ' ' || source[j] == '\t' || source[j] == '\r')) ++j;
  return j < source.size() && source[j] == '\n' ? j + 1 - at : 0;
}

std::string token_spelling(const std::string& source, const Token& t) {
  const std::size_t end = t.offset + t.length;
  const auto first = source.begin() + static_cast<std::ptrdiff_t>(t.offset);
  const auto last = first + static_cast<std::ptrdiff_t>(t.length);
  if (std::find(first, last, '\\') == last) return token_text(source, t);  // no splice: the common case
  std::string out;
  for (std::size_t i = t.offset; i < end;) {
    const std::size_t splice = line_splice_at(source, i);
    if (splice > 0 && i + splice <= end) {
      i += splice;
    } else {
      out += source[i++];
    }
  }
  return out;
}

std::vector<std::size_t> match_brackets(const std::string& source, const std::vector<Token>& tokens, char open,
                                        char close, bool outside_directives) {
  std::vector<std::size_t> match(tokens.size(), tokens.size());
  std::vector<std::size_t> opened;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (outside_directives && tokens[i].in_directive) continue;
    if (is_punct_char(source, tokens[i], open)) {
      opened.push_back(i);
    } else if (is_punct_char(source, tokens[i], close) && !opened.empty()) {
      match[opened.back()] = i;
      opened.pop_back();
    }
  }
  return match;
}

void for_each_cuda_token(const std::string& source, const std::function<void(const Token&)>& visit) {
  Lexer(source, visit).run();
}

std::vector<Token> tokenize_cuda(const std::string& source) {
  std::vector<Token> out;
  for_each_cuda_token(source, [&out](const Token& t) { out.push_back(t); });
  return out;
}

}  // namespace sg
