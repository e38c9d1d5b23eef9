#include "static_checks/device_stubs.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "static_checks/symbol_policy.h"
#include "process/tool_process.h"

namespace sg::build {
namespace {

namespace fs = std::filesystem;

constexpr double kObjdumpTimeout = 60;
constexpr std::size_t kObjdumpCap = 32u << 20;

bool is_hex(const std::string& t) {
  if (t.empty()) return false;
  for (char c : t)
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The sections that hold one function's code and data: ".text.F",
// ".text.unlikely.F", ".gcc_except_table.F", ...
bool section_of(const std::string& section, const std::string& function) {
  const std::string tail = "." + function;
  return section.size() > tail.size() && section.compare(section.size() - tail.size(), tail.size(), tail) == 0;
}

// For each `)` of a text, the `(` that matches it (parentheses counted
// everywhere, strings too), found by binary search among the pairs one pass
// with a stack lists: a backward scan from each `)` would be quadratic.
class ParenPairs {
 public:
  explicit ParenPairs(const std::string& text) {
    std::vector<std::size_t> open;
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '(') open.push_back(i);
      if (text[i] == ')' && !open.empty()) {
        pairs_.push_back({i, open.back()});
        open.pop_back();
      }
    }
  }
  // The `(` matching the `)` at `close`, or npos when none does.
  std::size_t open_of(std::size_t close) const {
    const auto it = std::lower_bound(pairs_.begin(), pairs_.end(), std::make_pair(close, std::size_t{0}));
    return it != pairs_.end() && it->first == close ? it->second : std::string::npos;
  }

 private:
  std::vector<std::pair<std::size_t, std::size_t>> pairs_;  // (close, open), by close
};

// Whether a section belongs to one of a set of functions (section_of one of
// them), in one walk over the section's name from its end, through a trie of
// the functions' tails (".F") read backwards: trying each function would
// read the name once per function.
class SectionTails {
 public:
  explicit SectionTails(const std::set<std::string>& functions) : nodes_(1) {
    for (const auto& f : functions) {
      const std::string tail = "." + f;
      std::size_t node = 0;
      for (auto c = tail.rbegin(); c != tail.rend(); ++c) {
        const auto [it, added] = nodes_[node].next.emplace(*c, nodes_.size());
        const std::size_t child = it->second;  // read before nodes_ grows
        if (added) nodes_.emplace_back();
        node = child;
      }
      nodes_[node].ends_tail = true;
    }
  }
  bool of_one(const std::string& section) const {
    std::size_t node = 0;
    for (std::size_t k = 0; k < section.size(); ++k) {
      const auto it = nodes_[node].next.find(section[section.size() - 1 - k]);
      if (it == nodes_[node].next.end()) return false;
      node = it->second;
      if (nodes_[node].ends_tail && k + 1 < section.size()) return true;  // a tail, shorter than the name
    }
    return false;
  }

 private:
  struct Node {
    std::map<char, std::size_t> next;
    bool ends_tail = false;
  };
  std::vector<Node> nodes_;
};

// The name of the function whose parameter list ends just before `brace`
// ("float twice(float x) {" -> "twice"); "" when the text does not look so.
std::string function_before(const std::string& text, std::size_t brace, const ParenPairs& parens) {
  std::size_t i = brace;
  auto skip_space = [&] {
    while (i > 0 && std::isspace(static_cast<unsigned char>(text[i - 1]))) --i;
  };
  skip_space();
  // trailing qualifiers of a member function
  for (bool again = true; again;) {
    again = false;
    for (const std::string q : {"const", "volatile", "noexcept", "override", "final"}) {
      if (i >= q.size() && text.compare(i - q.size(), q.size(), q) == 0 &&
          (i == q.size() || !ident_char(text[i - q.size() - 1]))) {
        i -= q.size();
        skip_space();
        again = true;
      }
    }
  }
  if (i == 0 || text[i - 1] != ')') return "";
  i = parens.open_of(i - 1);
  if (i == std::string::npos) return "";
  skip_space();
  std::size_t end = i;
  while (i > 0 && ident_char(text[i - 1])) --i;
  return text.substr(i, end - i);
}

}  // namespace

Relocations parse_objdump_relocations(const std::string& text) {
  Relocations out;
  std::istringstream in(text);
  std::string line, section;
  const std::string header = "RELOCATION RECORDS FOR [";
  while (std::getline(in, line)) {
    if (line.rfind(header, 0) == 0) {
      const auto close = line.rfind(']');
      section = close == std::string::npos ? "" : line.substr(header.size(), close - header.size());
      if (!section.empty()) out[section];
      continue;
    }
    if (section.empty()) continue;
    std::istringstream ls(line);
    std::string offset, type, value;
    if (!(ls >> offset >> type >> value) || !is_hex(offset)) continue;
    // "exit-0x0000000000000004", ".bss+0x14": drop the addend.
    for (const char* sign : {"+0x", "-0x"}) {
      const auto at = value.rfind(sign);
      if (at != std::string::npos && at > 0) value = value.substr(0, at);
    }
    out[section].insert(value);
  }
  return out;
}

