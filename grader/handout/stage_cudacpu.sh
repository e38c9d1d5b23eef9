#!/usr/bin/env bash
# Copies the CUDA-on-CPU layer into DEST (the handout's cudacpu/ folder): its
# headers and library sources, and the source rewriter with a small main, so
# that the handout's `make cpu` builds them with the host compiler.
#   grader/handout/stage_cudacpu.sh DEST
set -euo pipefail
[[ $# -eq 1 ]] || { echo "usage: $0 DEST" >&2; exit 2; }
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
layer=$1
rm -rf "$layer"
cpu=$root/grader/src/backends/cpu
mkdir -p "$layer/lib" "$layer/rewriter/backends/cpu" "$layer/rewriter/model" "$layer/rewriter/words"
cp -rp "$root/grader/cudacpu/include" "$layer/include"
cp -p "$root"/grader/cudacpu/lib/*.cpp "$root"/grader/cudacpu/lib/*.h "$layer/lib/"
for unit in rewrite cuda_tokens unsupported; do
  cp -p "$cpu/$unit.h" "$cpu/$unit.cpp" "$layer/rewriter/backends/cpu/"
done
# What the rewriter finds is a fact (model/); its lines are the grader's own words.
cp -p "$root/grader/src/model/source_problem.h" "$layer/rewriter/model/"
cp -p "$root/grader/src/words/source_problems.h" "$root/grader/src/words/source_problems.cpp" "$layer/rewriter/words/"
cp -p "$root/grader/handout/rewrite_main.cpp" "$layer/rewriter/"
cat > "$layer/README.md" <<'TXT'
# cudacpu: CUDA on the CPU

What `make cpu` builds ./sgemm with when there is no NVIDIA GPU: `include/` stands in for
`cuda_runtime.h`, `lib/` runs a few blocks at a time that take turns, each block's threads as
fibers (in a fixed order, one at a time until each reaches a barrier), fences every device
allocation with guard pages and watches every access to global memory (two blocks storing to one
element is a race between blocks, as on a GPU), and `rewriter/` turns `kernel<<<grid, block>>>(...)`
launches and `__shared__` variables in kernel.cu into plain C++ for the host compiler. It models a
GPU: a tile in a global array, a sum split over blocks without atomicAdd or a missing barrier
gives wrong results here as on a GPU. You do not need to read or change anything here.
TXT
