// The structure check ("mysgemm uses shared memory and a barrier") read from
// the kernel's source instead of its PTX, for machines without nvcc (the
// CUDA-free grader on Gradescope or GitHub-hosted CI). Weaker than the PTX
// check, since it does not preprocess: code inside `#if 0` still counts.
#pragma once
#include <string>

#include "static_checks/static_checks.h"

namespace sg {

// Finds the definition of mysgemm and looks through its body, the bodies of
// the functions it calls that kernel.cu defines, and the macros it uses, for
// a `__shared__` declaration and a `__syncthreads` call (or its _count/_and/
// _or forms). Comments and string literals never count. `detail` says which
// lines were found, or what is missing.
StructureReport check_structure_source(const std::string& kernel_cu_text);

}  // namespace sg
