// The source rewriter (see rewrite.h). Works on tokens, so comments and
// string literals are never touched, and applies edits that keep every
// newline of the original in place.
#include "backends/cpu/rewrite.h"

#include <algorithm>
#include <set>
#include <utility>

#include "backends/cpu/cuda_tokens.h"
#include "backends/cpu/unsupported.h"

namespace sg {
namespace {

constexpr std::size_t kMaxProblems = 20;

struct Edit {
  std::size_t offset = 0, length = 0;
  std::string text;
};

class Rewriter {
 public:
  Rewriter(const std::string& src, const std::string& name) : src_(src), name_(name), toks_(tokenize_cuda(src)) {}

  RewriteResult run() {
    for (std::size_t i = 0; i < toks_.size(); ++i) visit(i);
    RewriteResult r;
    r.launches = launches_;
    r.problems = std::move(problems_);
    if (r.problems.size() > kMaxProblems) {
      const std::size_t more = r.problems.size() - kMaxProblems;
      r.problems.resize(kMaxProblems);
      r.problems.push_back("(" + std::to_string(more) + " more not shown)");
    }
    if (r.ok()) r.source = emit();
    return r;
  }

 private:
  std::string text(std::size_t i) const { return i < toks_.size() ? token_text(src_, toks_[i]) : std::string(); }
  bool is(std::size_t i, const char* t) const { return i < toks_.size() && text(i) == t; }

  void problem(int line, const std::string& what) {
    const std::string msg = name_ + ":" + std::to_string(line) + ": " + what;
    if (seen_.insert(msg).second) problems_.push_back(msg);
  }
  void unsupported(int line, const std::string& what) {
    problem(line, what + " is not supported on the CPU backend");
  }

  void visit(std::size_t i) {
    const Token& t = toks_[i];
    if (t.kind == TokenKind::Directive) {
      if (text(i) == "include" && unsupported_header(t.header))
        unsupported(t.line, "`#include <" + t.header + ">`");
      return;
    }
    const std::string s = text(i);
    if (t.kind == TokenKind::Identifier) {
      identifier(i, s);
      return;
    }
    if (t.kind != TokenKind::Punct) return;
    if (s == "<<<") {
      launch(i);
      return;
    }
    if (t.in_directive) return;  // macro bodies do not open or close scopes
    if (s == "{") {
      if (pending_device_ && device_depth_ < 0) device_depth_ = depth_;
      pending_device_ = false;
      ++depth_;
    } else if (s == "}") {
      depth_ = std::max(0, depth_ - 1);
      if (depth_ == device_depth_) device_depth_ = -1;
    } else if (s == ";") {
      if (device_depth_ < 0) pending_device_ = false;
    }
  }

  void identifier(std::size_t i, const std::string& s) {
    const Token& t = toks_[i];
    if (s == "__global__" || s == "__device__") {
      if (device_depth_ < 0 && !t.in_directive) pending_device_ = true;
    } else if (s == "__shared__") {
      shared(i);
    } else if (s == "__noinline__") {
      // Not a macro in the layer: glibc spells the GCC attribute the same way.
      edits_.push_back({t.offset, t.length, "__attribute__((noinline))"});
    } else if (unsupported_identifier(s, text(i + 1))) {
      unsupported(t.line, "`" + s + "`");
    }
  }

  // `__shared__` becomes `static thread_local` (blocks run on several worker
  // threads, one block at a time each); an array declared in a kernel
  // (`__shared__ T name[N]...;`) gets bounds-checked storage instead;
  // `extern __shared__ T name[];` becomes a pointer to the block's dynamic
  // shared memory.
  void shared(std::size_t i) {
    const Token& t = toks_[i];
    if (i > 0 && is(i - 1, "extern")) {
      dynamic_shared(i);
      return;
    }
    const bool already_static = (i > 0 && is(i - 1, "static")) || is(i + 1, "static");
    if (!already_static && depth_ > 0 && guarded_shared_array(i)) return;
    edits_.push_back({t.offset, t.length, already_static ? "thread_local" : "static thread_local"});
  }

