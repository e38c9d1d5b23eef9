// check_structure: reads the PTX of the same compile and looks, inside the body
// of mysgemm (and the device functions it calls), for shared memory and a
// block-wide barrier. PTX rather than SASS: it is text, stable across GPUs, and
// nvcc keeps it for every build.
// It finds facts only (where each was seen, StructureReport); the detail
// reports show is said in words/structure_report.cpp (static_checks/ includes no words/).
#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "static_checks/static_checks.h"
#include "static_checks/symbol_policy.h"

namespace sg {
namespace {

using namespace sg::build;  // the build stage's own helpers

// Removes // and /* */ comments, leaving quoted strings (.file paths, pragmas) intact.
std::string strip_comments(const std::string& in) {
  std::string out;
  out.reserve(in.size());
  std::size_t i = 0;
  while (i < in.size()) {
    if (in[i] == '"') {
      const std::size_t end = in.find('"', i + 1);
      const std::size_t stop = end == std::string::npos ? in.size() : end + 1;
      out.append(in, i, stop - i);
      i = stop;
    } else if (in.compare(i, 2, "//") == 0) {
      while (i < in.size() && in[i] != '\n') ++i;
    } else if (in.compare(i, 2, "/*") == 0) {
      const std::size_t end = in.find("*/", i + 2);
      i = end == std::string::npos ? in.size() : end + 2;
      out += ' ';
    } else {
      out += in[i++];
    }
  }
  return out;
}

bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%';
}

std::vector<std::string> identifiers(const std::string& s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    if (ident_char(s[i]) && !std::isdigit(static_cast<unsigned char>(s[i]))) {
      std::size_t j = i;
      while (j < s.size() && ident_char(s[j])) ++j;
      out.push_back(s.substr(i, j - i));
      i = j;
    } else {
      ++i;
    }
  }
  return out;
}

