// Source-level structure check (see source_structure.h), on the rewriter's
// tokenizer so comments, literals and line numbers are handled the same way.
#include "backends/cpu/source_structure.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "backends/cpu/cuda_tokens.h"

namespace sg {
namespace {

// A half-open range of token indices.
struct Span {
  std::size_t begin = 0, end = 0;
};

bool is_barrier(const std::string& name) {
  return name == "__syncthreads" || name == "__syncthreads_count" || name == "__syncthreads_and" ||
         name == "__syncthreads_or";
}

// Words followed by ( ... ) { that are statements, not function definitions.
bool is_statement_keyword(const std::string& w) {
  static const std::set<std::string> kWords = {"if", "for", "while", "switch", "catch", "return", "sizeof",
                                               "alignof", "decltype", "do", "else"};
  return kWords.count(w) > 0;
}

class SourceScan {
 public:
  explicit SourceScan(const std::string& src)
      : src_(src), toks_(tokenize_cuda(src)), next_unread_(toks_.size() + 1) {
    for (std::size_t i = 0; i < next_unread_.size(); ++i) next_unread_[i] = i;
    index_functions();
    index_macros();
  }

  StructureReport run() {
    StructureReport r;
    auto kernel = functions_.find("mysgemm");
    if (kernel == functions_.end()) {
      r.detail = "no definition of mysgemm found in kernel.cu (checked from the source: nvcc is not available)";
      return r;
    }
    r.found_kernel = true;
    walk_from("mysgemm");
    r.uses_shared = shared_line_ > 0;
    r.uses_barrier = barrier_line_ > 0;
    auto where = [](int line) { return "kernel.cu:" + std::to_string(line); };
    r.detail = "checked from the source (nvcc is not available): ";
    r.detail += r.uses_shared ? "__shared__ declared at " + where(shared_line_) : "no __shared__ declaration";
    r.detail += "; ";
    r.detail += r.uses_barrier ? "__syncthreads called at " + where(barrier_line_) : "no __syncthreads call";
    r.detail += " (in mysgemm, the functions it calls, or the macros they use)";
    return r;
  }

 private:
  std::string name(std::size_t i) const { return token_spelling(src_, toks_[i]); }

  // Every function definition at any nesting: NAME ( ... ) [qualifiers] { ... }.
  void index_functions() {
    const std::vector<std::size_t> paren = match_brackets(src_, toks_, '(', ')', true);
    const std::vector<std::size_t> brace = match_brackets(src_, toks_, '{', '}', true);
    for (std::size_t i = 0; i + 1 < toks_.size(); ++i) {
      const Token& t = toks_[i];
      if (t.in_directive || t.kind != TokenKind::Identifier || !is_punct_char(src_, toks_[i + 1], '(')) continue;
      std::size_t j = paren[i + 1] + 1;
      // Skip what may stand between the parameters and the body (const, noexcept, -> T, ...).
      while (j < toks_.size() && !toks_[j].in_directive && toks_[j].kind == TokenKind::Identifier) ++j;
      if (j >= toks_.size() || !is_punct_char(src_, toks_[j], '{')) continue;
      const std::string n = name(i);
      if (!is_statement_keyword(n) && !functions_.count(n)) functions_[n] = {j + 1, brace[j]};
    }
  }

  // Object- and function-like macros: the tokens of each #define's body.
  void index_macros() {
    for (std::size_t i = 0; i + 1 < toks_.size(); ++i) {
      if (toks_[i].kind != TokenKind::Directive || token_text(src_, toks_[i]) != "define") continue;
      const Token& macro = toks_[i + 1];
      if (!macro.in_directive || macro.kind != TokenKind::Identifier) continue;
      std::size_t end = i + 2;
      while (end < toks_.size() && toks_[end].in_directive && toks_[end].kind != TokenKind::Directive) ++end;
      macros_[name(i + 1)] = {i + 2, end};
    }
  }

  // The first token at or after i not yet read (a union-find over read tokens, with path halving).
  std::size_t unread_from(std::size_t i) {
    while (next_unread_[i] != i) i = next_unread_[i] = next_unread_[next_unread_[i]];
    return i;
  }

  // Reads mysgemm's body depth first: a called function or a used macro is
  // read where it is met, once. A token already read is skipped, since
  // reading it again changes nothing; so nested definitions cost no
  // rescans, and a stack instead of recursion bears any depth of calls.
  void walk_from(const std::string& kernel) {
    std::vector<Span> reading;
    seen_functions_.insert(kernel);
    reading.push_back(functions_.at(kernel));
    while (!reading.empty() && !(shared_line_ && barrier_line_)) {
      const std::size_t i = unread_from(std::min(reading.back().begin, toks_.size()));
      if (i >= reading.back().end || i >= toks_.size()) {
        reading.pop_back();
        continue;
      }
      reading.back().begin = i + 1;
      if (read(i, reading)) next_unread_[i] = i + 1;
    }
  }

  // One token of a body: pushes what it makes read next. False when
  // meeting the token again would still do something (a name that is both
  // a macro, read now, and a function called).
  bool read(std::size_t i, std::vector<Span>& reading) {
    const Token& t = toks_[i];
    if (t.kind != TokenKind::Identifier) return true;
    const std::string n = name(i);
    const bool called = i + 1 < toks_.size() && is_punct_char(src_, toks_[i + 1], '(');
    const bool function = called && functions_.count(n) > 0;
    if (n == "__shared__") {
      if (!shared_line_) shared_line_ = t.line;
    } else if (is_barrier(n) && called) {
      if (!barrier_line_) barrier_line_ = t.line;
    } else if (macros_.count(n) && seen_macros_.insert(n).second) {
      reading.push_back(macros_.at(n));
      return !function;
    } else if (function && seen_functions_.insert(n).second) {
      reading.push_back(functions_.at(n));
    }
    return true;
  }

  const std::string& src_;
  std::vector<Token> toks_;
  std::vector<std::size_t> next_unread_;  // toks_.size() + 1 entries: the last one is the end
  std::map<std::string, Span> functions_;
  std::map<std::string, Span> macros_;
  std::set<std::string> seen_functions_, seen_macros_;
  int shared_line_ = 0, barrier_line_ = 0;
};

}  // namespace

StructureReport check_structure_source(const std::string& kernel_cu_text) {
  return SourceScan(kernel_cu_text).run();
}

}  // namespace sg