bool read_relocations(const std::string& objdump, const std::string& object, Relocations& out,
                      std::string& error) {
  const ToolResult run = run_build_tool({objdump, "-r", "--", object}, kObjdumpTimeout, kObjdumpCap);
  if (!run.succeeded() || run.truncated) {
    error = !run.started ? run.error : "objdump -r failed on `" + object + "`";
    return false;
  }
  out = parse_objdump_relocations(run.output);
  return true;
}

std::set<std::string> stub_names_in_generated_code(const std::string& text) {
  std::set<std::string> names;
  const ParenPairs parens(text);
  const std::string marker = "{int volatile ___ = 1;";
  std::size_t at = 0;
  while ((at = text.find(marker, at)) != std::string::npos) {
    const std::size_t close = text.find('}', at);
    if (close == std::string::npos) break;
    // The body must be nothing but (void) casts of the parameters and the exit.
    // cudafe puts `# line` directives inside the body when the helper's
    // declaration spans several source lines: they are not statements.
    std::string body;
    {
      std::istringstream lines(text.substr(at + marker.size(), close - at - marker.size()));
      for (std::string line; std::getline(lines, line);) {
        std::size_t a = line.find_first_not_of(" \t");
        if (a == std::string::npos || line[a] != '#') body += line + "\n";
      }
    }
    const std::size_t exit_at = body.find("::exit(___);");
    bool only_voids = exit_at != std::string::npos;
    std::istringstream statements(body.substr(0, only_voids ? exit_at : 0));
    for (std::string st; only_voids && std::getline(statements, st, ';');) {
      std::size_t a = 0;
      while (a < st.size() && std::isspace(static_cast<unsigned char>(st[a]))) ++a;
      only_voids = a == st.size() || st.compare(a, 6, "(void)") == 0;
    }
    if (only_voids) {
      const std::string name = function_before(text, at, parens);
      if (!name.empty()) names.insert(name);
    }
    at = close;
  }
  return names;
}

std::set<std::string> stub_names_beside(const std::string& object) {
  std::set<std::string> names;
  std::error_code ec;
  const fs::path keep = fs::path(object).parent_path() / "keep";
  for (const auto& e : fs::directory_iterator(keep, ec)) {
    const std::string file = e.path().filename().string();
    const std::string suffix = ".cudafe1.cpp";
    if (file.size() <= suffix.size() || file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    for (auto& n : stub_names_in_generated_code(text.str())) names.insert(n);
  }
  return names;
}

bool referenced_only_from(const std::string& symbol, const std::set<std::string>& functions,
                          const Relocations& relocations) {
  const std::string own_section = ".text." + symbol;
  const SectionTails listed(functions);
  for (const auto& [section, targets] : relocations) {
    if (!targets.count(symbol) && !targets.count(own_section)) continue;
    if (section == ".eh_frame") continue;  // unwind tables describe every function
    if (!listed.of_one(section)) return false;
  }
  return true;
}

std::set<std::string> recognised_device_stubs(const std::set<std::string>& defined,
                                              const std::set<std::string>& stub_names,
                                              const Relocations& relocations) {
  std::set<std::string> candidates;
  for (const auto& f : defined) {
    if (!stub_names.count(plain_function_name(f))) continue;
    const auto it = relocations.find(".text." + f);
    if (it == relocations.end() || it->second != std::set<std::string>{"exit"}) continue;
    candidates.insert(f);
  }
  if (candidates.empty()) return {};
  // Which sections refer to each target, listed once, so that each candidate
  // reads only its own referrers (referenced_only_from(f, {f}) for each would
  // read every section for each candidate).
  std::map<std::string, std::vector<const std::string*>> referrers;
  for (const auto& [section, targets] : relocations)
    for (const auto& t : targets) referrers[t].push_back(&section);
  std::set<std::string> stubs;
  for (const auto& f : candidates) {
    bool own_only = true;
    for (const std::string& target : {f, ".text." + f}) {
      const auto refs = referrers.find(target);
      if (refs == referrers.end()) continue;
      for (const std::string* section : refs->second)
        own_only = own_only && (*section == ".eh_frame" || section_of(*section, f));
    }
    if (own_only) stubs.insert(f);
  }
  return stubs;
}

}  // namespace sg::build