std::string trim(const std::string& s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

// A PTX function: .entry (kernel) or .func (device function), with its body text.
struct PtxFunction {
  bool is_entry = false;
  std::string body;
};

struct PtxModule {
  std::map<std::string, PtxFunction> functions;
  std::set<std::string> shared_vars;  // module-scope .shared variables
};

// The name a declaration statement declares: "... .b8 name[16] = {...}" -> "name".
// Read from the right by index, each byte once.
std::string declared_name(const std::string& stmt) {
  std::size_t end = std::min(stmt.find('='), stmt.size());
  auto trim_end = [&] {
    while (end > 0 && std::isspace(static_cast<unsigned char>(stmt[end - 1]))) --end;
  };
  trim_end();
  while (end > 0 && stmt[end - 1] == ']') {
    const auto open = stmt.rfind('[', end - 1);
    if (open == std::string::npos) break;
    end = open;
    trim_end();
  }
  std::size_t j = end;
  while (j > 0 && ident_char(stmt[j - 1])) --j;
  return stmt.substr(j, end - j);
}

// Whether `word` stands in a text that only grows between resets, followed
// by no identifier character (or by its end), asked again as it grows: each
// byte is searched a bounded number of times, however often it is asked.
class WordInGrowingText {
 public:
  explicit WordInGrowingText(std::string word) : word_(std::move(word)) {}
  void reset() {
    from_ = 0;
    found_ = false;
  }
  bool in(const std::string& text) {
    const std::size_t w = word_.size();
    for (std::size_t at = text.find(word_, from_); !found_ && at != std::string::npos && at + w < text.size();
         at = text.find(word_, at + 1))
      found_ = !ident_char(text[at + w]);
    if (text.size() >= w) from_ = std::max(from_, text.size() - w);  // one at the very end may yet be followed
    return found_ || (text.size() >= w && text.compare(text.size() - w, w, word_) == 0);
  }

 private:
  std::string word_;
  std::size_t from_ = 0;  // where occurrences not yet decided may start
  bool found_ = false;    // one followed by a non-identifier character
};

bool has_word(const std::string& stmt, const std::string& word) {
  std::size_t at = 0;
  while ((at = stmt.find(word, at)) != std::string::npos) {
    const std::size_t end = at + word.size();
    if (end >= stmt.size() || !ident_char(stmt[end])) return true;
    at = end;
  }
  return false;
}

PtxModule parse_module(const std::string& text) {
  PtxModule mod;
  std::string module_stmt;  // text of the current module-scope statement
  // Whether it is a function's header so far, asked at each `{` it holds.
  WordInGrowingText entry_word(".entry"), func_word(".func");
  auto clear_stmt = [&] {
    module_stmt.clear();
    entry_word.reset();
    func_word.reset();
  };
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '"') {  // copy strings whole so braces or ';' in them do not count
      const std::size_t end = text.find('"', i + 1);
      const std::size_t stop = end == std::string::npos ? text.size() : end + 1;
      module_stmt.append(text, i, stop - i);
      i = stop;
      continue;
    }
    if (c == ';') {
      const std::string stmt = trim(module_stmt);
      if (has_word(stmt, ".shared")) {
        const std::string name = declared_name(stmt);
        if (!name.empty()) mod.shared_vars.insert(name);
      }
      clear_stmt();
      ++i;
      continue;
    }
    if (c != '{') {
      module_stmt += c;
      ++i;
      continue;
    }
    // A brace at module scope opens either an initializer or a function body.
    std::size_t depth = 0, j = i;
    for (; j < text.size(); ++j) {
      if (text[j] == '"') {
        const std::size_t end = text.find('"', j + 1);
        if (end == std::string::npos) { j = text.size(); break; }
        j = end;
      } else if (text[j] == '{') {
        ++depth;
      } else if (text[j] == '}' && --depth == 0) {
        break;
      }
    }
    // An initializer's braces stay in the statement, which may hold many of them.
    const bool entry = entry_word.in(module_stmt);
    if (entry || func_word.in(module_stmt)) {
      const std::string header = trim(module_stmt);
      // ".visible .entry NAME(params)" or ".func (.param .b32 r) NAME(params)".
      const std::string kind = entry ? ".entry" : ".func";
      std::string rest = header.substr(header.find(kind) + kind.size());
      rest = trim(rest);
      if (!rest.empty() && rest[0] == '(') {  // return parameter list of a .func
        const auto close = rest.find(')');
        rest = close == std::string::npos ? "" : trim(rest.substr(close + 1));
      }
      std::size_t n = 0;
      while (n < rest.size() && ident_char(rest[n])) ++n;
      const std::string name = rest.substr(0, n);
      if (!name.empty() && j < text.size()) {
        PtxFunction& f = mod.functions[name];
        f.is_entry = entry;
        f.body = text.substr(i + 1, j - i - 1);
      }
      clear_stmt();
    } else {
      module_stmt.append(text, i, std::min(j + 1, text.size()) - i);  // an initializer
    }
    i = j + 1;
  }
  return mod;
}

// One instruction or directive of a body: labels and guard predicates removed.
std::vector<std::string> statements(const std::string& body) {
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    std::string s = trim(cur);
    cur.clear();
    std::size_t a = 0;  // where the statement starts after its labels, each byte read once
    for (;;) {  // leading labels "$L__BB0_2:"
      std::size_t n = a;
      while (n < s.size() && ident_char(s[n])) ++n;
      if (n == a || n >= s.size() || s[n] != ':' || (n + 1 < s.size() && s[n + 1] == ':')) break;
      a = n + 1;
      while (a < s.size() && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
    }
    s.erase(0, a);
    if (!s.empty() && s[0] == '@') {  // guard predicate "@%p1" / "@!%p1"
      std::size_t n = 1;
      while (n < s.size() && !std::isspace(static_cast<unsigned char>(s[n]))) ++n;
      s = trim(s.substr(n));
    }
    if (!s.empty()) out.push_back(s);
  };
  // .loc and .file end at the newline, not at ';': drop those lines first.
  std::istringstream lines(body);
  for (std::string line; std::getline(lines, line);) {
    const std::string t = trim(line);
    if (t.rfind(".loc", 0) == 0 || t.rfind(".file", 0) == 0) continue;
    for (char c : line) {
      if (c == ';' || c == '{' || c == '}') flush();
      else cur += c;
    }
    cur += '\n';
  }
  flush();
  return out;
}