  // `__shared__ T name[N]...;` in a function: a reference to a per-worker
  // device allocation (cudacpu::detail::SharedArray), whose red zone catches
  // an index past the end. False (nothing edited) for any other form: several
  // declarators, an initializer, alignment attributes, a scalar.
  bool guarded_shared_array(std::size_t i) {
    std::size_t j = i + 1, first_bracket = 0;
    int depth = 0;
    for (; j < toks_.size() && !(depth == 0 && is(j, ";")); ++j) {
      const std::string s = text(j);
      if (s == "{" || s == "}" || s == "=" || s == "(" || s == "__align__" || s == "alignas" ||
          s == "__attribute__" || toks_[j].in_directive || (depth == 0 && s == ","))
        return false;
      if (s == "[") {
        if (depth == 0 && first_bracket == 0) first_bracket = j;
        ++depth;
      } else if (s == "]") {
        --depth;
      } else if (depth == 0 && first_bracket != 0) {
        return false;  // something after the dimensions
      }
    }
    if (j >= toks_.size() || first_bracket < i + 3 || !is(j - 1, "]") ||
        toks_[first_bracket - 1].kind != TokenKind::Identifier)
      return false;
    std::string type;
    for (std::size_t k = i + 1; k + 1 < first_bracket; ++k) type += (type.empty() ? "" : " ") + text(k);
    const std::string name = text(first_bracket - 1);
    const std::size_t dims_begin = toks_[first_bracket].offset;
    const std::string dims = src_.substr(dims_begin, toks_[j - 1].offset + toks_[j - 1].length - dims_begin);
    const std::string storage = name + "_cudacpu_shared_";
    const std::string repl = "static thread_local ::cudacpu::detail::SharedArray<" + type + " " + dims + "> " +
                             storage + "; " + type + " (&" + name + ")" + dims + " = " + storage + ".get(\"" +
                             name + "\");";
    edit_keeping_lines(toks_[i].offset, toks_[j].offset + toks_[j].length - toks_[i].offset, repl);
    return true;
  }

  void dynamic_shared(std::size_t i) {
    const Token& ext = toks_[i - 1];
    const int line = ext.line;
    // Find `IDENT [ ] ;` ending the declaration.
    std::size_t j = i + 1;
    while (j < toks_.size() && !is(j, ";") && !is(j, "{") && !is(j, "}")) ++j;
    if (j >= toks_.size() || !is(j, ";") || j < i + 4 || !is(j - 1, "]") || !is(j - 2, "[") ||
        toks_[j - 3].kind != TokenKind::Identifier) {
      unsupported(line, "this form of `extern __shared__` (use `extern __shared__ T name[];`)");
      return;
    }
    if (depth_ == 0) {
      unsupported(line, "`extern __shared__` at file scope (declare it inside the kernel)");
      return;
    }
    // The element type: the tokens between __shared__ and the name, minus alignment attributes.
    std::string type;
    for (std::size_t k = i + 1; k < j - 3; ++k) {
      if (is(k, "__align__") || is(k, "alignas")) {
        k = skip_parens(k + 1);
        continue;
      }
      if (!type.empty()) type += ' ';
      type += text(k);
    }
    if (type.empty()) {
      unsupported(line, "this form of `extern __shared__` (use `extern __shared__ T name[];`)");
      return;
    }
    const Token& end = toks_[j];
    const std::string name = text(j - 3);
    std::string repl = type + "* " + name + " = reinterpret_cast<" + type +
                       "*>(::cudacpu::detail::dynamic_shared_base());";
    edit_keeping_lines(ext.offset, end.offset + end.length - ext.offset, repl);
  }

  // Index of the `)` matching the `(` at k (or k itself when there is none).
  std::size_t skip_parens(std::size_t k) const {
    if (!is(k, "(")) return k - 1;
    int d = 0;
    for (; k < toks_.size(); ++k) {
      if (is(k, "(")) ++d;
      if (is(k, ")") && --d == 0) return k;
    }
    return toks_.size() - 1;
  }

  // Replaces a range, appending the newlines it held so later lines stay put.
  void edit_keeping_lines(std::size_t offset, std::size_t length, std::string repl) {
    repl += std::string(static_cast<std::size_t>(std::count(src_.begin() + static_cast<std::ptrdiff_t>(offset),
                                                             src_.begin() + static_cast<std::ptrdiff_t>(offset + length),
                                                             '\n')),
                        '\n');
    edits_.push_back({offset, length, std::move(repl)});
  }

