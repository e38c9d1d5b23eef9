// localise_helpers: nm lists the object's strong global definitions, objcopy
// (from the same binutils) makes all but the contract's two local.
#include <filesystem>
#include <fstream>

#include "io/clean_text.h"
#include "process/tool_process.h"
#include "static_checks/static_checks.h"
#include "static_checks/symbol_policy.h"

namespace sg {
namespace {

bool strong_definition(const build::NmSymbol& s) {
  return !s.undefined() && s.type != 'W' && s.type != 'V' && s.type != 'u' && s.type != 'w' && s.type != 'v';
}

std::string tool_beside(const std::string& nm, const char* name) {
  if (nm.find('/') == std::string::npos) return name;
  return (std::filesystem::path(nm).parent_path() / name).string();
}

std::string failure(const std::string& tool, const build::ToolResult& r) {
  return tool + " failed (" +
         (!r.started ? r.error : r.timed_out ? std::string("timed out") : "exit code " + std::to_string(r.code)) +
         ")" + (r.output.empty() ? "" : ": " + clean_text(r.output.substr(0, 400)));
}

}  // namespace

std::string localise_helpers(const std::string& object, std::vector<std::string>& helpers, const std::string& nm) {
  const build::ToolResult listed = build::run_build_tool({nm, "-P", "-g", "--defined-only", "--", object}, 60, 16u << 20);
  if (!listed.succeeded() || listed.truncated) return failure(nm, listed);
  std::vector<std::string> names;
  for (const build::NmSymbol& s : build::parse_nm_posix(listed.output)) {
    const std::string name = build::unversioned(s.name);
    if (!strong_definition(s) || name == build::kMysgemmSymbol || name == build::kBasicSgemmSymbol) continue;
    names.push_back(s.name);
    if (name.find("__device_stub__") == std::string::npos) helpers.push_back(build::demangle(name));
  }
  if (names.empty()) return "";
  // A list file, not one argument per symbol: a submission may define thousands.
  const std::string list = object + ".localise";
  {
    std::ofstream out(list, std::ios::trunc);
    for (const std::string& s : names) out << s << '\n';
    if (!out.flush()) return "cannot write " + list;
  }
  const std::string objcopy = tool_beside(nm, "objcopy");
  const build::ToolResult r = build::run_build_tool({objcopy, "--localize-symbols=" + list, object}, 60, 64 << 10);
  return r.succeeded() ? "" : failure(objcopy, r);
}

}  // namespace sg
