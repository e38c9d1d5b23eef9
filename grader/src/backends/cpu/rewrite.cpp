// The source rewriter (see rewrite.h). Works on tokens, so comments and
// string literals are never touched, and applies edits that keep every
// newline of the original in place. Linear in the file: no scan starts
// again from each token (launches are read for all `<<<`s at once, a
// declaration's tokens are read for it alone), since a student's file of
// 1 MiB must not cost the judge minutes.
#include "backends/cpu/rewrite.h"

#include <algorithm>
#include <set>
#include <unordered_map>
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
  Rewriter(const std::string& src, const std::string& name)
      : src_(src), name_(name), toks_(tokenize_cuda(src)),
        parens_(match_brackets(src_, toks_, '(', ')', false)) {
    read_launches();
  }

  RewriteResult run() {
    for (std::size_t i = 0; i < toks_.size(); ++i) visit(i);
    RewriteResult r;
    r.launches = launches_;
    r.problems.shown = std::move(problems_);
    if (r.problems.shown.size() > kMaxProblems) {
      r.problems.more = r.problems.shown.size() - kMaxProblems;
      r.problems.shown.resize(kMaxProblems);
    }
    if (r.ok()) r.source = emit();
    return r;
  }

 private:
  // A token's text; an identifier's as the preprocessor spells it, line splices removed.
  std::string text(std::size_t i) const {
    if (i >= toks_.size()) return std::string();
    return toks_[i].kind == TokenKind::Identifier ? token_spelling(src_, toks_[i]) : token_text(src_, toks_[i]);
  }
  bool is(std::size_t i, const char* t) const {
    if (i >= toks_.size()) return false;
    const Token& k = toks_[i];
    const std::size_t n = std::char_traits<char>::length(t);
    if (k.length == n) return src_.compare(k.offset, n, t) == 0;
    return k.length > n && k.kind == TokenKind::Identifier && text(i) == t;  // only a splice makes it longer
  }

  void problem(int line, SourceProblemKind kind, std::string what = {}) {
    SourceProblem p{line, kind, std::move(what)};
    if (seen_.insert(p).second) problems_.push_back(std::move(p));
  }

  void visit(std::size_t i) {
    const Token& t = toks_[i];
    if (t.kind == TokenKind::Directive) {
      if (text(i) == "include" && unsupported_header(t.header))
        problem(t.line, SourceProblemKind::Header, t.header);
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
      if (s == "__device__" && depth_ == 0 && !t.in_directive && device_variable(i)) return;
      if (device_depth_ < 0 && !t.in_directive) pending_device_ = true;
    } else if (s == "__shared__") {
      shared(i);
    } else if (s == "__noinline__") {
      // Not a macro in the layer: glibc spells the GCC attribute the same way.
      edits_.push_back({t.offset, t.length, "__attribute__((noinline))"});
    } else if (unsupported_identifier(s, text(i + 1))) {
      problem(t.line, SourceProblemKind::Identifier, s);
    }
  }

  // `__shared__ T a[N]..., b...;` in a function: each name becomes a
  // reference to its copy for the running block (cudacpu::detail::SharedArray:
  // one per resident block, guarded so that an index past the end is
  // named); `extern __shared__ T name[];` becomes a pointer to the block's
  // dynamic shared memory. Other forms are named as not supported: a
  // `static thread_local` copy would be one for all resident blocks.
  void shared(std::size_t i) {
    const Token& t = toks_[i];
    if (i > 0 && is(i - 1, "extern")) {
      dynamic_shared(i);
      return;
    }
    if (t.in_directive) return;  // a macro's body: the layer's own __shared__ names it when used
    if (depth_ == 0) {
      problem(t.line, SourceProblemKind::SharedAtFileScope);
      return;
    }
    if (!per_block_shared(i))
      problem(t.line, SourceProblemKind::SharedDeclarationForm);
  }

  // `[static] __device__ T name[N]...;` at file scope (one name, no
  // initializer): a variable in global memory, which the rewriter gives
  // device memory of the layer's (cudacpu::detail::DeviceVariable), so that
  // kernels' accesses to it are seen as global ones and host code cannot
  // touch it, as on a GPU. False (nothing edited) for any other form: a
  // function, an initializer, extern, several names, __constant__.
  // A `__device__` inside the tokens of a declaration already read is part
  // of that one (as in `__device__ __device__ int x;`), so no token is read twice.
  bool device_variable(std::size_t i) {
    if (i < declaration_read_to_) return false;
    const std::size_t begin = i > 0 && is(i - 1, "static") ? i - 1 : i;
    if (i > 0 && (is(i - 1, "extern") || is(i - 1, ">"))) return false;
    std::size_t j = i + 1, first_bracket = 0;
    int depth = 0;
    bool ended = false;  // reached its `;`
    for (; j < toks_.size(); ++j) {
      const std::string s = text(j);
      if (depth == 0 && s == ";") {
        ended = true;
        break;
      }
      if (toks_[j].in_directive || s == "(" || s == "{" || s == "=" || s == "," || s == "<" || s == "__constant__" ||
          s == "__managed__" || s == "__shared__" || s == "extern" || s == "__attribute__" || s == "&" || s == "*")
        break;
      if (s == "[") {
        if (depth == 0 && first_bracket == 0) first_bracket = j;
        ++depth;
      } else if (s == "]") {
        --depth;
      } else if (depth == 0 && first_bracket != 0) {
        break;  // something after the dimensions
      }
    }
    declaration_read_to_ = j;
    if (!ended) return false;
    const std::size_t name_at = first_bracket != 0 ? first_bracket - 1 : j - 1;
    if (name_at <= i || toks_[name_at].kind != TokenKind::Identifier) return false;
    std::string type;
    for (std::size_t k = i + 1; k < name_at; ++k) {
      if (is(k, "static")) continue;
      type += (type.empty() ? "" : " ") + text(k);
    }
    if (type.empty()) return false;
    const std::string dims =
        first_bracket == 0 ? "" : src_.substr(toks_[first_bracket].offset, toks_[j].offset - toks_[first_bracket].offset);
    const std::string name = text(name_at);
    const std::string storage = name + "_cudacpu_device_";
    const std::string linkage = begin != i ? "static " : "";
    const std::string repl = "static ::cudacpu::detail::DeviceVariable<" + type + (dims.empty() ? "" : " " + dims) +
                             "> " + storage +
                             "(\"" + name + "\"); " + linkage + type + " (&" + name + ")" + dims + " = " + storage +
                             ".get();";
    edit_keeping_lines(toks_[begin].offset, toks_[j].offset + toks_[j].length - toks_[begin].offset, repl);
    return true;
  }

  // The declaration from `__shared__` (or a `static` before it) to its `;`.
  // False (nothing edited) for a form it does not take apart.
  bool per_block_shared(std::size_t i) {
    const std::size_t begin = i > 0 && is(i - 1, "static") ? i - 1 : i;
    std::vector<std::vector<std::size_t>> decls(1);  // token indices of each declarator, type in the first
    std::string align;
    int depth = 0;
    std::size_t j = i + 1;
    for (; j < toks_.size(); ++j) {
      const std::string s = text(j);
      if (depth == 0 && s == ";") break;
      // A second `__shared__` makes a form not taken apart (and no token is read twice).
      if (toks_[j].in_directive || s == "{" || s == "}" || s == "=" || s == "__attribute__" || s == "&" ||
          s == "&&" || s == "__shared__")
        return false;
      if (depth == 0 && (s == "__align__" || s == "alignas")) {
        const std::size_t close = skip_parens(j + 1);
        if (close <= j + 1 || shared_among(j + 2, close)) return false;
        align = src_.substr(toks_[j + 2].offset, toks_[close].offset - toks_[j + 2].offset);
        j = close;
        continue;
      }
      if (s == "static") continue;
      if (s == "(") return false;  // function declarators, parenthesised names
      if (s == "[" || s == "<") ++depth;
      if (s == "]" || s == ">") --depth;
      if (s == ">>") depth -= 2;
      if (depth < 0) return false;
      if (depth == 0 && s == ",") {
        decls.emplace_back();
        continue;
      }
      decls.back().push_back(j);
    }
    if (j >= toks_.size()) return false;
    // Each declarator: [*...] name [dims]; the first also carries the type before it.
    std::string base_type;
    std::string repl;
    for (std::size_t d = 0; d < decls.size(); ++d) {
      const std::vector<std::size_t>& ts = decls[d];
      std::size_t name_at = ts.size();
      for (std::size_t k = 0; k < ts.size(); ++k)
        if (is(ts[k], "[")) {
          name_at = k;
          break;
        }
      if (name_at == 0 || name_at > ts.size()) return false;
      --name_at;  // the identifier before the first `[`, or the last token
      if (toks_[ts[name_at]].kind != TokenKind::Identifier) return false;
      std::string type;
      for (std::size_t k = 0; k < name_at; ++k) type += (type.empty() ? "" : " ") + text(ts[k]);
      if (d == 0) {
        base_type = type;
        while (!base_type.empty() && base_type.back() == '*') base_type.pop_back();  // `float *p, q`
        while (!base_type.empty() && base_type.back() == ' ') base_type.pop_back();
        if (base_type.empty()) return false;
      } else {
        for (const char c : type)
          if (c != '*' && c != ' ') return false;  // only pointers may follow the type of the first
        type = base_type + " " + type;
      }
      std::string dims;
      for (std::size_t k = name_at + 1; k < ts.size(); ++k) dims += text(ts[k]);
      if (!dims.empty() && dims.front() != '[') return false;
      const std::string name = text(ts[name_at]);
      const std::string storage = name + "_cudacpu_shared_";
      repl += std::string(repl.empty() ? "" : " ") + "static thread_local ::cudacpu::detail::SharedArray<" + type +
              (dims.empty() ? "" : " " + dims) + (align.empty() ? "" : ", " + align) + "> " + storage + "; " + type +
              " (&" + name + ")" + dims + " = " + storage + ".get(\"" + name + "\");";
    }
    edit_keeping_lines(toks_[begin].offset, toks_[j].offset + toks_[j].length - toks_[begin].offset, repl);
    return true;
  }

  void dynamic_shared(std::size_t i) {
    const Token& ext = toks_[i - 1];
    const int line = ext.line;
    // Find `IDENT [ ] ;` ending the declaration (before any other `__shared__`, so no token is read twice).
    std::size_t j = i + 1;
    while (j < toks_.size() && !is(j, ";") && !is(j, "{") && !is(j, "}") && !is(j, "__shared__")) ++j;
    if (j >= toks_.size() || !is(j, ";") || j < i + 4 || !is(j - 1, "]") || !is(j - 2, "[") ||
        toks_[j - 3].kind != TokenKind::Identifier) {
      problem(line, SourceProblemKind::ExternSharedForm);
      return;
    }
    if (depth_ == 0) {
      problem(line, SourceProblemKind::ExternSharedAtFileScope);
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
      problem(line, SourceProblemKind::ExternSharedForm);
      return;
    }
    const Token& end = toks_[j];
    const std::string name = text(j - 3);
    std::string repl = type + "* " + name + " = reinterpret_cast<" + type +
                       "*>(::cudacpu::detail::dynamic_shared_base());";
    edit_keeping_lines(ext.offset, end.offset + end.length - ext.offset, repl);
  }

  // Index of the `)` matching the `(` at k (the last token when none does),
  // or k - 1 when there is no `(` at k.
  std::size_t skip_parens(std::size_t k) const {
    if (!is(k, "(")) return k - 1;
    return parens_[k] < toks_.size() ? parens_[k] : toks_.size() - 1;
  }

  // True when a `__shared__` stands among the tokens [from, to).
  bool shared_among(std::size_t from, std::size_t to) const {
    for (std::size_t k = from; k < to && k < toks_.size(); ++k)
      if (is(k, "__shared__")) return true;
    return false;
  }

  // Replaces a range, appending the newlines it held so later lines stay put.
  void edit_keeping_lines(std::size_t offset, std::size_t length, std::string repl) {
    repl += std::string(static_cast<std::size_t>(std::count(src_.begin() + static_cast<std::ptrdiff_t>(offset),
                                                             src_.begin() + static_cast<std::ptrdiff_t>(offset + length),
                                                             '\n')),
                        '\n');
    edits_.push_back({offset, length, std::move(repl)});
  }

  // What a launch's rewrite needs, read for every `<<<` at once (read_launches).
  struct LaunchSyntax {
    std::size_t callee = std::string::npos;      // first token of the kernel's name
    std::size_t config_end = std::string::npos;  // the `>>>` that ends the configuration
    bool two_or_more = false;                    // a `,` outside brackets in the configuration
  };

  // Weights of the backward scans from a `<<<` over template arguments
  // (`>` and `>>` open, `<` and `<<` close) and over parentheses.
  int template_weight(std::size_t k) const {
    return is(k, ">") ? 1 : is(k, ">>") ? 2 : is(k, "<") ? -1 : is(k, "<<") ? -2 : 0;
  }
  int paren_weight(std::size_t k) const { return is(k, ")") ? 1 : is(k, "(") ? -1 : 0; }
  int bracket_weight(std::size_t k) const {
    return is(k, "(") || is(k, "[") || is(k, "{") ? 1 : is(k, ")") || is(k, "]") || is(k, "}") ? -1 : 0;
  }

  // The rules of a launch, for every `<<<` in two passes instead of a scan
  // from each (which is quadratic in a file of `<<<`s):
  //  - the callee: `NAME<...>` when `>` or `>>` stands before `<<<`, back to
  //    where the template arguments balance; `(...)` when `)` does; else
  //    `[::]NAME[::NAME...]`. A backward scan from the `<<<` at i stops at
  //    the nearest k < i where the weights of tokens k..i-1 sum to <= 0, i.e.
  //    whose prefix sum is >= the one at i: a stack of prefix sums, kept
  //    decreasing, answers that for each i in turn.
  //  - the configuration: up to the first `>>>` at the same bracket depth,
  //    failing at a `;` or where the depth drops below it first: the next
  //    such token at each depth, read from the end.
  void read_launches() {
    const std::size_t n = toks_.size();
    struct Prefix {
      long sum;
      std::size_t at;
    };
    std::vector<Prefix> templates, parens;  // the stacks
    auto nearest_not_below = [](std::vector<Prefix>& stack, long sum, std::size_t at) {
      while (!stack.empty() && stack.back().sum < sum) stack.pop_back();
      const Prefix found = stack.empty() ? Prefix{sum, std::string::npos} : stack.back();
      stack.push_back({sum, at});
      return found;
    };
    long template_sum = 0, paren_sum = 0;
    std::vector<int> depth(n + 1, 0);  // bracket depth before each token
    for (std::size_t i = 0; i < n; ++i) {
      const Prefix in_template = nearest_not_below(templates, template_sum, i);
      const Prefix in_parens = nearest_not_below(parens, paren_sum, i);
      if (is(i, "<<<")) {
        LaunchSyntax& l = launch_syntax_[i];
        if (i > 0 && (is(i - 1, ">") || is(i - 1, ">>"))) {
          // The template arguments must balance exactly, with a name before them.
          if (in_template.at != std::string::npos && in_template.at > 0 && in_template.sum == template_sum)
            l.callee = qualified_name_ending(in_template.at - 1);
        } else if (i > 0 && is(i - 1, ")")) {
          l.callee = in_parens.at;  // (kernel) or (*pointer): parentheses balance where the scan stops
        } else if (i > 0) {
          l.callee = qualified_name_ending(i - 1);
        }
      }
      template_sum += template_weight(i);
      paren_sum += paren_weight(i);
      depth[i + 1] = depth[i] + bracket_weight(i);
    }
    if (launch_syntax_.empty()) return;
    const auto [low, high] = std::minmax_element(depth.begin(), depth.end());
    std::vector<std::size_t> next_end(static_cast<std::size_t>(*high - *low) + 1, n);  // `>>>` per depth
    std::vector<std::size_t> next_drop(next_end.size(), n);   // closing bracket per depth
    std::vector<std::size_t> next_comma(next_end.size(), n);  // `,` per depth
    std::size_t next_semicolon = n;
    for (std::size_t k = n; k-- > 0;) {
      const std::size_t d = static_cast<std::size_t>(depth[k] - *low);
      if (is(k, ">>>")) next_end[d] = k;
      if (bracket_weight(k) < 0) next_drop[d] = k;
      if (is(k, ",")) next_comma[d] = k;
      if (is(k, ";")) next_semicolon = k;
      if (k == 0 || !is(k - 1, "<<<")) continue;
      LaunchSyntax& l = launch_syntax_[k - 1];
      const std::size_t stop = std::min({next_end[d], next_drop[d], next_semicolon});
      if (stop < n && stop == next_end[d]) l.config_end = stop;
      l.two_or_more = next_comma[d] < stop;
    }
  }

  // The first token of `[::]NAME[::NAME...]` ending at `j`, or npos when no name ends there.
  std::size_t qualified_name_ending(std::size_t j) const {
    if (toks_[j].kind != TokenKind::Identifier) return std::string::npos;
    while (j >= 2 && is(j - 1, "::") && toks_[j - 2].kind == TokenKind::Identifier) j -= 2;
    if (j >= 1 && is(j - 1, "::")) --j;  // ::kern
    return j;
  }

  void launch(std::size_t i) {
    const Token& open = toks_[i];
    if (device_depth_ >= 0 && !open.in_directive) {
      problem(open.line, SourceProblemKind::DeviceSideLaunch);
      return;
    }
    const LaunchSyntax& l = launch_syntax_.at(i);
    if (l.callee == std::string::npos) {
      problem(open.line, SourceProblemKind::KernelNameUnreadable);
      return;
    }
    if (l.config_end == std::string::npos) {
      problem(open.line, SourceProblemKind::UnterminatedLaunch);
      return;
    }
    if (l.config_end == i + 1 || !l.two_or_more) {
      problem(open.line, SourceProblemKind::LaunchArgumentCount);
      return;
    }
    ++launches_;
    edits_.push_back({toks_[l.callee].offset, 0, "::cudacpu::launch("});
    edits_.push_back({open.offset, open.length, ", "});
    edits_.push_back({toks_[l.config_end].offset, toks_[l.config_end].length, ")"});
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
  std::vector<SourceProblem> problems_;
  std::set<SourceProblem> seen_;
  const std::vector<std::size_t> parens_;  // the `)` matching each `(` (match_brackets)
  std::unordered_map<std::size_t, LaunchSyntax> launch_syntax_;  // by the index of its `<<<`
  std::size_t declaration_read_to_ = 0;  // where the last file-scope `__device__` declaration's reading stopped
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