  // First token of the callee before `<<<` at index i, or npos.
  std::size_t callee_start(std::size_t i) const {
    if (i == 0) return std::string::npos;
    std::size_t j = i - 1;
    if (is(j, ">") || is(j, ">>")) {  // template arguments: kern<T, 16>
      int d = 0;
      for (;; --j) {
        if (is(j, ">")) d += 1;
        else if (is(j, ">>")) d += 2;
        else if (is(j, "<")) d -= 1;
        else if (is(j, "<<")) d -= 2;
        if (d <= 0 || j == 0) break;
      }
      if (d != 0 || j == 0) return std::string::npos;
      --j;
    } else if (is(j, ")")) {  // (kernel) or (*pointer)
      int d = 0;
      for (;; --j) {
        if (is(j, ")")) ++d;
        else if (is(j, "(")) --d;
        if (d == 0 || j == 0) break;
      }
      return d == 0 ? j : std::string::npos;
    }
    if (toks_[j].kind != TokenKind::Identifier) return std::string::npos;
    while (j >= 2 && is(j - 1, "::") && toks_[j - 2].kind == TokenKind::Identifier) j -= 2;
    if (j >= 1 && is(j - 1, "::")) --j;  // ::kern
    return j;
  }

  void launch(std::size_t i) {
    const Token& open = toks_[i];
    if (device_depth_ >= 0 && !open.in_directive) {
      unsupported(open.line, "a kernel launch inside device code (dynamic parallelism)");
      return;
    }
    const std::size_t start = callee_start(i);
    if (start == std::string::npos) {
      problem(open.line, "cannot read the kernel name before `<<<`");
      return;
    }
    // The configuration runs to the first `>>>` outside brackets.
    int d = 0, args = 1;
    std::size_t j = i + 1;
    for (; j < toks_.size(); ++j) {
      const std::string s = text(j);
      if (d == 0 && s == ">>>") break;
      if (s == "(" || s == "[" || s == "{") ++d;
      else if (s == ")" || s == "]" || s == "}") --d;
      else if (s == "," && d == 0) ++args;
      if (d < 0 || s == ";") break;
    }
    if (j >= toks_.size() || !is(j, ">>>")) {
      problem(open.line, "unterminated kernel launch configuration (no matching `>>>`)");
      return;
    }
    if (j == i + 1 || args < 2) {
      problem(open.line, "a kernel launch needs 2 to 4 configuration arguments inside <<< >>> (grid, block, "
                         "shared memory bytes, stream)");
      return;
    }
    ++launches_;
    edits_.push_back({toks_[start].offset, 0, "::cudacpu::launch("});
    edits_.push_back({open.offset, open.length, ", "});
    edits_.push_back({toks_[j].offset, toks_[j].length, ")"});
  }

  std::string emit() {
    std::stable_sort(edits_.begin(), edits_.end(), [](const Edit& a, const Edit& b) { return a.offset < b.offset; });
    std::string quoted;
    for (char c : name_) {
      if (c == '"' || c == '\\') quoted += '\\';
      quoted += c;
    }
    std::string out = "#include \"cudacpu.h\"\n#line 1 \"" + quoted + "\"\n";
    out.reserve(src_.size() + 256);
    std::size_t pos = 0;
    for (const Edit& e : edits_) {
      if (e.offset < pos) continue;  // overlapping edits cannot happen; be safe
      out.append(src_, pos, e.offset - pos);
      out += e.text;
      pos = e.offset + e.length;
    }
    out.append(src_, pos, std::string::npos);
    return out;
  }

  const std::string& src_;
  const std::string name_;
  const std::vector<Token> toks_;
  std::vector<Edit> edits_;
  std::vector<std::string> problems_;
  std::set<std::string> seen_;
  int launches_ = 0;
  int depth_ = 0;
  bool pending_device_ = false;  // saw __global__/__device__; its body may follow
  int device_depth_ = -1;        // brace depth outside the device function being read, or -1
};

}  // namespace

RewriteResult rewrite_for_cpu(const std::string& source, const std::string& display_name) {
  return Rewriter(source, display_name).run();
}

}  // namespace sg