std::vector<std::string> split_dots(const std::string& opcode) {
  std::vector<std::string> parts;
  std::stringstream ss(opcode);
  for (std::string p; std::getline(ss, p, '.');) parts.push_back(p);
  return parts;
}

struct BodyFacts {
  std::optional<PtxEvidence> shared_evidence;   // first instruction or declaration that shows shared memory
  std::optional<PtxEvidence> barrier_evidence;  // first block-wide barrier instruction
  std::vector<std::string> calls;
};

PtxEvidence evidence(PtxEvidence::Kind kind, std::string opcode = "", std::string variable = "") {
  PtxEvidence e;
  e.kind = kind;
  e.opcode = std::move(opcode);
  e.variable = std::move(variable);
  return e;
}

BodyFacts inspect(const std::string& body, const PtxModule& mod) {
  BodyFacts f;
  for (const std::string& st : statements(body)) {
    std::size_t n = 0;
    while (n < st.size() && !std::isspace(static_cast<unsigned char>(st[n]))) ++n;
    const std::string op = st.substr(0, n);
    const std::vector<std::string> parts = split_dots(op);
    if (!f.shared_evidence) {
      if (has_word(st, ".shared") && op.size() > 0 && op[0] == '.') {
        f.shared_evidence = evidence(PtxEvidence::Kind::SharedDeclaration);
      } else if (!parts.empty() && parts[0] != "isspacep") {
        for (std::size_t k = 1; k < parts.size(); ++k)
          if (parts[k].rfind("shared", 0) == 0) f.shared_evidence = evidence(PtxEvidence::Kind::Instruction, op);
      }
      if (!f.shared_evidence && !op.empty() && op[0] != '.') {
        for (const auto& id : identifiers(st.substr(n)))
          if (mod.shared_vars.count(id)) {
            f.shared_evidence = evidence(PtxEvidence::Kind::SharedVariable, op, id);
            break;
          }
      }
    }
    if (!f.barrier_evidence && !parts.empty() && (parts[0] == "bar" || parts[0] == "barrier")) {
      bool sync = false, warp = false;
      for (std::size_t k = 1; k < parts.size(); ++k) {
        sync = sync || parts[k] == "sync" || parts[k] == "red";
        warp = warp || parts[k] == "warp";
      }
      if (sync && !warp) f.barrier_evidence = evidence(PtxEvidence::Kind::Instruction, op);
    }
    if (!parts.empty() && parts[0] == "call") {
      for (const auto& id : identifiers(st.substr(n)))
        if (mod.functions.count(id)) f.calls.push_back(id);
    }
  }
  return f;
}

}  // namespace

StructureReport check_structure(const std::string& ptx_path) {
  StructureReport r;
  r.ptx_path = ptx_path;
  std::ifstream in(ptx_path, std::ios::binary);
  if (!in) {
    r.read_failed = true;
    return r;
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  const PtxModule mod = parse_module(strip_comments(buf.str()));

  const auto kernel = mod.functions.find(kMysgemmSymbol);
  if (kernel == mod.functions.end() || !kernel->second.is_entry) return r;
  r.found_kernel = true;

  // Follow calls: a __noinline__ helper may hold the tile loads or the barrier.
  std::set<std::string> seen{kMysgemmSymbol};
  std::vector<std::string> todo{kMysgemmSymbol};
  while (!todo.empty()) {
    const std::string name = todo.back();
    todo.pop_back();
    BodyFacts facts = inspect(mod.functions.at(name).body, mod);
    const std::string where = name == kMysgemmSymbol ? "" : demangle(name);
    if (!r.uses_shared && facts.shared_evidence) {
      r.uses_shared = true;
      r.shared_at = std::move(*facts.shared_evidence);
      r.shared_at.function = where;
    }
    if (!r.uses_barrier && facts.barrier_evidence) {
      r.uses_barrier = true;
      r.barrier_at = std::move(*facts.barrier_evidence);
      r.barrier_at.function = where;
    }
    for (const auto& callee : facts.calls)
      if (seen.insert(callee).second) todo.push_back(callee);
  }
  return r;
}

}  // namespace sg
