// A tokenizer for CUDA C++ source that is just good enough for rewriting:
// it skips comments, string and character literals (raw strings too), keeps
// byte offsets and line numbers, and marks preprocessor directives. It does
// not preprocess: macros are seen as written. An identifier runs on across a
// line splice (backslash, newline), as the preprocessor joins it. One pass,
// each byte looked at a bounded number of times.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace sg {

enum class TokenKind { Identifier, Number, Literal, Punct, Directive };

struct Token {
  TokenKind kind = TokenKind::Punct;
  std::size_t offset = 0;  // byte offset in the source
  std::size_t length = 0;
  int line = 1;            // 1-based line of the first byte
  bool in_directive = false;  // part of a preprocessor directive line (e.g. a #define body)
  // For Directive tokens: the directive name ("include", "define", ...) is the
  // token text; header holds the name between <> or "" of an #include.
  std::string header;
};

// Punctuators come out one per token except `::`, `<<<`, `>>>`, `<<`, `>>`
// and `->`, which the rewriter needs whole.
std::vector<Token> tokenize_cuda(const std::string& source);
// The same tokens handed to `visit` one at a time, in order, none kept: for
// text too large to hold as tokens (a preprocessed translation unit).
void for_each_cuda_token(const std::string& source, const std::function<void(const Token&)>& visit);

inline std::string token_text(const std::string& source, const Token& t) { return source.substr(t.offset, t.length); }

// A token's text with its line splices removed: an identifier as the
// preprocessor spells it (`__as\<newline>m__` is `__asm__`).
std::string token_spelling(const std::string& source, const Token& t);

// For each token that is the one-character punctuator `open`, the index of
// the `close` that matches it; tokens.size() where none does (and for every
// other token). With `outside_directives`, tokens of directive lines neither
// open nor close. One pass with a stack: nested brackets cost no rescans.
std::vector<std::size_t> match_brackets(const std::string& source, const std::vector<Token>& tokens, char open,
                                        char close, bool outside_directives);

// True when `t` is the one-character punctuator `p`.
inline bool is_punct_char(const std::string& source, const Token& t, char p) {
  return t.kind == TokenKind::Punct && t.length == 1 && source[t.offset] == p;
}

// The length of the line splice at `at` (a backslash, spaces or tabs or
// carriage returns, a newline), 0 where there is none: the preprocessor
// joins such lines, only warning about the spaces.
std::size_t line_splice_at(const std::string& source, std::size_t at);

}  // namespace sg
