// What the CPU backend cannot build in a submission's source, as facts: the
// rewriter (backends/cpu/rewrite.h) and the scan of the preprocessed text
// (backends/cpu/preprocessed_scan.h) find them, words/cpu_backend_lines says
// them (one line each, naming the file and line).
#pragma once
#include <cstddef>
#include <string>
#include <tuple>
#include <vector>

namespace sg {

enum class SourceProblemKind {
  Header,                   // text: an #include's header the layer cannot stand in for
  Identifier,               // text: a construct the layer lacks (a warp intrinsic, `asm`, ...)
  SharedAtFileScope,        // `__shared__` outside a kernel
  SharedDeclarationForm,    // a `__shared__` declaration the rewriter cannot turn per-block
  ExternSharedForm,         // an `extern __shared__` declaration of another form
  ExternSharedAtFileScope,  // `extern __shared__` outside a kernel
  DeviceSideLaunch,         // a launch inside device code (dynamic parallelism)
  KernelNameUnreadable,     // no kernel name before `<<<`
  UnterminatedLaunch,       // no `>>>` for a `<<<`
  LaunchArgumentCount,      // fewer than 2 configuration arguments
  GccPragma,                // text: the word after `#pragma GCC`
  InlineAssembly,           // text: the keyword
  X86Builtin,               // text: the builtin
  Attribute,                // text: an attribute that turns instrumentation off
};

struct SourceProblem {
  long line = 0;  // in the student's file
  SourceProblemKind kind = SourceProblemKind::Identifier;
  std::string text;  // the construct's own spelling, for the kinds that name one
  bool operator<(const SourceProblem& o) const { return std::tie(line, kind, text) < std::tie(o.line, o.kind, o.text); }
  bool operator==(const SourceProblem& o) const { return line == o.line && kind == o.kind && text == o.text; }
};

// The problems found, in source order, up to a cap; `more` counts those past it.
struct SourceProblems {
  std::vector<SourceProblem> shown;
  std::size_t more = 0;
  bool empty() const { return shown.empty() && more == 0; }
};

}  // namespace sg
