#include "words/structure_report.h"

#include <vector>

#include <fmt/format.h>

namespace sg {

std::string ptx_evidence_text(const PtxEvidence& e) {
  std::string text;
  switch (e.kind) {
    case PtxEvidence::Kind::SharedDeclaration: text = ".shared declaration"; break;
    case PtxEvidence::Kind::Instruction: text = e.opcode; break;
    case PtxEvidence::Kind::SharedVariable: text = fmt::format("{} of shared variable {}", e.opcode, e.variable); break;
  }
  if (!e.function.empty()) text += fmt::format(" (in {})", e.function);
  return text;
}

std::string ptx_structure_detail(const StructureReport& r) {
  if (r.read_failed) return fmt::format("cannot read the PTX file `{}`", r.ptx_path);
  if (!r.found_kernel)
    return "no kernel `mysgemm(int, int, int, const float*, const float*, float*)` in the compiled "
           "code (is it declared __global__ with exactly that signature?)";
  std::vector<std::string> lines;
  if (r.uses_shared && r.uses_barrier)
    lines.push_back(fmt::format("mysgemm uses shared memory ({}) and a barrier ({})", ptx_evidence_text(r.shared_at),
                                ptx_evidence_text(r.barrier_at)));
  if (!r.uses_shared)
    lines.push_back("mysgemm does not use shared memory: its compiled code declares and accesses no "
                    "__shared__ data (a shared array the compiler removed because it is never read "
                    "does not count); the assignment asks for a shared-memory tiled kernel");
  if (!r.uses_barrier)
    lines.push_back("mysgemm has no barrier: its compiled code has no bar.sync/barrier.sync; "
                    "__syncthreads() is needed after loading a tile and before overwriting it");
  std::string detail;
  for (std::size_t k = 0; k < lines.size(); ++k) detail += (k ? "\n" : "") + lines[k];
  return detail;
}

StructureReport with_ptx_detail(StructureReport r) {
  r.detail = ptx_structure_detail(r);
  return r;
}

}  // namespace sg
