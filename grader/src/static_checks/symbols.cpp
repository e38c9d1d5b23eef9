// check_symbols: reads the object's symbol table with nm and applies the
// symbol policy (static_checks/symbol_policy.h). nvcc's host stand-ins for __device__
// functions are recognised with the help of what compile_submission keeps
// beside the object (static_checks/device_stubs.h).
#include <filesystem>
#include <optional>
#include <set>
#include <string>

#include "static_checks/device_stubs.h"
#include "static_checks/static_checks.h"
#include "static_checks/symbol_policy.h"
#include "io/clean_text.h"
#include "process/tool_process.h"

namespace sg {
namespace {

using namespace sg::build;  // the build stage's own helpers

constexpr double kNmTimeout = 60;
// Far more than any honest submission produces; a larger table is a problem in itself.
constexpr std::size_t kNmCap = 16u << 20;

// objdump from the same binutils as nm (same folder when nm is given as a path).
std::string objdump_beside(const std::string& nm) {
  if (nm.find('/') == std::string::npos) return "objdump";
  const std::filesystem::path sibling = std::filesystem::path(nm).parent_path() / "objdump";
  return find_program(sibling.string()).empty() ? "objdump" : sibling.string();
}

bool any_section_references(const Relocations& relocations, const std::string& symbol) {
  for (const auto& [section, targets] : relocations)
    if (targets.count(symbol)) return true;
  return false;
}

// Facts, not sentences: words/symbol_report.cpp says each problem.
void add(SymbolReport& r, SymbolProblem problem) {
  r.ok = false;
  r.problems.push_back(std::move(problem));
}

SymbolProblem about_table(SymbolProblem::Kind kind, const std::string& object, std::string why = "") {
  SymbolProblem p;
  p.kind = kind;
  p.object = object;
  p.why = std::move(why);
  return p;
}

SymbolReport check_object(const std::string& nm_tool, const std::string& object, bool cpu_layer) {
  SymbolReport report;
  const ToolResult nm = run_build_tool({nm_tool.empty() ? "nm" : nm_tool, "-P", "-g", "--", object}, kNmTimeout, kNmCap);
  if (!nm.succeeded()) {
    std::string why = !nm.started  ? nm.error
                      : nm.timed_out ? "nm timed out"
                      : nm.exited    ? "nm exited with code " + std::to_string(nm.code)
                                     : "nm was killed by signal " + std::to_string(nm.signal);
    const std::string said = clean_text(nm.output.substr(0, 400));  // the cut may split a character
    if (!said.empty()) why += ": " + said;
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    add(report, about_table(SymbolProblem::Kind::TableUnreadable, object, why));
    return report;
  }
  if (nm.truncated) {
    SymbolProblem p = about_table(SymbolProblem::Kind::TableTooLarge, object);
    p.cap_mib = kNmCap >> 20;
    add(report, std::move(p));
    return report;
  }

  const auto symbols = parse_nm_posix(nm.output);
  std::set<std::string> defined;
  for (const auto& s : symbols)
    if (!s.undefined()) defined.insert(unversioned(s.name));

  // nvcc's host stand-ins for __device__ functions (see device_stubs.h), only
  // worked out when something would otherwise be reported.
  bool exit_referenced = false;
  bool something_to_excuse = false;
  for (const auto& s : symbols) {
    const std::string name = unversioned(s.name);
    if (s.undefined()) exit_referenced = exit_referenced || name == "exit";
    else if (name != kMysgemmSymbol && name != kBasicSgemmSymbol && classify_definition(name, s.type))
      something_to_excuse = true;
  }
  std::set<std::string> stubs;
  bool exit_only_in_stubs = false;
  if (!cpu_layer && (exit_referenced || something_to_excuse)) {
    const std::set<std::string> stub_names = stub_names_beside(object);
    Relocations relocations;
    std::string error;
    if (!stub_names.empty() && read_relocations(objdump_beside(nm_tool), object, relocations, error)) {
      stubs = recognised_device_stubs(defined, stub_names, relocations);
      exit_only_in_stubs = any_section_references(relocations, "exit") &&
                           referenced_only_from("exit", stubs, relocations);
    }
  }

  std::set<std::string> reported;    // a symbol listed twice is reported once
  std::set<std::string> misdefined;  // "mysgemm"/"basicSgemm" defined with a wrong signature
  for (const auto& s : symbols) {
    if (s.undefined()) continue;
    const std::string name = unversioned(s.name);
    if (name == kMysgemmSymbol || name == kBasicSgemmSymbol) continue;
    if (stubs.count(name)) continue;
    // The stub of a kernel that is itself defined here: the kernel is what gets reported.
    if (const std::string k = stub_kernel(name); !k.empty() && defined.count(k)) continue;
    // The student's own names cost nothing: the build makes them local (localise.cpp).
    if (is_own_helper(name, s.type)) continue;
    auto problem = classify_definition(name, s.type);
    if (!problem || !reported.insert(name).second) continue;
    misdefined.insert(plain_function_name(name));
    SymbolProblem p;
    p.kind = SymbolProblem::Kind::Defines;
    p.definition = std::move(*problem);
    add(report, std::move(p));
  }
  for (const char* want : {kMysgemmSymbol, kBasicSgemmSymbol}) {
    const bool is_mysgemm = want == std::string(kMysgemmSymbol);
    // A wrong-signature definition has already been reported as such.
    if (defined.count(want) || misdefined.count(is_mysgemm ? "mysgemm" : "basicSgemm")) continue;
    SymbolProblem p;
    p.kind = SymbolProblem::Kind::Missing;
    p.missing = is_mysgemm ? ContractFunction::Mysgemm : ContractFunction::BasicSgemm;
    add(report, std::move(p));
  }
  for (const auto& s : symbols) {
    if (!s.undefined()) continue;
    const std::string name = unversioned(s.name);
    if (name == "exit" && exit_only_in_stubs) continue;
    std::optional<ReferenceVerdict> layer;
    if (cpu_layer) layer = classify_cpu_layer_reference(name);
    const ReferenceVerdict v = layer ? *layer : classify_reference(name);
    if (v.allowed || !reported.insert("U " + name).second) continue;
    SymbolProblem p;
    p.kind = SymbolProblem::Kind::Uses;
    p.symbol = demangle(name);
    p.verdict = v;
    add(report, std::move(p));
  }
  return report;
}

}  // namespace

SymbolReport check_symbols(const Toolchain& tc, const std::string& object) {
  return check_object(tc.nm, object, false);
}

SymbolReport check_cpu_symbols(const std::string& object, const std::string& nm) {
  return check_object(nm, object, true);
}

}  // namespace sg
