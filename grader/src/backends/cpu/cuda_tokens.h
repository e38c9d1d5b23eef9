// A tokenizer for CUDA C++ source that is just good enough for rewriting:
// it skips comments, string and character literals (raw strings too), keeps
// byte offsets and line numbers, and marks preprocessor directives. It does
// not preprocess: macros are seen as written.
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

}  // namespace sg
