// Source-level structure check (see source_structure.h), on the rewriter's
// tokenizer so comments, literals and line numbers are handled the same way.
#include "backends/cpu/source_structure.h"

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

bool is_punct(const std::string& src, const Token& t, const char* p) {
  return t.kind == TokenKind::Punct && token_text(src, t) == p;
}

// Index of the token closing the bracket opened at `open`, or tokens.size().
std::size_t matching(const std::string& src, const std::vector<Token>& toks, std::size_t open, const char* o,
                     const char* c) {
  int depth = 0;
  for (std::size_t i = open; i < toks.size(); ++i) {
    if (toks[i].in_directive) continue;
    if (is_punct(src, toks[i], o)) ++depth;
    if (is_punct(src, toks[i], c) && --depth == 0) return i;
  }
  return toks.size();
}

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
  explicit SourceScan(const std::string& src) : src_(src), toks_(tokenize_cuda(src)) {
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
    visit_function("mysgemm");
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
  // Every function definition at any nesting: NAME ( ... ) [qualifiers] { ... }.
  void index_functions() {
    for (std::size_t i = 0; i + 1 < toks_.size(); ++i) {
      const Token& t = toks_[i];
      if (t.in_directive || t.kind != TokenKind::Identifier || !is_punct(src_, toks_[i + 1], "(")) continue;
      const std::size_t close = matching(src_, toks_, i + 1, "(", ")");
      std::size_t j = close + 1;
      // Skip what may stand between the parameters and the body (const, noexcept, -> T, ...).
      while (j < toks_.size() && !toks_[j].in_directive && toks_[j].kind == TokenKind::Identifier) ++j;
      if (j >= toks_.size() || !is_punct(src_, toks_[j], "{")) continue;
      const std::size_t end = matching(src_, toks_, j, "{", "}");
      const std::string name = token_text(src_, t);
      if (!is_statement_keyword(name) && !functions_.count(name)) functions_[name] = {j + 1, end};
    }
  }

  // Object- and function-like macros: the tokens of each #define's body.
  void index_macros() {
    for (std::size_t i = 0; i + 1 < toks_.size(); ++i) {
      if (toks_[i].kind != TokenKind::Directive || token_text(src_, toks_[i]) != "define") continue;
      const Token& name = toks_[i + 1];
      if (!name.in_directive || name.kind != TokenKind::Identifier) continue;
      std::size_t end = i + 2;
      while (end < toks_.size() && toks_[end].in_directive && toks_[end].kind != TokenKind::Directive) ++end;
      macros_[token_text(src_, name)] = {i + 2, end};
    }
  }

  void visit_function(const std::string& name) {
    if (!seen_functions_.insert(name).second) return;
    scan(functions_.at(name));
  }

  void scan(Span span) {
    for (std::size_t i = span.begin; i < span.end && i < toks_.size(); ++i) {
      const Token& t = toks_[i];
      if (t.kind != TokenKind::Identifier) continue;
      const std::string name = token_text(src_, t);
      const bool called = i + 1 < toks_.size() && is_punct(src_, toks_[i + 1], "(");
      if (name == "__shared__") {
        if (!shared_line_) shared_line_ = t.line;
      } else if (is_barrier(name) && called) {
        if (!barrier_line_) barrier_line_ = t.line;
      } else if (macros_.count(name) && seen_macros_.insert(name).second) {
        scan(macros_.at(name));
      } else if (called && functions_.count(name)) {
        visit_function(name);
      }
    }
  }

  const std::string& src_;
  std::vector<Token> toks_;
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
