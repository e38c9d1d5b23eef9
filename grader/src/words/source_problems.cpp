#include "words/source_problems.h"

namespace sg {
namespace {

// What a problem is, as the rest of its line after "file:line: ".
std::string what(const SourceProblem& p) {
  const std::string not_supported = " is not supported on the CPU backend";
  switch (p.kind) {
    case SourceProblemKind::Header: return "`#include <" + p.text + ">`" + not_supported;
    case SourceProblemKind::Identifier: return "`" + p.text + "`" + not_supported;
    case SourceProblemKind::SharedAtFileScope:
      return "`__shared__` at file scope (declare it inside the kernel)" + not_supported;
    case SourceProblemKind::SharedDeclarationForm:
      return "this form of `__shared__` declaration (use `__shared__ T name[N]...;`, one or more names, no "
             "initializer)" + not_supported;
    case SourceProblemKind::ExternSharedForm:
      return "this form of `extern __shared__` (use `extern __shared__ T name[];`)" + not_supported;
    case SourceProblemKind::ExternSharedAtFileScope:
      return "`extern __shared__` at file scope (declare it inside the kernel)" + not_supported;
    case SourceProblemKind::DeviceSideLaunch:
      return "a kernel launch inside device code (dynamic parallelism)" + not_supported;
    case SourceProblemKind::KernelNameUnreadable: return "cannot read the kernel name before `<<<`";
    case SourceProblemKind::UnterminatedLaunch: return "unterminated kernel launch configuration (no matching `>>>`)";
    case SourceProblemKind::LaunchArgumentCount:
      return "a kernel launch needs 2 to 4 configuration arguments inside <<< >>> (grid, block, shared memory "
             "bytes, stream)";
    case SourceProblemKind::GccPragma: return "`#pragma GCC " + p.text + "`" + not_supported;
    case SourceProblemKind::InlineAssembly: return "inline assembly (`" + p.text + "`)" + not_supported;
    case SourceProblemKind::X86Builtin: return "the x86 builtin `" + p.text + "`" + not_supported;
    case SourceProblemKind::Attribute: return "the attribute `" + p.text + "`" + not_supported;
  }
  return p.text;
}

}  // namespace

std::vector<std::string> source_problem_lines(const std::string& file, const SourceProblems& problems) {
  std::vector<std::string> lines;
  for (const SourceProblem& p : problems.shown) lines.push_back(file + ":" + std::to_string(p.line) + ": " + what(p));
  if (problems.more > 0) lines.push_back("(" + std::to_string(problems.more) + " more not shown)");
  return lines;
}

}  // namespace sg
